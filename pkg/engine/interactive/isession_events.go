package interactive

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// EventType names an InteractiveSession event (the spec's InteractiveSession events,
// with deltas split by kind and the permission round trip added).
type EventType string

const (
	EventTextDelta     EventType = "text_delta"     // Text: a chunk of the answer
	EventThinkingDelta EventType = "thinking_delta" // Text: a chunk of the model's thinking
	// EventThinkingEnd says the model stopped thinking: the first event of its answer
	// after thinking deltas (text, a tool call, the committed message, the prompt's end)
	// follows it (the spec's thinking(false)).
	EventThinkingEnd EventType = "thinking_end"
	EventToolStart   EventType = "tool_start" // Tool: the call, IsRunning
	EventToolEnd     EventType = "tool_end"   // Tool: the outcome
	// EventPermissionRequest asks the clients about a tool call (Permission); answer
	// with RespondPermission.
	EventPermissionRequest EventType = "permission_request"
	// EventPermissionResolved says how a permission request ended (answered by some
	// client, timed out, aborted), so every watching client can close its prompt.
	EventPermissionResolved EventType = "permission_resolved"
	EventContextUpdate      EventType = "context_update" // Context
	// EventMessage reports a message appended to the conversation (Message), as it is
	// committed: the prompt, each assistant message, each tool result. Front ends that
	// print whole messages (robota -p's stream-json) render it.
	EventMessage EventType = "message"
	// EventSubagentMessage reports a message of a subagent started by one of the
	// session's tool calls (Agent, a forked Skill), as the subagent commits it: Message,
	// and ParentToolUseID, the call (stream-json's parent_tool_use_id). An agent hook's
	// subagent publishes none: its work is the hook's, not the model's.
	EventSubagentMessage EventType = "subagent_message"
	EventCompaction      EventType = "compaction" // Compaction
	// EventComplete, EventError and EventInterrupted end a prompt (Result); every
	// accepted prompt ends with exactly one of them.
	EventComplete    EventType = "complete"
	EventError       EventType = "error"
	EventInterrupted EventType = "interrupted"
	// EventBackgroundTask reports a background task's (subagent's or background
	// command's) state change or progress (Task). Its text may be coalesced per task;
	// its state changes are never dropped.
	EventBackgroundTask EventType = "background_task"
	// EventBackgroundJobGroup reports a background job group's lifecycle change
	// (Group: created, updated with a task's result, completed by its wait policy).
	// Never dropped.
	EventBackgroundJobGroup EventType = "background_job_group"
)

// mergeable reports whether an undelivered event of type t may absorb a later one of the
// same type and prompt: deltas concatenate, a context update replaces the older one.
// Every other event (the lifecycle ones: tool_end, permission_request, complete, error,
// interrupted …) is delivered as it is or the subscriber is disconnected.
func (t EventType) mergeable() bool {
	switch t {
	case EventTextDelta, EventThinkingDelta, EventContextUpdate:
		return true
	}
	return false
}

// Event is one thing that happened in an InteractiveSession. Seq numbers the session's
// events from 1, strictly increasing in publication order; a subscriber sees them in
// that order (coalesced deltas carry the Seq of the last delta merged into them).
type Event struct {
	Seq  uint64    `json:"seq"`
	Type EventType `json:"type"`
	Time time.Time `json:"time"`
	// PromptID is the prompt the event belongs to; empty for events outside a prompt
	// (a manual compaction, a context update at rest).
	PromptID string `json:"promptId,omitempty"`

	Text       string                  `json:"text,omitempty"`
	Tool       *ToolState              `json:"tool,omitempty"`
	Permission *PermissionRequest      `json:"permission,omitempty"`
	Resolution *PermissionResolution   `json:"resolution,omitempty"`
	Context    *contextwin.WindowState `json:"context,omitempty"`
	Compaction *session.CompactEvent   `json:"compaction,omitempty"`
	Message    *llm.Message            `json:"message,omitempty"`
	Result     *Result                 `json:"result,omitempty"`
	Task       *TaskEvent              `json:"task,omitempty"`
	Group      *JobGroupEvent          `json:"group,omitempty"`
	// ParentToolUseID, on an EventSubagentMessage, is the tool call (Agent, a forked
	// Skill) whose subagent wrote the message (stream-json's parent_tool_use_id).
	ParentToolUseID string `json:"parentToolUseId,omitempty"`
}

// Result ends a prompt: what the model answered and how the run ended.
type Result struct {
	Response   string           `json:"response"`
	StopReason agent.StopReason `json:"stopReason,omitempty"`
	// Rounds and Usage add up over the prompt's Stop-hook continuations.
	Rounds int       `json:"rounds"`
	Usage  llm.Usage `json:"usage"`
	// Tools are the prompt's tool calls as they ended, in order (the spec's
	// toolSummaries; the tool-summary entry of History sums them up).
	Tools []ToolState `json:"tools,omitempty"`
	// ContextState is the context window when the prompt ended (the spec's
	// contextState), also for an interrupted or failed prompt.
	ContextState contextwin.WindowState `json:"contextState"`
	// UsageSnapshot is the spec's usage: the prompt's usage-summary (tokens and the
	// context window after them), nil when the provider reported no usage.
	UsageSnapshot *UsageSnapshot `json:"usageSnapshot,omitempty"`
	// history reads the prompt's history delta (History).
	history func() ([]session.HistoryEntry, bool)
	// Error is the failure's text (EventError); Reason says why a prompt was
	// interrupted (EventInterrupted: "aborted", "removed from the queue").
	Error  string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Err is the Go error of an EventError (session.ErrPromptBlocked, a provider's
	// *llm.Error, session.ErrSave …), or of an EventInterrupted whose run was aborted
	// (it matches session.ErrAborted), for errors.Is in process.
	Err error `json:"-"`
}

// History returns what the prompt added to the timeline (the spec's result history,
// as a delta): its messages and event entries (tool start/end, tool-summary,
// usage-summary ...), in timeline order; a prompt that compacted has the new timeline
// up to its end. ok is false when the timeline was rebuilt since the prompt ended (a
// later compaction, /clear or rewind) or the result has no session (a queued prompt
// removed before it ran).
func (r *Result) History() (entries []session.HistoryEntry, ok bool) {
	if r == nil || r.history == nil {
		return nil, false
	}
	return r.history()
}

// ToolState is the spec's IToolState: one tool call as a client renders it.
type ToolState struct {
	ToolUseID string          `json:"toolUseId"`
	ToolName  string          `json:"toolName"`
	FirstArg  string          `json:"firstArg"` // the argument that identifies the call, bounded
	Args      json.RawMessage `json:"args,omitempty"`
	IsRunning bool            `json:"isRunning"`
	// Result is "success", "error" or "denied" (tool_end only).
	Result    string `json:"result,omitempty"`
	ErrorCode string `json:"errorCode,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// DiffFile and DiffLines show a completed Edit's change (old lines removed, new
	// lines added, numbered from the tool result's startLine), bounded.
	DiffFile  string     `json:"diffFile,omitempty"`
	DiffLines []DiffLine `json:"diffLines,omitempty"`
	// ToolResultData is a bounded preview of a command tool's output (Bash): its first
	// lines, with a note of what was left out. The whole result stays in the history.
	ToolResultData string `json:"toolResultData,omitempty"`
	// Message is for the user: the systemMessage of the call's hooks.
	Message string `json:"message,omitempty"`
}

// DiffLine is one line of an Edit's diff. Its JSON is the spec's {type, line, text};
// UnmarshalJSON also reads the "kind" key that timelines saved before held.
type DiffLine struct {
	// Kind is "hunk" (the first line: "@@ -a,b +c,d @@"), "context" (an unchanged line
	// around the change, read from the edited file when it is readable), "remove" or
	// "add".
	Kind string `json:"type"`
	// Line is the 1-based line number: the old file's for remove, the new file's for add
	// and context, the first line's for hunk.
	Line int    `json:"line"`
	Text string `json:"text"`
}

// UnmarshalJSON reads a diff line written as {type, line, text}, or as {kind, line,
// text}: the form of tool-end and tool-summary entries in records and session logs
// saved before the spec's key was used. type wins when both are present.
func (d *DiffLine) UnmarshalJSON(b []byte) error {
	var v struct {
		Type *string `json:"type"`
		Kind string  `json:"kind"`
		Line int     `json:"line"`
		Text string  `json:"text"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("diff line: %w", err)
	}
	*d = DiffLine{Kind: v.Kind, Line: v.Line, Text: v.Text}
	if v.Type != nil {
		d.Kind = *v.Type
	}
	return nil
}

// PermissionRequest is a tool call waiting for a client's answer.
type PermissionRequest struct {
	RequestID string          `json:"requestId"`
	ToolName  string          `json:"toolName"`
	ToolUseID string          `json:"toolUseId"`
	Input     json.RawMessage `json:"input"`
	Reason    string          `json:"reason"` // why the call needs approval
	// SessionRule is the rule "allow for the session" adds ("Bash(npm test:*)",
	// "Edit(//abs/dir/**)"); empty when that answer would allow this call only.
	SessionRule string `json:"sessionRule,omitempty"`
	// Deadline is when the request is denied for want of an answer.
	Deadline time.Time `json:"deadline"`
	// TaskID names the subagent whose call this is; empty for the session's own calls.
	TaskID string `json:"taskId,omitempty"`
}

// PermissionResolution says how a permission request ended.
type PermissionResolution struct {
	RequestID string           `json:"requestId"`
	Approval  session.Approval `json:"approval"`
	// Outcome is "answered", "timeout" or "aborted".
	Outcome string `json:"outcome"`
}
