package session

import (
	"errors"

	"github.com/robota-sdk/robota-go/internal/sentinel"
)

var (
	// ErrAborted is wrapped (with context.Canceled) by the error of an aborted Run or Compact.
	ErrAborted error = &Aborted
	// ErrRunInProgress: Run, Compact or a history mutation was called while a Run or Compact
	// was active.
	ErrRunInProgress error = &RunInProgress
	// ErrInvalidModel: SetModel without a model name.
	ErrInvalidModel = errors.New("no model named")
	// ErrShutdown: the session was shut down.
	ErrShutdown = errors.New("session: shut down")
	// ErrNoProvider: Config.Provider is nil.
	ErrNoProvider = errors.New("session: no provider configured")
	// ErrPromptBlocked: a UserPromptSubmit hook blocked the prompt; it was not sent.
	ErrPromptBlocked = errors.New("session: prompt blocked by UserPromptSubmit hook")
	// ErrCompactionBlocked: a PreCompact hook blocked compaction; history is unchanged.
	ErrCompactionBlocked = errors.New("session: compaction blocked by PreCompact hook")
	// ErrCompactionFailed: the summary call failed or returned no text; history is unchanged.
	ErrCompactionFailed = errors.New("session: compaction failed")
	// ErrNothingToCompact: history holds no message besides system messages.
	ErrNothingToCompact = errors.New("session: nothing to compact")
	// ErrInvalidThreshold: an auto-compact fraction outside 0 < f <= 1.
	ErrInvalidThreshold = errors.New("session: auto-compact threshold must be in (0, 1]")
	// ErrSave wraps a store failure after a run; the run itself completed.
	ErrSave = errors.New("session: save failed")
	// ErrInvalidEntry: a history entry that cannot be added (bad category or chat data),
	// decoded from a resumed record, or encoded for saving.
	ErrInvalidEntry = errors.New("session: invalid history entry")
)

// Texts and codes the model, hooks and transports read; part of the behavioural contract.
const (
	// PermissionDeniedPrefix starts the tool result of a denied call.
	PermissionDeniedPrefix = "Permission denied"
	// BlockedByHookPrefix starts the tool result of a call blocked by a PreToolUse hook.
	BlockedByHookPrefix = "Blocked by hook"
	// ContextSummaryPrefix starts the assistant message that replaces compacted history.
	ContextSummaryPrefix = "[Context Summary]"
	// StopHookFeedbackPrefix starts the user message a blocking Stop hook sends the model.
	StopHookFeedbackPrefix = "Stop hook feedback:"

	ErrorCodePermissionDenied = "permission_denied"
	ErrorCodeHookBlocked      = "hook_blocked"
	ErrorCodeToolFailed       = "tool_failed"
)

// The values ErrAborted and ErrRunInProgress point to, so that a package re-exporting
// them does it without init code (internal/sentinel). Compare errors with the Err names.
var (
	Aborted       = sentinel.New("session: aborted")
	RunInProgress = sentinel.New("session: a run is already in progress")
)
