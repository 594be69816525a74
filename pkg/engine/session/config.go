package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// DefaultAutoCompactFraction is the spec's automatic compaction trigger: 83.5% of the
// context window.
const DefaultAutoCompactFraction = 0.835

// AutoCompactThreshold is the spec's TAutoCompactThreshold: a fraction of the context
// window, or disabled (the spec's `false`). The zero value means the default fraction.
// Its JSON form is a number or false.
type AutoCompactThreshold struct {
	Disabled bool
	Fraction float64 // 0 < Fraction <= 1; 0 means DefaultAutoCompactFraction
}

// AutoCompactAt returns a threshold at fraction f of the context window.
func AutoCompactAt(f float64) AutoCompactThreshold { return AutoCompactThreshold{Fraction: f} }

// AutoCompactDisabled turns automatic compaction off (the spec's `false`).
var AutoCompactDisabled = AutoCompactThreshold{Disabled: true}

// Effective returns the fraction in force, and false when disabled.
func (t AutoCompactThreshold) Effective() (float64, bool) {
	if t.Disabled {
		return 0, false
	}
	if t.Fraction == 0 {
		return DefaultAutoCompactFraction, true
	}
	return t.Fraction, true
}

// Validate rejects fractions outside (0, 1].
func (t AutoCompactThreshold) Validate() error {
	if t.Disabled || t.Fraction == 0 {
		return nil
	}
	if !(t.Fraction > 0 && t.Fraction <= 1) {
		return fmt.Errorf("%w: %v", ErrInvalidThreshold, t.Fraction)
	}
	return nil
}

// MarshalJSON writes false or the effective fraction.
func (t AutoCompactThreshold) MarshalJSON() ([]byte, error) {
	f, ok := t.Effective()
	if !ok {
		return []byte("false"), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// UnmarshalJSON reads false (disabled), true or null (default) or a number.
func (t *AutoCompactThreshold) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "false":
		*t = AutoCompactDisabled
		return nil
	case "true", "null":
		*t = AutoCompactThreshold{}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidThreshold, b)
	}
	if !(f > 0 && f <= 1) {
		return fmt.Errorf("%w: %v", ErrInvalidThreshold, f)
	}
	*t = AutoCompactAt(f)
	return nil
}

// ToolEventType is the phase of a tool execution event.
type ToolEventType string

const (
	ToolStart ToolEventType = "start"
	ToolEnd   ToolEventType = "end"
)

// ToolExecutionEvent is the spec's onToolExecution payload. Start events carry the call;
// end events add the outcome.
type ToolExecutionEvent struct {
	Type      ToolEventType   `json:"type"`
	ToolName  string          `json:"toolName"`
	ToolUseID string          `json:"toolUseId"`
	ToolArgs  json.RawMessage `json:"toolArgs,omitempty"`
	Success   bool            `json:"success,omitempty"`
	Denied    bool            `json:"denied,omitempty"`
	// ErrorCode is set on failed ends (permission_denied, hook_blocked, unknown_tool,
	// interrupted, tool_failed or the tool's own code); Reason explains it.
	ErrorCode string `json:"errorCode,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// ToolResultData is the serialized (truncated) llm.ToolResult the model received.
	ToolResultData string `json:"toolResultData,omitempty"`
	// Message is for the user, not the model: the systemMessage of the call's PreToolUse
	// and PostToolUse(Failure) hooks (end events only).
	Message string `json:"message,omitempty"`
}

// CompactEvent is the spec's onCompactEvent payload.
type CompactEvent struct {
	Trigger string                 `json:"trigger"`
	Before  contextwin.WindowState `json:"before"`
	After   contextwin.WindowState `json:"after"`
}

// Callbacks observe a session. Nil fields are allowed. Text deltas arrive in stream order
// from the run's goroutine; the other callbacks are serialized by the session (never two
// at once) and must not call back into the session.
type Callbacks struct {
	OnTextDelta     func(delta string)
	OnThinkingDelta func(delta string) // in stream order, like OnTextDelta
	OnToolExecution func(ToolExecutionEvent)
	OnContextUpdate func(contextwin.WindowState)
	OnCompact       func(summary string)
	OnCompactEvent  func(CompactEvent)
	// OnRunEnd sees the result of a Run that reached the model, however it ended,
	// before the session is saved: event entries it adds (AddHistoryEntry) are saved
	// with the Run.
	OnRunEnd func(agent.Result)
}

// Config is what a Session is built from. Provider is required.
type Config struct {
	Provider      llm.Provider
	Model         string
	Tools         []llm.Tool
	SystemMessage string
	Cwd           string

	// SessionID is reused when set; otherwise the resumed record's ID, else a new UUID.
	SessionID string
	// Name is the user-assigned session name persisted in the record.
	Name string
	// Resume restores a persisted session: its messages (verbatim, except that a leading
	// system message is replaced by this session's SystemMessage when that differs) and its
	// event entries. SessionStart then fires with source "resume".
	Resume *store.Record

	// ProviderTimeout is the provider idle timeout per call (0 = none).
	ProviderTimeout time.Duration
	// MaxTurns caps model/tool rounds per Run, Stop-hook continuations included (the
	// forced final summary at the cap is not a round); 0 means no session-level cap.
	MaxTurns int
	// NativeWebTools, when set, enables or disables the provider-hosted web tools of a
	// provider that has them (NativeWebConfigurer). nil leaves the provider as its own
	// configuration (a provider profile's webSearch/webFetch) set it: hosted tools cost
	// money per use, so the session never turns them on by itself.
	NativeWebTools *llm.NativeWebToolRequest
	// ContextWindow overrides the model catalogue's window (tokens) when > 0.
	ContextWindow int
	// MaxToolResultChars bounds each tool result (characters); 0 means
	// DefaultMaxToolResultChars.
	MaxToolResultChars int
	// ToolOutputDir receives the whole text of each tool result cut to MaxToolResultChars
	// (EnforcerConfig.OutputDir); it must be a directory the Read tool may read.
	ToolOutputDir string

	AutoCompactThreshold AutoCompactThreshold
	// CompactInstructions are always added to the compaction prompt (e.g. CLAUDE.md's
	// "Compact Instructions" section).
	CompactInstructions string

	Callbacks Callbacks

	PermissionMode    PermissionMode // empty means DefaultPermissionMode
	Evaluator         PermissionEvaluator
	PermissionHandler PermissionHandler
	Hooks             HookRunner
	Store             Store
	Logger            Logger
	// TranscriptPath is reported to hooks as transcript_path (the session log).
	TranscriptPath string
	// DecorateRecord lets the assembling layer add its own fields (background tasks,
	// memory events, …) to each record before it is saved.
	DecorateRecord func(*store.Record)

	// Now and NewID make sessions deterministic in tests; defaults are time.Now and
	// llm.NewID.
	Now   func() time.Time
	NewID func() string
}
