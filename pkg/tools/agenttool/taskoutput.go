package agenttool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/llm/tooloutput"
	"github.com/robota-sdk/robota-go/pkg/tools"
)

// TaskOutput limits (Claude Code's).
const (
	DefaultTaskOutputTimeout = 30 * time.Second
	MaxTaskOutputTimeout     = 600 * time.Second
	// MaxTaskOutputChars is how much of a task's output the result carries: the last
	// characters, after a line saying it was cut.
	MaxTaskOutputChars = 32_000
)

// Retrieval statuses of a TaskOutput result.
const (
	RetrievalSuccess  = "success"
	RetrievalTimeout  = "timeout"
	RetrievalNotReady = "not_ready"
)

type taskOutputParams struct {
	TaskID  string `json:"task_id" jsonschema:"The task ID to get output from"`
	Block   *bool  `json:"block,omitempty" jsonschema:"Whether to wait for completion"`
	Timeout *int64 `json:"timeout,omitempty" jsonschema:"Max wait time in ms"`
}

func taskOutputSchema(s *jsonschema.Schema) {
	if p := s.Properties["block"]; p != nil {
		p.Default = json.RawMessage("true")
	}
	if p := s.Properties["timeout"]; p != nil {
		lo, hi := 0.0, float64(MaxTaskOutputTimeout.Milliseconds())
		p.Minimum, p.Maximum = &lo, &hi
		p.Default = json.RawMessage(fmt.Sprint(DefaultTaskOutputTimeout.Milliseconds()))
	}
}

// TaskOutput is the TaskOutput tool.
type TaskOutput struct {
	*tools.Typed[taskOutputParams]
	reader TaskReader
}

// NewTaskOutput builds the TaskOutput tool over r.
func NewTaskOutput(r TaskReader) (*TaskOutput, error) {
	if r == nil {
		return nil, errors.New("agenttool: TaskOutput needs a TaskReader")
	}
	t := &TaskOutput{reader: r}
	typed, err := tools.New(TaskOutputName, taskOutputDescription, t.run, tools.WithFixedSchema(taskOutputSchema))
	if err != nil {
		return nil, err
	}
	t.Typed = typed
	return t, nil
}

// ConcurrencySafe implements agent.ConcurrencySafe: TaskOutput only reads (Claude Code:
// read-only, hence concurrency-safe).
func (t *TaskOutput) ConcurrencySafe(json.RawMessage) bool { return true }

func (t *TaskOutput) run(ctx context.Context, p taskOutputParams) llm.ToolResult {
	id := strings.TrimSpace(p.TaskID)
	if id == "" {
		return failure(CodeInvalidArgument, "Task ID is required", nil)
	}
	info, err := t.reader.Task(ctx, id)
	if err != nil {
		return taskError(id, err)
	}
	block := p.Block == nil || *p.Block
	if !block {
		if info.Done {
			return outputResult(RetrievalSuccess, &info)
		}
		return outputResult(RetrievalNotReady, &info)
	}
	if info.Done {
		return outputResult(RetrievalSuccess, &info)
	}
	timeout := DefaultTaskOutputTimeout
	if p.Timeout != nil {
		timeout = time.Duration(*p.Timeout) * time.Millisecond
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	got, err := t.reader.WaitTask(wctx, id)
	switch {
	case ctx.Err() != nil:
		return failure(CodeInterrupted, fmt.Sprintf("Interrupted while waiting for task %s.", id), nil)
	case errors.Is(err, ErrTaskNotFound):
		return outputResult(RetrievalTimeout, nil) // the task went away while we waited
	case err != nil && wctx.Err() == nil:
		return taskError(id, err)
	case err != nil || !got.Done:
		if got.ID == "" {
			got = info
		}
		return outputResult(RetrievalTimeout, &got)
	}
	return outputResult(RetrievalSuccess, &got)
}

func taskError(id string, err error) llm.ToolResult {
	if errors.Is(err, ErrTaskNotFound) {
		return failure(CodeNotFound, "No task found with ID: "+id, nil)
	}
	return failure(CodeTaskError, fmt.Sprintf("Could not read task %s: %v", id, err), nil)
}

// outputResult renders Claude Code's TaskOutput result: tagged parts separated by blank
// lines.
func outputResult(status string, info *TaskInfo) llm.ToolResult {
	parts := []string{"<retrieval_status>" + status + "</retrieval_status>"}
	meta := map[string]any{"retrievalStatus": status}
	if info != nil {
		meta["taskId"], meta["taskType"], meta["status"] = info.ID, info.Type, info.Status
		parts = append(parts, "<task_id>"+info.ID+"</task_id>", "<task_type>"+info.Type+"</task_type>", "<status>"+info.Status+"</status>")
		if info.ExitCode != nil {
			parts = append(parts, fmt.Sprintf("<exit_code>%d</exit_code>", *info.ExitCode))
			meta["exitCode"] = *info.ExitCode
		}
		if strings.TrimSpace(info.Output) != "" {
			out, cut := tailOutput(info.Output, info.OutputPath)
			parts = append(parts, "<output>\n"+strings.TrimRight(out, " \t\r\n")+"\n</output>")
			meta["truncated"] = cut
		}
		if info.Error != "" {
			parts = append(parts, "<error>"+info.Error+"</error>")
		}
	}
	return llm.ToolResult{Success: true, Output: strings.Join(parts, "\n\n"), Metadata: meta}
}

// tailOutput keeps the last characters of out within MaxTaskOutputChars, after a line
// saying where the whole output is (Claude Code keeps the tail: the end of a log says how
// it went).
func tailOutput(out, path string) (string, bool) {
	if utf8.RuneCountInString(out) <= MaxTaskOutputChars {
		return out, false
	}
	head := "[Truncated. Full output: " + path + "]\n\n"
	if path == "" {
		head = fmt.Sprintf("[Truncated: showing the last %d characters.]\n\n", MaxTaskOutputChars)
	}
	return head + tooloutput.SuffixRunes(out, MaxTaskOutputChars-utf8.RuneCountInString(head)), true
}
