package session

import (
	"context"
	"encoding/json"
)

// HookEvent is a hook event as Claude Code names it.
type HookEvent string

const (
	HookPreToolUse         HookEvent = "PreToolUse"
	HookPostToolUse        HookEvent = "PostToolUse"
	HookPostToolUseFailure HookEvent = "PostToolUseFailure"
	HookPermissionRequest  HookEvent = "PermissionRequest"
	HookUserPromptSubmit   HookEvent = "UserPromptSubmit"
	HookStop               HookEvent = "Stop"
	HookStopFailure        HookEvent = "StopFailure"
	HookSessionStart       HookEvent = "SessionStart"
	HookSessionEnd         HookEvent = "SessionEnd"
	HookPreCompact         HookEvent = "PreCompact"
	HookPostCompact        HookEvent = "PostCompact"
)

// SessionStart sources and compaction triggers.
const (
	SourceStartup = "startup"
	SourceResume  = "resume"
	SourceCompact = "compact"

	TriggerAuto   = "auto"
	TriggerManual = "manual"
)

// HookInput is the JSON a hook receives on stdin, with Claude Code's field names. The
// common fields are always set; the others only for the events that carry them.
type HookInput struct {
	SessionID      string    `json:"session_id"`
	TranscriptPath string    `json:"transcript_path"`
	Cwd            string    `json:"cwd"`
	HookEventName  HookEvent `json:"hook_event_name"`
	PermissionMode string    `json:"permission_mode,omitempty"`

	// PreToolUse, PostToolUse, PostToolUseFailure.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"` // PostToolUse: the llm.ToolResult
	// Error is the failure of PostToolUseFailure and StopFailure; IsInterrupt marks a tool
	// failure caused by an abort.
	Error       string `json:"error,omitempty"`
	IsInterrupt bool   `json:"is_interrupt,omitempty"`
	// ErrorDetails is StopFailure's error message (Error is then its type, as Claude
	// Code's: rate_limit, overloaded, authentication_failed …).
	ErrorDetails string `json:"error_details,omitempty"`

	// PermissionRequest: the session rule "allow for the session" would add, if any.
	PermissionSuggestion string `json:"-"`

	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`

	// Stop (StopHookActive is set, true or false, only for Stop).
	StopHookActive       *bool  `json:"stop_hook_active,omitempty"`
	Response             string `json:"response,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`

	// SessionStart (Source), SessionEnd and StopFailure (Reason).
	Source string `json:"source,omitempty"`
	Reason string `json:"reason,omitempty"`

	// PreCompact and PostCompact.
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
	CompactSummary     string `json:"compact_summary,omitempty"`
}

// HookOutcome is the merged result of the hooks of one event.
type HookOutcome struct {
	// Blocked: a hook exited 2 or answered decision "block" (for PreToolUse also
	// permissionDecision "deny"). For PreToolUse, UserPromptSubmit, Stop and PreCompact it
	// stops the action; for PostToolUse(Failure) Reason is fed to the model.
	Blocked bool
	// Reason is the blocking hook's stderr or JSON reason.
	Reason string
	// PermissionDecision is PreToolUse's hookSpecificOutput.permissionDecision
	// (allow, ask or deny; deny > ask > allow across hooks), or PermissionRequest's
	// decision.behavior (allow or deny; Reason is then its message, UpdatedInput its
	// updatedInput); empty when no hook gave one.
	PermissionDecision Behavior
	// UpdatedInput replaces the tool's arguments (PreToolUse) when non-empty.
	UpdatedInput json.RawMessage
	// AdditionalContext is added to the model's context (UserPromptSubmit and SessionStart
	// stdout, hookSpecificOutput.additionalContext).
	AdditionalContext string
	// SystemMessage is a message for the user, not the model.
	SystemMessage string
	// Interrupt (PermissionRequest deny) stops the agent as well as the call.
	Interrupt bool
	// StopRun (PreToolUse, PostToolUse, PostToolUseFailure: "continue": false) ends the
	// run once this batch's results are recorded, without another model call; it is the
	// reason shown to the user (Claude Code's stopReason).
	StopRun string
}

// hookBase fills the common hook fields of one session.
type hookBase struct {
	runner         HookRunner
	sessionID      string
	transcriptPath string
	cwd            string
	mode           func() PermissionMode
}

func (h *hookBase) run(ctx context.Context, in HookInput) HookOutcome {
	if h == nil || h.runner == nil {
		return HookOutcome{}
	}
	in.SessionID, in.TranscriptPath, in.Cwd = h.sessionID, h.transcriptPath, h.cwd
	if h.mode != nil {
		in.PermissionMode = string(h.mode())
	}
	return h.runner.Run(ctx, in)
}

func boolPtr(b bool) *bool { return &b }
