package server

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

// taskKindToProto is UNSPECIFIED for an unknown kind.
func taskKindToProto(k interactive.TaskKind) robotav1.BackgroundTaskKind {
	switch k {
	case interactive.TaskAgent:
		return robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_AGENT
	case interactive.TaskProcess:
		return robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_PROCESS
	}
	return robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_UNSPECIFIED
}

// taskStatuses pairs each task status with its proto value; both conversions read it.
var taskStatuses = [...]struct {
	status interactive.TaskStatus
	proto  robotav1.BackgroundTaskStatus
}{
	{interactive.TaskQueued, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_QUEUED},
	{interactive.TaskRunning, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING},
	{interactive.TaskWaitingPermission, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_WAITING_PERMISSION},
	{interactive.TaskCompleted, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED},
	{interactive.TaskFailed, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_FAILED},
	{interactive.TaskCancelled, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED},
}

// taskStatusToProto is UNSPECIFIED for an unknown status.
func taskStatusToProto(s interactive.TaskStatus) robotav1.BackgroundTaskStatus {
	for _, x := range taskStatuses {
		if x.status == s {
			return x.proto
		}
	}
	return robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_UNSPECIFIED
}

// statusFromProto maps a status filter back; false for UNSPECIFIED or unknown values.
func statusFromProto(s robotav1.BackgroundTaskStatus) (interactive.TaskStatus, bool) {
	for _, x := range taskStatuses {
		if x.proto == s {
			return x.status, true
		}
	}
	return "", false
}

// stamp converts t, leaving the zero time unset.
func stamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func taskStateToProto(t interactive.TaskState) *robotav1.BackgroundTaskState {
	return &robotav1.BackgroundTaskState{
		TaskId: t.TaskID, Kind: taskKindToProto(t.Kind), Status: taskStatusToProto(t.Status), Label: t.Label,
		CurrentAction: t.CurrentAction, CreatedAt: stamp(t.CreatedAt),
		StartedAt: stamp(t.StartedAt), EndedAt: stamp(t.EndedAt),
		Error: t.Error, OutputSummary: t.OutputSummary, Pid: int32(t.PID), Host: t.Host, Attempt: int32(t.Attempt), WorktreePath: t.WorktreePath, BranchName: t.BranchName,
	}
}

func taskEventToProto(t *interactive.TaskEvent) *robotav1.BackgroundTaskEvent {
	out := &robotav1.BackgroundTaskEvent{TaskId: t.TaskID}
	switch {
	case t.State != nil:
		out.Event = &robotav1.BackgroundTaskEvent_StateChanged{StateChanged: taskStateToProto(*t.State)}
	case t.ToolStart != nil:
		out.Event = &robotav1.BackgroundTaskEvent_ToolStart{ToolStart: toolToProto(t.ToolStart)}
	case t.ToolEnd != nil:
		out.Event = &robotav1.BackgroundTaskEvent_ToolEnd{ToolEnd: toolToProto(t.ToolEnd)}
	default:
		out.Event = &robotav1.BackgroundTaskEvent_TextDelta{TextDelta: t.Text}
	}
	return out
}
