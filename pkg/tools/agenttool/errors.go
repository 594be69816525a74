package agenttool

import "errors"

// Sentinel errors the ports return (wrapped) so the tools can answer as Claude Code does.
var (
	// ErrTaskNotFound: no task or agent has the id.
	ErrTaskNotFound = errors.New("task not found")
	// ErrTaskNotRunning: TaskStop on a task that already ended.
	ErrTaskNotRunning = errors.New("task is not running")
)

// Error codes put in ToolResult.Metadata["errorCode"].
const (
	CodeInvalidArgument = "invalid_argument"
	CodeUnknownAgent    = "unknown_agent_type"
	CodeSpawnFailed     = "spawn_failed"
	CodeAgentFailed     = "agent_failed"
	CodeInterrupted     = "interrupted"
	CodeNotFound        = "task_not_found"
	CodeNotRunning      = "task_not_running"
	CodeTaskError       = "task_error"
)

// NotRunningError is the error a TaskStopper returns for a task that already ended.
type NotRunningError struct {
	ID, Status string
}

func (e *NotRunningError) Error() string {
	return "Task " + e.ID + " is not running (status: " + e.Status + ")"
}

func (e *NotRunningError) Unwrap() error { return ErrTaskNotRunning }
