package server

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
)

// waitPolicies pairs each wait policy with its proto value; both conversions read it.
var waitPolicies = [...]struct {
	policy jobgroups.Policy
	proto  robotav1.BackgroundJobWaitPolicy
}{
	{jobgroups.Detached, robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_DETACHED},
	{jobgroups.WaitAll, robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ALL},
	{jobgroups.WaitAny, robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ANY},
	{jobgroups.Manual, robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_MANUAL},
}

// waitPolicyToProto is UNSPECIFIED for an unknown policy.
func waitPolicyToProto(p jobgroups.Policy) robotav1.BackgroundJobWaitPolicy {
	for _, x := range waitPolicies {
		if x.policy == p {
			return x.proto
		}
	}
	return robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_UNSPECIFIED
}

func groupStatusToProto(s jobgroups.Status) robotav1.BackgroundJobGroupStatus {
	switch s {
	case jobgroups.StatusRunning:
		return robotav1.BackgroundJobGroupStatus_BACKGROUND_JOB_GROUP_STATUS_RUNNING
	case jobgroups.StatusCompleted:
		return robotav1.BackgroundJobGroupStatus_BACKGROUND_JOB_GROUP_STATUS_COMPLETED
	}
	return robotav1.BackgroundJobGroupStatus_BACKGROUND_JOB_GROUP_STATUS_UNSPECIFIED
}

func groupEventTypeToProto(t jobgroups.EventType) robotav1.BackgroundJobGroupEventType {
	switch t {
	case jobgroups.EventCreated:
		return robotav1.BackgroundJobGroupEventType_BACKGROUND_JOB_GROUP_EVENT_TYPE_CREATED
	case jobgroups.EventUpdated:
		return robotav1.BackgroundJobGroupEventType_BACKGROUND_JOB_GROUP_EVENT_TYPE_UPDATED
	case jobgroups.EventCompleted:
		return robotav1.BackgroundJobGroupEventType_BACKGROUND_JOB_GROUP_EVENT_TYPE_COMPLETED
	}
	return robotav1.BackgroundJobGroupEventType_BACKGROUND_JOB_GROUP_EVENT_TYPE_UNSPECIFIED
}

func stampPtr(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return stamp(*t)
}

func groupToProto(g interactive.JobGroup) *robotav1.BackgroundJobGroup {
	out := &robotav1.BackgroundJobGroup{GroupId: g.ID, ParentSessionId: g.ParentSessionID, WaitPolicy: waitPolicyToProto(g.WaitPolicy),
		TaskIds: g.TaskIDs, Status: groupStatusToProto(g.Status), Label: g.Label, CreatedAt: stamp(g.CreatedAt),
		UpdatedAt: stamp(g.UpdatedAt), CompletedAt: stampPtr(g.CompletedAt)}
	for _, r := range g.Results {
		out.Results = append(out.Results, &robotav1.BackgroundJobResult{TaskId: r.TaskID, Label: r.Label,
			Status: taskStatusToProto(interactive.TaskStatus(r.Status)), Summary: r.Summary, OutputRef: r.OutputRef, Error: r.Error,
			StartedAt: stampPtr(r.StartedAt), CompletedAt: stampPtr(r.CompletedAt)})
	}
	return out
}

func groupEventToProto(ev *interactive.JobGroupEvent) *robotav1.BackgroundJobGroupEvent {
	return &robotav1.BackgroundJobGroupEvent{Type: groupEventTypeToProto(ev.Type), Group: groupToProto(ev.Group)}
}

// policyFromProto maps a request's policy; UNSPECIFIED is wait_all.
func policyFromProto(p robotav1.BackgroundJobWaitPolicy) (jobgroups.Policy, bool) {
	if p == robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_UNSPECIFIED {
		return jobgroups.WaitAll, true
	}
	for _, x := range waitPolicies {
		if x.proto == p {
			return x.policy, true
		}
	}
	return "", false
}

func (s *Server) CreateBackgroundJobGroup(ctx context.Context, req *robotav1.CreateBackgroundJobGroupRequest) (*robotav1.CreateBackgroundJobGroupResponse, error) {
	policy, ok := policyFromProto(req.GetWaitPolicy())
	if !ok {
		return nil, invalidArg("wait_policy", "unknown policy %v", req.GetWaitPolicy())
	}
	if len(req.GetTaskIds()) == 0 {
		return nil, invalidArg("task_ids", "required")
	}
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	g, err := l.CreateBackgroundJobGroup(interactive.JobGroupRequest{WaitPolicy: policy, TaskIDs: req.GetTaskIds(), Label: req.GetLabel()})
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.CreateBackgroundJobGroupResponse{Group: groupToProto(g)}, nil
}

func (s *Server) ListBackgroundJobGroups(ctx context.Context, req *robotav1.ListBackgroundJobGroupsRequest) (*robotav1.ListBackgroundJobGroupsResponse, error) {
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	resp := &robotav1.ListBackgroundJobGroupsResponse{}
	for _, g := range l.ListBackgroundJobGroups() {
		resp.Groups = append(resp.Groups, groupToProto(g))
	}
	return resp, nil
}

func (s *Server) GetBackgroundJobGroup(ctx context.Context, req *robotav1.GetBackgroundJobGroupRequest) (*robotav1.GetBackgroundJobGroupResponse, error) {
	if req.GetGroupId() == "" {
		return nil, invalidArg("group_id", "required")
	}
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	g, err := l.GetBackgroundJobGroup(req.GetGroupId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.GetBackgroundJobGroupResponse{Group: groupToProto(g)}, nil
}

func (s *Server) WaitBackgroundJobGroup(ctx context.Context, req *robotav1.WaitBackgroundJobGroupRequest) (*robotav1.WaitBackgroundJobGroupResponse, error) {
	if req.GetGroupId() == "" {
		return nil, invalidArg("group_id", "required")
	}
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	g, err := l.WaitBackgroundJobGroup(ctx, req.GetGroupId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.WaitBackgroundJobGroupResponse{Group: groupToProto(g)}, nil
}
