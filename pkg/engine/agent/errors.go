package agent

import "errors"

var (
	// ErrNoProvider: Config.Provider is nil.
	ErrNoProvider = errors.New("agent: no provider configured")
	// ErrRunInProgress: Run was called while another Run of the same Agent was active.
	ErrRunInProgress = errors.New("agent: a run is already in progress")
	// ErrIdleTimeout: the provider produced no activity within Config.IdleTimeout.
	ErrIdleTimeout = errors.New("provider idle timeout")
)

// Texts the model and the user read; they are part of the behavioural contract.
const (
	// InterruptedToolText is the result of a queued tool skipped because the run was aborted.
	InterruptedToolText = "Execution interrupted by user"
	// ContextSkippedToolText replaces tool results once the tool-result budget is spent.
	ContextSkippedToolText = "Error: Context window near capacity. Tool execution result skipped."
	// MaxRoundsFallbackText is the final answer when the forced summary at the round cap
	// yields no text. It is used only when a cap was set and reached.
	MaxRoundsFallbackText = "Maximum rounds reached. Partial results available in conversation history."
	// UnknownToolsFallbackText is the final answer when the forced summary after repeated
	// calls to unregistered tools yields no text.
	UnknownToolsFallbackText = "Stopped: the model kept calling tools that are not registered. Partial results available in conversation history."
)

// Error codes put in tool-result and message metadata under "errorCode".
const (
	ErrorCodeUnknownTool     = "unknown_tool"
	ErrorCodeInterrupted     = "interrupted"
	ErrorCodeContextSkipped  = "context_overflow"
	ErrorCodeContextExceeded = "context_window_exceeded"
	ErrorCodeProvider        = "provider_error"
)
