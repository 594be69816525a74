package hook

import (
	"encoding/json"
	"fmt"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Input is what a hook receives on stdin, as Claude Code's JSON. Only the fields of
// the input's Event are written (see EventFields); each of them is always present.
type Input struct {
	Event          Event
	SessionID      string
	TranscriptPath string
	Cwd            string
	PermissionMode string

	ToolName     string
	ToolInput    json.RawMessage
	ToolUseID    string
	ToolResponse json.RawMessage
	Error        string // PostToolUseFailure: the failure; StopFailure: the error type
	ErrorDetails string
	IsInterrupt  bool
	// PermissionSuggestions are the rules a PermissionRequest's "always allow" would add.
	PermissionSuggestions json.RawMessage

	Prompt               string
	StopHookActive       bool
	LastAssistantMessage string
	// Response is the final answer of the turn (Stop; the Robota spec's name for
	// Claude Code's last_assistant_message, which carries the same text).
	Response string

	Source string // SessionStart: startup, resume, clear, compact
	Model  string
	Reason string // SessionEnd; StopFailure: the error message

	Trigger            string // PreCompact, PostCompact: manual or auto
	CustomInstructions string
	CompactSummary     string

	Message          string
	Title            string
	NotificationType string

	AgentID             string
	AgentType           string
	AgentTranscriptPath string

	Name         string // WorktreeCreate
	WorktreePath string // WorktreeRemove
}

// CommonFields are sent for every event.
var CommonFields = []string{"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name"}

// EventFields are the event-specific fields, by Claude Code's names.
func EventFields() map[Event][]string { return eventFieldsTable.Get() }

// eventFieldsTable is built on first use (internal/lazy).
var eventFieldsTable = &lazy.Value[map[Event][]string]{Build: func() map[Event][]string {
	return map[Event][]string{
		PreToolUse:         {"tool_name", "tool_input", "tool_use_id"},
		PostToolUse:        {"tool_name", "tool_input", "tool_response", "tool_use_id"},
		PostToolUseFailure: {"tool_name", "tool_input", "tool_use_id", "error", "is_interrupt"},
		PermissionRequest:  {"tool_name", "tool_input", "tool_use_id", "permission_suggestions"},
		UserPromptSubmit:   {"prompt"},
		Stop:               {"stop_hook_active", "last_assistant_message", "response"},
		StopFailure:        {"error", "error_details", "last_assistant_message", "reason"},
		SubagentStart:      {"agent_id", "agent_type"},
		SubagentStop:       {"stop_hook_active", "agent_id", "agent_type", "agent_transcript_path", "last_assistant_message"},
		SessionStart:       {"source", "model"},
		SessionEnd:         {"reason"},
		PreCompact:         {"trigger", "custom_instructions"},
		PostCompact:        {"trigger", "compact_summary"},
		Notification:       {"message", "title", "notification_type"},
		WorktreeCreate:     {"name"},
		WorktreeRemove:     {"worktree_path"},
	}
}}

func (in *Input) values() map[string]any {
	obj := func(r json.RawMessage) json.RawMessage {
		if len(r) == 0 {
			return json.RawMessage("{}")
		}
		return r
	}
	suggestions := in.PermissionSuggestions
	if len(suggestions) == 0 {
		suggestions = json.RawMessage("[]")
	}
	return map[string]any{
		"permission_suggestions": suggestions, "response": in.Response,
		"session_id": in.SessionID, "transcript_path": in.TranscriptPath, "cwd": in.Cwd,
		"permission_mode": in.PermissionMode, "hook_event_name": string(in.Event),
		"tool_name": in.ToolName, "tool_input": obj(in.ToolInput), "tool_use_id": in.ToolUseID,
		"tool_response": obj(in.ToolResponse), "error": in.Error, "error_details": in.ErrorDetails,
		"is_interrupt": in.IsInterrupt, "prompt": in.Prompt, "stop_hook_active": in.StopHookActive,
		"last_assistant_message": in.LastAssistantMessage, "source": in.Source, "model": in.Model,
		"reason": in.Reason, "trigger": in.Trigger, "custom_instructions": in.CustomInstructions,
		"compact_summary": in.CompactSummary, "message": in.Message, "title": in.Title,
		"notification_type": in.NotificationType, "agent_id": in.AgentID, "agent_type": in.AgentType,
		"agent_transcript_path": in.AgentTranscriptPath, "name": in.Name, "worktree_path": in.WorktreePath,
	}
}

// MarshalJSON writes the common fields and the event's own fields.
func (in Input) MarshalJSON() ([]byte, error) {
	fields, ok := EventFields()[in.Event]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, in.Event)
	}
	all := in.values()
	out := make(map[string]any, len(CommonFields)+len(fields))
	for _, k := range append(append([]string(nil), CommonFields...), fields...) {
		out[k] = all[k]
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("hook input for %s: %w", in.Event, err)
	}
	return b, nil
}
