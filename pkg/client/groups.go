package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// JobGroup is a snapshot of a session's background job group.
type JobGroup struct {
	ID, ParentSessionID, Label string
	// WaitPolicy is detached, wait_all, wait_any or manual; Status running or completed.
	WaitPolicy, Status string
	TaskIDs            []string
	// Results has one entry per task that ended, in the order they ended.
	Results                           []JobResult
	CreatedAt, UpdatedAt, CompletedAt time.Time
}

// JobResult is the outcome of one task of a group.
type JobResult struct {
	TaskID, Label, Summary, OutputRef, Error string
	// Status is completed, failed or cancelled.
	Status string
}

func policyToProto(name string) (robotav1.BackgroundJobWaitPolicy, bool) {
	switch name {
	case "detached":
		return robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_DETACHED, true
	case "wait_all":
		return robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ALL, true
	case "wait_any":
		return robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ANY, true
	case "manual":
		return robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_MANUAL, true
	}
	return 0, false
}

func groupFromProto(g *robotav1.BackgroundJobGroup) *JobGroup {
	if g == nil {
		return nil
	}
	out := &JobGroup{ID: g.GetGroupId(), ParentSessionID: g.GetParentSessionId(), Label: g.GetLabel(), TaskIDs: g.GetTaskIds(),
		WaitPolicy: strings.ToLower(strings.TrimPrefix(g.GetWaitPolicy().String(), "BACKGROUND_JOB_WAIT_POLICY_")),
		Status:     strings.ToLower(strings.TrimPrefix(g.GetStatus().String(), "BACKGROUND_JOB_GROUP_STATUS_"))}
	out.CreatedAt, out.UpdatedAt, out.CompletedAt = timeOf(g.GetCreatedAt()), timeOf(g.GetUpdatedAt()), timeOf(g.GetCompletedAt())
	for _, r := range g.GetResults() {
		out.Results = append(out.Results, JobResult{TaskID: r.GetTaskId(), Label: r.GetLabel(), Summary: r.GetSummary(),
			OutputRef: r.GetOutputRef(), Error: r.GetError(),
			Status: strings.ToLower(strings.TrimPrefix(r.GetStatus().String(), "BACKGROUND_TASK_STATUS_"))})
	}
	return out
}

// timeOf is ts as a time, the zero time when unset.
func timeOf(ts *timestamppb.Timestamp) time.Time {
	if ts == nil {
		return time.Time{}
	}
	return ts.AsTime()
}

// CreateJobGroup groups existing background tasks under a wait policy ("" is wait_all).
func (c *Client) CreateJobGroup(ctx context.Context, sessionID, policy, label string, taskIDs ...string) (*JobGroup, error) {
	p := robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_UNSPECIFIED
	if policy != "" {
		v, ok := policyToProto(strings.ReplaceAll(policy, "-", "_"))
		if !ok {
			return nil, fmt.Errorf("%w: wait policy %q: want detached, wait_all, wait_any or manual", ErrInvalidOption, policy)
		}
		p = v
	}
	resp, err := c.rpc.CreateBackgroundJobGroup(ctx, &robotav1.CreateBackgroundJobGroupRequest{
		SessionId: sessionID, TaskIds: taskIDs, WaitPolicy: p, Label: label})
	if err != nil {
		return nil, rpcErr("create a job group", err)
	}
	return groupFromProto(resp.GetGroup()), nil
}

// JobGroups lists a session's job groups, oldest first.
func (c *Client) JobGroups(ctx context.Context, sessionID string) ([]JobGroup, error) {
	resp, err := c.rpc.ListBackgroundJobGroups(ctx, &robotav1.ListBackgroundJobGroupsRequest{SessionId: sessionID})
	if err != nil {
		return nil, rpcErr("list job groups", err)
	}
	out := make([]JobGroup, 0, len(resp.GetGroups()))
	for _, g := range resp.GetGroups() {
		out = append(out, *groupFromProto(g))
	}
	return out, nil
}

// JobGroup returns one job group.
func (c *Client) JobGroup(ctx context.Context, sessionID, groupID string) (*JobGroup, error) {
	resp, err := c.rpc.GetBackgroundJobGroup(ctx, &robotav1.GetBackgroundJobGroupRequest{SessionId: sessionID, GroupId: groupID})
	if err != nil {
		return nil, rpcErr("get job group "+groupID, err)
	}
	return groupFromProto(resp.GetGroup()), nil
}

// WaitJobGroup returns the group once its wait policy completed it (a manual group: once
// every task ended), or ctx's error.
func (c *Client) WaitJobGroup(ctx context.Context, sessionID, groupID string) (*JobGroup, error) {
	resp, err := c.rpc.WaitBackgroundJobGroup(ctx, &robotav1.WaitBackgroundJobGroupRequest{SessionId: sessionID, GroupId: groupID})
	if err != nil {
		return nil, rpcErr("wait on job group "+groupID, err)
	}
	return groupFromProto(resp.GetGroup()), nil
}
