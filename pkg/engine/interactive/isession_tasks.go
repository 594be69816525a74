package interactive

import (
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// TaskKind is what a background task runs.
type TaskKind string

const (
	TaskAgent   TaskKind = "agent"   // a subagent session
	TaskProcess TaskKind = "process" // a shell command
)

// TaskStatus is a background task's lifecycle state (the spec's states).
type TaskStatus string

const (
	TaskQueued            TaskStatus = "queued"
	TaskRunning           TaskStatus = "running"
	TaskWaitingPermission TaskStatus = "waiting_permission"
	TaskCompleted         TaskStatus = "completed"
	TaskFailed            TaskStatus = "failed"
	TaskCancelled         TaskStatus = "cancelled"
)

// Terminal reports whether the task has ended.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// TaskState is a snapshot of one background task as clients render it.
type TaskState struct {
	TaskID string     `json:"taskId"`
	Kind   TaskKind   `json:"kind"`
	Status TaskStatus `json:"status"`
	// Label is the agent type and description, or the command.
	Label string `json:"label"`
	// CurrentAction is the tool the task is running now; empty when idle.
	CurrentAction string `json:"currentAction,omitempty"`
	// ParentToolUseID is the Agent or Bash call that started the task.
	ParentToolUseID string    `json:"parentToolUseId,omitempty"`
	CreatedAt       time.Time `json:"createdAt"`
	StartedAt       time.Time `json:"startedAt,omitzero"`
	EndedAt         time.Time `json:"endedAt,omitzero"`
	Error           string    `json:"error,omitempty"`
	// OutputSummary is the head of the task's result once it ended.
	OutputSummary string `json:"outputSummary,omitempty"`
	PID           int    `json:"pid,omitempty"`
	// Host and Attempt say where a remotely dispatched task runs (empty and zero for a
	// local worker); PID is a process id on Host.
	Host    string `json:"host,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	// WorktreePath and BranchName name a worktree-isolated task's worktree that was kept
	// because it holds changes.
	WorktreePath string `json:"worktreePath,omitempty"`
	BranchName   string `json:"branchName,omitempty"`
	// TranscriptPath is a subagent's transcript log.
	TranscriptPath string `json:"transcriptPath,omitempty"`
}

// TaskEvent is a lifecycle change or progress of a background task (EventBackgroundTask).
// Exactly one of State, Text, ToolStart, ToolEnd is set. State changes are never
// dropped; Text may be coalesced with the task's next Text.
type TaskEvent struct {
	TaskID    string     `json:"taskId"`
	State     *TaskState `json:"state,omitempty"`
	Text      string     `json:"text,omitempty"`
	ToolStart *ToolState `json:"toolStart,omitempty"`
	ToolEnd   *ToolState `json:"toolEnd,omitempty"`
}

// mergeableTask reports whether a queued task event may absorb the next one: text of the
// same task.
func mergeableTask(a, b *TaskEvent) bool {
	return a != nil && b != nil && a.TaskID == b.TaskID && a.State == nil && b.State == nil &&
		a.ToolStart == nil && b.ToolStart == nil && a.ToolEnd == nil && b.ToolEnd == nil
}

// EntryBackgroundTask is the timeline entry of a background task's (a subagent's or a
// background command's) lifecycle change: its TaskState, output summary included once
// it ended. A resumed session's timeline shows what ran, not only the last snapshot.
const EntryBackgroundTask = "background-task"

// recordTask keeps a task event beyond the session's life: every event (lifecycle,
// output, tool calls) in the session log as a background_task_event, which replay
// collects, and each lifecycle change in the timeline (saved with the session's record).
func (s *InteractiveSession) recordTask(te *TaskEvent) {
	if s.host != nil && s.host.Log != nil {
		s.host.Log(string(sessionlog.EventBackgroundTask), te)
	}
	if te.State != nil {
		s.addEntry(EntryBackgroundTask, te.State)
	}
}

// TaskEventOf is the session's form of a manager event (nil for the ones clients do not
// need: a closed task).
func TaskEventOf(ev tasks.Event) *TaskEvent {
	out := &TaskEvent{TaskID: ev.TaskID}
	switch ev.Type {
	case tasks.EventTextDelta:
		out.Text = ev.Text
	case tasks.EventToolStart, tasks.EventToolEnd:
		if ev.Tool == nil {
			return nil
		}
		st := &ToolState{ToolUseID: ev.Tool.CallID, ToolName: ev.Tool.Name, FirstArg: ev.Tool.Arg,
			IsRunning: ev.Type == tasks.EventToolStart}
		if ev.Type == tasks.EventToolStart {
			out.ToolStart = st
		} else {
			st.Result, st.Reason = "success", ev.Tool.Error
			if ev.Tool.Error != "" {
				st.Result = "error"
			}
			out.ToolEnd = st
		}
	case tasks.EventClosed:
		return nil
	default:
		if ev.Task == nil {
			return nil
		}
		st := taskState(*ev.Task)
		out.State = &st
	}
	return out
}

// TaskSnapshot is a task manager snapshot as clients render it.
func TaskSnapshot(t tasks.Task) TaskState { return taskState(t) }

// taskState is a manager snapshot as clients render it.
func taskState(t tasks.Task) TaskState {
	out := TaskState{TaskID: t.ID, Kind: TaskKind(t.Kind), Status: TaskStatus(t.State), ParentToolUseID: t.ParentToolUseID,
		CreatedAt: t.CreatedAt, Error: t.Error, PID: t.PID, Host: t.Host, Attempt: t.Attempt, WorktreePath: t.WorktreePath, BranchName: t.WorktreeBranch}
	switch t.Kind {
	case tasks.KindAgent:
		out.Label = t.AgentType
		if t.Description != "" && t.Description != t.AgentType {
			out.Label += ": " + t.Description
		}
	default:
		out.Label = t.Command
	}
	if a := t.CurrentAction; a != nil && !t.State.Terminal() {
		out.CurrentAction = a.Tool
		if a.Arg != "" {
			out.CurrentAction += " " + a.Arg
		}
	}
	if t.StartedAt != nil {
		out.StartedAt = *t.StartedAt
	}
	if t.EndedAt != nil {
		out.EndedAt = *t.EndedAt
		out.OutputSummary = truncateRunes(strings.TrimSpace(t.Result), maxPreviewChars)
	}
	return out
}
