package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// Provider is one model backend. Chat performs one streaming model call.
//
// Contract for implementations:
//   - Text is reported through cb.OnTextDelta as it arrives; the returned message holds the
//     same text in full. Usage is normalized into Message.Usage.
//   - Tool-call IDs are the provider's own; they are returned unchanged.
//   - When ctx is cancelled mid-stream, return the partial message collected so far with
//     StopReasonAborted (the error may be nil or wrap ctx.Err()).
//   - Failures are returned as *Error (see errors.go) so callers can tell recoverable ones.
//   - Tools the provider runs itself (hosted web search/fetch) are reported through
//     cb.OnServerToolUse, not as tool calls of the returned message.
//   - A provider must not keep per-call state on itself: callbacks come with each call.
type Provider interface {
	Name() string
	Chat(ctx context.Context, req ChatRequest, cb Callbacks) (ChatResponse, error)
}

// Purpose tells a provider why a call is made, without it having to inspect prompts.
type Purpose string

const (
	PurposeChat         Purpose = ""              // an ordinary execution round
	PurposeFinalSummary Purpose = "final_summary" // forced no-tools summary after the round cap
	PurposeCompaction   Purpose = "compaction"    // conversation summarization for compaction
	PurposeHook         Purpose = "hook"          // a prompt hook's verdict (no tools)
)

// ChatRequest is everything a provider needs for one call. System messages travel inside
// Messages (role system); providers that need them apart use SplitSystem. Messages and
// Tools are read-only for the provider: they may share the caller's conversation.
type ChatRequest struct {
	Model          string                `json:"model"`
	Messages       []Message             `json:"messages"`
	Tools          []ToolSchema          `json:"tools,omitempty"`
	MaxTokens      int                   `json:"maxTokens,omitempty"`
	Temperature    *float64              `json:"temperature,omitempty"`
	Purpose        Purpose               `json:"purpose,omitempty"`
	Agent          string                `json:"agent,omitempty"` // agent definition name for subagent calls; empty for the main session
	NativeWebTools *NativeWebToolRequest `json:"nativeWebTools,omitempty"`
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopReasonEndTurn   StopReason = "end_turn"
	StopReasonToolUse   StopReason = "tool_use"
	StopReasonMaxTokens StopReason = "max_tokens"
	StopReasonAborted   StopReason = "aborted"
)

// ChatResponse is the final assistant message of a call (with Usage set when known).
type ChatResponse struct {
	Message    Message    `json:"message"`
	StopReason StopReason `json:"stopReason"`
}

// Callbacks are per-call observers. Nil fields are allowed. They are invoked synchronously
// from the provider's goroutine, in stream order.
type Callbacks struct {
	OnTextDelta     func(delta string)
	OnThinkingDelta func(delta string)
	OnRawPayload    func(RawPayloadEvent)
	// OnServerToolUse reports a provider-hosted tool call (web search, web fetch) once its
	// input is complete. The provider runs it; it never becomes a ToolCall of the message.
	OnServerToolUse func(ServerToolUse)
}

// TextDelta, ThinkingDelta and RawPayload call the callback when it is set.
func (c Callbacks) TextDelta(d string) {
	if c.OnTextDelta != nil {
		c.OnTextDelta(d)
	}
}

func (c Callbacks) ThinkingDelta(d string) {
	if c.OnThinkingDelta != nil {
		c.OnThinkingDelta(d)
	}
}

func (c Callbacks) RawPayload(e RawPayloadEvent) {
	if c.OnRawPayload != nil {
		c.OnRawPayload(e)
	}
}

// ServerToolUse calls OnServerToolUse when it is set.
func (c Callbacks) ServerToolUse(u ServerToolUse) {
	if c.OnServerToolUse != nil {
		c.OnServerToolUse(u)
	}
}

// ServerToolUse is one tool call a provider executes itself during a stream (a hosted web
// search or fetch). ID is the provider's own; Input is the call's JSON input ("{}" when
// empty).
type ServerToolUse struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// PayloadKind is the phase of a provider-native payload.
type PayloadKind string

const (
	PayloadRequest     PayloadKind = "request"
	PayloadResponse    PayloadKind = "response"
	PayloadStreamEvent PayloadKind = "stream_event"
)

// RawPayloadEvent carries a provider-native SDK payload for replay-grade logs. Payload is
// the provider's own JSON; Sequence is optional (core assigns one when zero).
type RawPayloadEvent struct {
	Provider    string          `json:"provider"`
	APISurface  string          `json:"apiSurface,omitempty"`
	PayloadKind PayloadKind     `json:"payloadKind"`
	Sequence    int64           `json:"sequence,omitempty"`
	Payload     json.RawMessage `json:"payload"`
	Metadata    map[string]any  `json:"metadata,omitempty"`
}

// NativeWebToolRequest asks for provider-hosted web search/fetch on one call.
type NativeWebToolRequest struct {
	WebSearch bool `json:"webSearch,omitempty"`
	WebFetch  bool `json:"webFetch,omitempty"`
}

// NativeToolSupport reports one provider-hosted tool.
type NativeToolSupport struct {
	Supported bool `json:"supported"`
	Enabled   bool `json:"enabled"`
}

// Capabilities is a provider-neutral capability report.
type Capabilities struct {
	FunctionCalling bool `json:"functionCalling"`
	Streaming       bool `json:"streaming"`
	NativeWebTools  struct {
		WebSearch NativeToolSupport `json:"webSearch"`
		WebFetch  NativeToolSupport `json:"webFetch"`
	} `json:"nativeWebTools"`
}

// CapabilityReporter is implemented by providers that report capabilities.
type CapabilityReporter interface {
	Capabilities() Capabilities
}

// ProviderCapabilities returns p's capabilities, or the safe default (function calling and
// streaming supported, no native web tools) when p does not report them.
func ProviderCapabilities(p Provider) Capabilities {
	if r, ok := p.(CapabilityReporter); ok {
		return r.Capabilities()
	}
	return Capabilities{FunctionCalling: true, Streaming: true}
}

// CheckNativeWebTools fails before transport when req asks for native web tools that caps
// do not support or has not enabled.
func CheckNativeWebTools(provider string, caps Capabilities, req *NativeWebToolRequest) error {
	if req == nil {
		return nil
	}
	check := func(want bool, s NativeToolSupport, what string) error {
		switch {
		case !want:
			return nil
		case !s.Supported:
			return NewError(CodeConfiguration, fmt.Sprintf("provider %s does not support native %s", provider, what), nil)
		case !s.Enabled:
			return NewError(CodeConfiguration, fmt.Sprintf("native %s is not enabled for provider %s", what, provider), nil)
		}
		return nil
	}
	if err := check(req.WebSearch, caps.NativeWebTools.WebSearch, "web search"); err != nil {
		return err
	}
	return check(req.WebFetch, caps.NativeWebTools.WebFetch, "web fetch")
}

// SplitSystem joins the text of the system messages and returns the other messages. When
// the system messages all come first (the usual history), rest is the tail of msgs
// (capacity cut to its length, so appending to it copies): treat it as read-only.
func SplitSystem(msgs []Message) (system string, rest []Message) {
	k := 0
	for k < len(msgs) && msgs[k].Role == RoleSystem {
		k++
	}
	if !slices.ContainsFunc(msgs[k:], func(m Message) bool { return m.Role == RoleSystem }) {
		for _, m := range msgs[:k] {
			if system != "" {
				system += "\n\n"
			}
			system += m.Text()
		}
		return system, msgs[k:len(msgs):len(msgs)]
	}
	rest = make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role != RoleSystem {
			rest = append(rest, m)
			continue
		}
		if system != "" {
			system += "\n\n"
		}
		system += m.Text()
	}
	return system, rest
}
