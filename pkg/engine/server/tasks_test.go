package server

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// A background command started by the model is a task the clients list, read, cancel
// and close over the task RPCs, with its state changes on Watch.
func TestBackgroundTaskRPCs(t *testing.T) {
	e := startEngine(t, "", func(c *manager.Config) { c.Runner = worker.New(nil) })
	dir := project(t, `
turns:
  - toolCalls: [{id: bg, name: Bash, input: {command: "echo started; sleep 30", run_in_background: true}}]
  - text: "started it"
`)
	info := e.create(dir, func(r *robotav1.CreateSessionRequest) {
		r.PermissionMode = robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS
	})
	id := info.GetSessionId()
	watch, err := e.client.Watch(testCtx(t), &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.submit(id, "go"); got.err != nil || got.last().GetComplete() == nil {
		t.Fatalf("submit: %v, last %v", got.err, got.last())
	}
	ctx := testCtx(t)
	list, err := e.client.ListBackgroundTasks(ctx, &robotav1.ListBackgroundTasksRequest{SessionId: id})
	if err != nil || len(list.GetTasks()) != 1 {
		t.Fatalf("ListBackgroundTasks = %v, %v", list, err)
	}
	task := list.GetTasks()[0]
	if task.GetTaskId() != "bash_1" || task.GetKind() != robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_PROCESS ||
		task.GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING || task.GetPid() == 0 ||
		!strings.Contains(task.GetLabel(), "sleep 30") {
		t.Fatalf("task = %v", task)
	}
	var data string
	for deadline := time.Now().Add(testWait); !strings.Contains(data, "started") && time.Now().Before(deadline); {
		page, err := e.client.ReadBackgroundTaskLog(ctx, &robotav1.ReadBackgroundTaskLogRequest{SessionId: id, TaskId: "bash_1"})
		if err != nil {
			t.Fatal(err)
		}
		data = string(page.GetData())
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(data, "started") {
		t.Fatalf("log %q lacks the command's output", data)
	}
	_, err = e.client.CloseBackgroundTask(ctx, &robotav1.CloseBackgroundTaskRequest{SessionId: id, TaskId: "bash_1"})
	wantCode(t, "Close of a running task", err, codes.FailedPrecondition, "active")
	cancelled, err := e.client.CancelBackgroundTask(ctx, &robotav1.CancelBackgroundTaskRequest{SessionId: id, TaskId: "bash_1", Reason: "enough"})
	if err != nil {
		t.Fatal(err)
	}
	for cancelled.GetTask().GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED {
		got, err := e.client.GetBackgroundTask(ctx, &robotav1.GetBackgroundTaskRequest{SessionId: id, TaskId: "bash_1"})
		if err != nil {
			t.Fatal(err)
		}
		cancelled = &robotav1.CancelBackgroundTaskResponse{Task: got.GetTask()}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := e.client.CloseBackgroundTask(ctx, &robotav1.CloseBackgroundTaskRequest{SessionId: id, TaskId: "bash_1"}); err != nil {
		t.Fatalf("Close of a cancelled task: %v", err)
	}
	_, err = e.client.GetBackgroundTask(ctx, &robotav1.GetBackgroundTaskRequest{SessionId: id, TaskId: "bash_1"})
	wantCode(t, "Get after Close", err, codes.NotFound, "bash_1")
	_, err = e.client.GetBackgroundTask(ctx, &robotav1.GetBackgroundTaskRequest{SessionId: id})
	wantCode(t, "Get without task_id", err, codes.InvalidArgument, "task_id")

	// Watch saw the task's lifecycle: running, then cancelled.
	var states []robotav1.BackgroundTaskStatus
	for len(states) == 0 || states[len(states)-1] != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED {
		resp, err := watch.Recv()
		if err != nil {
			t.Fatalf("watch: %v (states so far %v)", err, states)
		}
		if st := resp.GetEvent().GetBackgroundTaskEvent().GetStateChanged(); st != nil {
			states = append(states, st.GetStatus())
		}
	}
	if states[0] != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_QUEUED && states[0] != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING {
		t.Fatalf("first state %v", states[0])
	}
}

// An engine without workers says so on the task RPCs.
func TestBackgroundTaskRPCsWithoutWorkers(t *testing.T) {
	e := startEngine(t, "", nil)
	info := e.create(project(t, "turns: [{text: hi}]\n"), nil)
	_, err := e.client.ListBackgroundTasks(testCtx(t), &robotav1.ListBackgroundTasksRequest{SessionId: info.GetSessionId()})
	wantCode(t, "ListBackgroundTasks", err, codes.FailedPrecondition, "no background tasks")
}
