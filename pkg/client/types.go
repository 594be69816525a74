package client

import (
	"encoding/json"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// SessionOptions configure CreateSession (robota's headless flags, one for one).
type SessionOptions struct {
	// Cwd is the session's absolute working directory.
	Cwd string
	// Provider is a profile or type; empty means the settings' current one.
	Provider, Model string
	// Script is the script file of provider "script" (absolute or relative to Cwd).
	Script string
	// PermissionMode is default, acceptEdits, plan, bypassPermissions or dontAsk;
	// empty means the settings' default.
	PermissionMode     string
	Allow, Deny        []string
	AppendSystemPrompt string
	MaxTurns           int
	Resume             string
	Continue, Fork     bool
}

// SessionInfo summarizes a session.
type SessionInfo struct {
	ID, Cwd, Provider, Model string
	PermissionMode           string
	Title                    string
	MessageCount             int
	Running, Live            bool
	CreatedAt, UpdatedAt     time.Time
	Context                  *ContextState
	// Tools are the tool names offered to the model; APIKeySource says where the
	// provider's credential came from. Both are empty for a stored session.
	Tools        []string
	APIKeySource string
	// Sandbox is a live session's command sandbox state ("on", "off", "unavailable").
	Sandbox string
}

// ContextState is context window usage.
type ContextState struct {
	MaxTokens, UsedTokens               int
	UsedPercentage, RemainingPercentage float64
}

// EventType names what an Event carries.
type EventType string

// The event types of a session.
const (
	EventTextDelta          EventType = "text_delta"
	EventThinking           EventType = "thinking"
	EventToolStart          EventType = "tool_start"
	EventToolEnd            EventType = "tool_end"
	EventPermissionRequest  EventType = "permission_request"
	EventPermissionResolved EventType = "permission_resolved"
	EventContextUpdate      EventType = "context_update"
	EventCompaction         EventType = "compaction"
	EventComplete           EventType = "complete"
	EventError              EventType = "error"
	EventInterrupted        EventType = "interrupted"
	// EventBackgroundTask is a subagent's or a background command's news; Task is set
	// when its state changed.
	EventBackgroundTask EventType = "background_task"
	// EventSubagentMessage is a message of a subagent the session's Agent or forked
	// Skill call started (Message, ParentToolUseID).
	EventSubagentMessage EventType = "subagent_message"
	// EventBackgroundJobGroup is a job group's lifecycle change: GroupEvent (created,
	// updated or completed) and Group, its snapshot after it.
	EventBackgroundJobGroup EventType = "background_job_group"
)

// Event is one event of a session. Which pointer field is set depends on Type.
type Event struct {
	SessionID string
	Seq       uint64
	Time      time.Time
	PromptID  string
	Type      EventType
	// Text of text_delta and thinking; Thinking is true while the model thinks.
	Text     string
	Thinking bool
	// Tool of tool_start and tool_end.
	Tool *ToolState
	// Permission of permission_request.
	Permission *PermissionRequest
	// Resolution of permission_resolved.
	Resolution *PermissionResolution
	// Context of context_update.
	Context *ContextState
	// Compaction of compaction.
	Compaction *Compaction
	// Task of a background_task event that changed the task's state.
	Task *TaskState
	// Result of complete, error and interrupted.
	Result *Result
	// Error of error.
	Error *ErrorInfo
	// Message and ParentToolUseID of subagent_message: the message and the tool call
	// whose subagent wrote it.
	Message         *llm.Message
	ParentToolUseID string
	// GroupEvent and Group of background_job_group.
	GroupEvent string
	Group      *JobGroup
}

// IsEnd reports whether e ends its prompt.
func (e Event) IsEnd() bool {
	return e.Type == EventComplete || e.Type == EventError || e.Type == EventInterrupted
}

// ToolOutcome is how a tool call ended ("" while it runs).
type ToolOutcome string

// The tool outcomes.
const (
	ToolSuccess     ToolOutcome = "success"
	ToolError       ToolOutcome = "error"
	ToolDenied      ToolOutcome = "denied"
	ToolInterrupted ToolOutcome = "interrupted"
	ToolUnknown     ToolOutcome = "unknown_tool"
)

// ToolState is one tool call as clients render it.
type ToolState struct {
	CallID, Name, FirstArg string
	Input                  json.RawMessage
	Running                bool
	Outcome                ToolOutcome
	Output, Error          string
	DiffFile               string
	DiffLines              []string
	StartLine              int
	Duration               time.Duration
	Metadata               map[string]any
}

// PermissionRequest asks for approval of a tool call; answer with RespondPermission.
type PermissionRequest struct {
	ID, ToolName, ToolCallID string
	Input                    json.RawMessage
	Reason                   string
	// SessionRule is what AnswerAllowForSession adds ("" when it allows this call only).
	SessionRule string
	Deadline    time.Time
	// TaskID names the subagent (background task) whose call this is; empty for the
	// session's own calls.
	TaskID string
}

// Answer is a reply to a permission request.
type Answer int

// The answers.
const (
	AnswerAllow Answer = iota + 1
	AnswerAllowForSession
	AnswerDeny
)

// PermissionResolution says how a permission request ended: Outcome is
// "answered", "timeout" or "aborted"; Answer is what took effect.
type PermissionResolution struct {
	RequestID string
	Outcome   string
	Answer    Answer
}

// Compaction is a finished compaction; Trigger is "auto" or "manual".
type Compaction struct {
	Trigger       string
	Before, After ContextState
	Summary       string
}

// Result summarizes one prompt's run.
type Result struct {
	Response    string
	Tools       []ToolState
	Usage       llm.Usage
	Context     *ContextState
	Rounds      int
	Interrupted bool
	Duration    time.Duration
	// StopReason is the agent loop's ("completed", "max_rounds", "context_limit", ...).
	StopReason string
	// Reason says why an interrupted prompt ended ("aborted", "removed from the queue").
	Reason string
}

// ErrorInfo is a failed prompt's error.
type ErrorInfo struct {
	Code, Category, Message string
	Recoverable             bool
}

// HistoryEntry is one entry of a session's history: a chat message (Message set)
// or a timeline event (Data set; Type names it: "tool-start", "usage-summary", ...).
type HistoryEntry struct {
	ID      string
	Time    time.Time
	Type    string
	Message *llm.Message
	Data    map[string]any
}

// HistoryPage is a page of history.
type HistoryPage struct {
	Entries []HistoryEntry
	// Total is the number of entries in the history; Next the offset of the next page.
	Total, Next int
}

// TaskState is a background task's state: a subagent ("agent") or a command
// ("process").
type TaskState struct {
	ID, Kind, Label, CurrentAction, Error string
	// Status is queued, running, waiting_permission, completed, failed or cancelled.
	Status string
	// Terminal is true once the task ended (completed, failed or cancelled).
	Terminal bool
	// Host and Attempt say where the task runs across hosts (empty and 0 locally).
	Host               string
	Attempt            int
	StartedAt, EndedAt time.Time
}
