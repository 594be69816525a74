package agenttool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
)

type taskStopParams struct {
	TaskID string `json:"task_id,omitempty" jsonschema:"The ID of the background task to stop"`
	// ShellID is Claude Code's older name of the parameter (KillShell's).
	ShellID string `json:"shell_id,omitempty" jsonschema:"Deprecated: use task_id instead"`
}

// TaskStop is the TaskStop tool.
type TaskStop struct {
	*tools.Typed[taskStopParams]
	stopper TaskStopper
}

// NewTaskStop builds the TaskStop tool over s.
func NewTaskStop(s TaskStopper) (*TaskStop, error) {
	if s == nil {
		return nil, errors.New("agenttool: TaskStop needs a TaskStopper")
	}
	t := &TaskStop{stopper: s}
	typed, err := tools.New(TaskStopName, taskStopDescription, t.run)
	if err != nil {
		return nil, err
	}
	t.Typed = typed
	return t, nil
}

// ConcurrencySafe implements agent.ConcurrencySafe: stopping a task touches neither the
// files nor the conversation, and stopping one task twice is harmless (Claude Code marks
// TaskStop concurrency-safe too).
func (t *TaskStop) ConcurrencySafe(json.RawMessage) bool { return true }

// stopOutput is Claude Code's TaskStop result, sent to the model as JSON.
type stopOutput struct {
	Message  string `json:"message"`
	TaskID   string `json:"task_id"`
	TaskType string `json:"task_type"`
	Command  string `json:"command,omitempty"`
}

func (t *TaskStop) run(ctx context.Context, p taskStopParams) llm.ToolResult {
	id := strings.TrimSpace(p.TaskID)
	if id == "" {
		id = strings.TrimSpace(p.ShellID)
	}
	if id == "" {
		return failure(CodeInvalidArgument, "Missing required parameter: task_id", nil)
	}
	st, err := t.stopper.StopTask(ctx, id)
	if err != nil {
		var nr *NotRunningError
		switch {
		case errors.Is(err, ErrTaskNotFound):
			return failure(CodeNotFound, "No task found with ID: "+id, nil)
		case errors.As(err, &nr):
			return failure(CodeNotRunning, nr.Error(), map[string]any{"status": nr.Status})
		case errors.Is(err, ErrTaskNotRunning):
			return failure(CodeNotRunning, fmt.Sprintf("Task %s is not running", id), nil)
		}
		return failure(CodeTaskError, fmt.Sprintf("Could not stop task %s: %v", id, err), nil)
	}
	if st.ID == "" {
		st.ID = id
	}
	out := stopOutput{Message: fmt.Sprintf("Successfully stopped task: %s (%s)", st.ID, st.Command),
		TaskID: st.ID, TaskType: st.Type, Command: st.Command}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // as JSON.stringify: `go test > log` keeps its ">"
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out)
	return llm.ToolResult{Success: true, Output: strings.TrimSuffix(buf.String(), "\n"),
		Metadata: map[string]any{"taskId": st.ID, "taskType": st.Type}}
}
