package server

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

const groupsScript = `
turns:
  - text: "unused"
    repeat: true
agents:
  general-purpose:
    - when: {lastUserContains: "fast"}
      text: "fast done"
      repeat: true
    - when: {lastUserContains: "slow"}
      text: "slow started"
      hang: true
      repeat: true
`

// Agents started with ExecuteCommand("/agent ...") are grouped over the group RPCs:
// CreateBackgroundJobGroup (wait_any over a fast and a slow agent), WaitBackgroundJobGroup
// (answers once the fast one ended), List and Get; the group's events reach Watch as
// background_job_group_event, created, completed, then updated when the slow one is
// cancelled. Bad requests get their codes.
func TestBackgroundJobGroupRPCs(t *testing.T) {
	e := startEngine(t, "", func(c *manager.Config) { c.Runner = worker.New(nil) })
	info := e.create(project(t, groupsScript), func(r *robotav1.CreateSessionRequest) {
		r.PermissionMode = robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS
	})
	id := info.GetSessionId()
	ctx := testCtx(t)
	watch, err := e.client.Watch(ctx, &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Header(); err != nil {
		t.Fatal(err)
	}
	start := func(prompt string) string {
		t.Helper()
		res, err := e.client.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: id, Name: "agent", Args: prompt})
		if err != nil || !res.GetSuccess() {
			t.Fatalf("/agent %s: %v, %v", prompt, res, err)
		}
		return res.GetData().GetFields()["agentId"].GetStringValue()
	}
	slow, fast := start("slow work"), start("fast work")
	created, err := e.client.CreateBackgroundJobGroup(ctx, &robotav1.CreateBackgroundJobGroupRequest{SessionId: id,
		TaskIds: []string{slow, fast}, WaitPolicy: robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ANY, Label: "pair"})
	if err != nil {
		t.Fatal(err)
	}
	g := created.GetGroup()
	if g.GetGroupId() != "group_1" || g.GetParentSessionId() != id || g.GetLabel() != "pair" ||
		!slices.Equal(g.GetTaskIds(), []string{slow, fast}) {
		t.Fatalf("created %v", g)
	}
	waited, err := e.client.WaitBackgroundJobGroup(ctx, &robotav1.WaitBackgroundJobGroupRequest{SessionId: id, GroupId: "group_1"})
	if err != nil {
		t.Fatal(err)
	}
	wg := waited.GetGroup()
	if wg.GetStatus() != robotav1.BackgroundJobGroupStatus_BACKGROUND_JOB_GROUP_STATUS_COMPLETED || len(wg.GetResults()) != 1 ||
		wg.GetResults()[0].GetTaskId() != fast || wg.GetResults()[0].GetSummary() != "fast done" ||
		wg.GetResults()[0].GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED || wg.GetCompletedAt() == nil {
		t.Fatalf("waited %v", wg)
	}
	if _, err := e.client.CancelBackgroundTask(ctx, &robotav1.CancelBackgroundTaskRequest{SessionId: id, TaskId: slow}); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for len(kinds) < 3 {
		resp, err := watch.Recv()
		if err != nil {
			t.Fatalf("watch: %v (group events so far %v)", err, kinds)
		}
		if ge := resp.GetEvent().GetBackgroundJobGroupEvent(); ge != nil {
			kinds = append(kinds, strings.TrimPrefix(ge.GetType().String(), "BACKGROUND_JOB_GROUP_EVENT_TYPE_")+
				":"+strings.TrimPrefix(ge.GetGroup().GetStatus().String(), "BACKGROUND_JOB_GROUP_STATUS_"))
		}
	}
	if want := []string{"CREATED:RUNNING", "COMPLETED:COMPLETED", "UPDATED:COMPLETED"}; !slices.Equal(kinds, want) {
		t.Fatalf("Watch group events %v, want %v", kinds, want)
	}
	list, err := e.client.ListBackgroundJobGroups(ctx, &robotav1.ListBackgroundJobGroupsRequest{SessionId: id})
	if err != nil || len(list.GetGroups()) != 1 || len(list.GetGroups()[0].GetResults()) != 2 ||
		list.GetGroups()[0].GetWaitPolicy() != robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ANY {
		t.Fatalf("list %v, %v", list, err)
	}
	got, err := e.client.GetBackgroundJobGroup(ctx, &robotav1.GetBackgroundJobGroupRequest{SessionId: id, GroupId: "group_1"})
	if err != nil || got.GetGroup().GetResults()[1].GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED {
		t.Fatalf("get %v, %v", got, err)
	}

	_, err = e.client.GetBackgroundJobGroup(ctx, &robotav1.GetBackgroundJobGroupRequest{SessionId: id, GroupId: "group_9"})
	wantCode(t, "Get of an unknown group", err, codes.NotFound, "group_9")
	_, err = e.client.WaitBackgroundJobGroup(ctx, &robotav1.WaitBackgroundJobGroupRequest{SessionId: id})
	wantCode(t, "Wait without group_id", err, codes.InvalidArgument, "group_id")
	_, err = e.client.CreateBackgroundJobGroup(ctx, &robotav1.CreateBackgroundJobGroupRequest{SessionId: id, TaskIds: []string{fast, "agent-nope"}})
	wantCode(t, "Create over an unknown task", err, codes.InvalidArgument, "agent-nope")
	_, err = e.client.CreateBackgroundJobGroup(ctx, &robotav1.CreateBackgroundJobGroupRequest{SessionId: id})
	wantCode(t, "Create without tasks", err, codes.InvalidArgument, "task_ids")
}

// An engine without workers says so on the group RPCs that need tasks; it lists none.
func TestBackgroundJobGroupRPCsWithoutWorkers(t *testing.T) {
	e := startEngine(t, "", nil)
	id := e.create(project(t, "turns: [{text: hi}]\n"), nil).GetSessionId()
	_, err := e.client.CreateBackgroundJobGroup(testCtx(t), &robotav1.CreateBackgroundJobGroupRequest{SessionId: id, TaskIds: []string{"x"}})
	wantCode(t, "CreateBackgroundJobGroup", err, codes.FailedPrecondition, "no background tasks")
	list, err := e.client.ListBackgroundJobGroups(testCtx(t), &robotav1.ListBackgroundJobGroupsRequest{SessionId: id})
	if err != nil || len(list.GetGroups()) != 0 {
		t.Fatalf("list %v, %v", list, err)
	}
}

// The model's batch Agent call (one call with jobs) is a group ListBackgroundJobGroups
// lists: wait_all, labelled "Agent batch", over the batch's agents, completed with both
// results once the call answered.
func TestModelAgentBatchIsListed(t *testing.T) {
	e := startEngine(t, "", func(c *manager.Config) { c.Runner = worker.New(nil) })
	info := e.create(project(t, `
turns:
  - when: {lastUserContains: "delegate"}
    toolCalls:
      - {id: toolu_batch, name: Agent, input: {jobs: [{description: one, prompt: "fast one"}, {description: two, prompt: "fast two"}]}}
  - text: "both done"
agents:
  general-purpose:
    - when: {lastUserContains: "fast"}
      text: "fast done"
      repeat: true
`), func(r *robotav1.CreateSessionRequest) {
		r.PermissionMode = robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS
	})
	id := info.GetSessionId()
	if got := e.submit(id, "delegate"); got.err != nil || got.last().GetComplete().GetResult().GetResponse() != "both done" {
		t.Fatalf("the batch prompt ended with %v, %v", got.last(), got.err)
	}
	list, err := e.client.ListBackgroundJobGroups(testCtx(t), &robotav1.ListBackgroundJobGroupsRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.GetGroups()) != 1 {
		t.Fatalf("groups %v, want the batch's", list.GetGroups())
	}
	g := list.GetGroups()[0]
	if g.GetGroupId() != "group_1" || g.GetLabel() != "Agent batch" || len(g.GetTaskIds()) != 2 ||
		g.GetWaitPolicy() != robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ALL ||
		g.GetStatus() != robotav1.BackgroundJobGroupStatus_BACKGROUND_JOB_GROUP_STATUS_COMPLETED || len(g.GetResults()) != 2 {
		t.Fatalf("batch group %v", g)
	}
}
