package hook

import "fmt"

// Event is a hook event, named as Claude Code names it.
type Event string

// The hook events.
const (
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	PermissionRequest  Event = "PermissionRequest"
	UserPromptSubmit   Event = "UserPromptSubmit"
	Stop               Event = "Stop"
	StopFailure        Event = "StopFailure"
	SubagentStart      Event = "SubagentStart"
	SubagentStop       Event = "SubagentStop"
	SessionStart       Event = "SessionStart"
	SessionEnd         Event = "SessionEnd"
	PreCompact         Event = "PreCompact"
	PostCompact        Event = "PostCompact"
	Notification       Event = "Notification"
	WorktreeCreate     Event = "WorktreeCreate"
	WorktreeRemove     Event = "WorktreeRemove"
)

// Events lists every event the engine fires.
var Events = []Event{
	PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, UserPromptSubmit, Stop, StopFailure,
	SubagentStart, SubagentStop, SessionStart, SessionEnd, PreCompact, PostCompact,
	Notification, WorktreeCreate, WorktreeRemove,
}

// ParseEvent checks an event name.
func ParseEvent(s string) (Event, error) {
	for _, e := range Events {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownEvent, s)
}

// matchTarget returns the input value a group's matcher is tested against, and false
// for events that ignore matchers (their hooks always run).
func matchTarget(in *Input) (string, bool) {
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return in.ToolName, true
	case SessionStart:
		return in.Source, true
	case SessionEnd:
		return in.Reason, true
	case Notification:
		return in.NotificationType, true
	case SubagentStart, SubagentStop:
		return in.AgentType, true
	case PreCompact, PostCompact:
		return in.Trigger, true
	case StopFailure:
		return in.Error, true
	}
	return "", false
}

// The event sets below are switches, not maps: a map literal takes a package init,
// which robota pays on every command (issue 29).

// blocksOnExit2 reports the events whose action an exit code of 2 (or decision "block")
// stops: the tool call, the prompt, the stop, the compaction, the permission asked for
// (Claude Code's hooks reference: exit 2 on PermissionRequest denies it).
func blocksOnExit2(ev Event) bool {
	switch ev {
	case PreToolUse, UserPromptSubmit, Stop, SubagentStop, PreCompact, PermissionRequest:
		return true
	}
	return false
}

// ClaudeCodeOnlyEvents are Claude Code's events this engine does not fire. Hooks
// configured for them never run; the settings layer says so in a warning instead of
// refusing a file written for a newer Claude Code.
var ClaudeCodeOnlyEvents = []string{
	"PostToolBatch", "UserPromptExpansion", "PermissionDenied", "Setup", "TeammateIdle",
	"TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange",
	"InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay",
}

// feedsModelOnExit2 reports the events where exit 2 sends stderr to the model instead.
func feedsModelOnExit2(ev Event) bool { return ev == PostToolUse || ev == PostToolUseFailure }

// stdoutIsContext reports the events where plain stdout of a successful hook is added
// to the model's context.
func stdoutIsContext(ev Event) bool { return ev == UserPromptSubmit || ev == SessionStart }

// acceptsContext reports the events that take hookSpecificOutput.additionalContext.
func acceptsContext(ev Event) bool {
	switch ev {
	case UserPromptSubmit, SessionStart, PreToolUse, PostToolUse, PostToolUseFailure, SubagentStart:
		return true
	}
	return false
}
