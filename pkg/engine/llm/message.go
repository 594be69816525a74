package llm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Role is who authored a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
	RoleTool      Role = "tool"
)

// MessageState says whether a message reached its natural end. Only assistant messages may
// be StateInterrupted (the user aborted the response while it streamed).
type MessageState string

const (
	StateComplete    MessageState = "complete"
	StateInterrupted MessageState = "interrupted"
)

// InterruptedSuffix is appended to interrupted assistant text when history is prepared for a
// provider call, so the model knows its previous answer was cut short.
const InterruptedSuffix = "[This response was interrupted by the user]"

// PartType discriminates the content parts of a message.
type PartType string

const (
	PartText       PartType = "text"
	PartToolUse    PartType = "tool_use"
	PartToolResult PartType = "tool_result"
	PartThinking   PartType = "thinking"
)

// Part is one piece of message content. Exactly the fields of its Type are set:
// text → Text; thinking → Text (+ Signature); tool_use → ToolCall; tool_result → ToolResult.
type Part struct {
	Type       PartType        `json:"type"`
	Text       string          `json:"text,omitempty"`
	Signature  string          `json:"signature,omitempty"`
	ToolCall   *ToolCall       `json:"toolCall,omitempty"`
	ToolResult *ToolResultPart `json:"toolResult,omitempty"`
}

// ToolCall is a model's request to run a tool. ID is owned by the provider (it links the
// call to its tool message) and may repeat across rounds, e.g. "call_0".
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResultPart is the content of a tool message: the outcome of one ToolCall.
type ToolResultPart struct {
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName,omitempty"`
	Content    string `json:"content"`
	IsError    bool   `json:"isError,omitempty"`
}

// TextPart, ThinkingPart, ToolUsePart and ToolResultContent build parts.
func TextPart(text string) Part { return Part{Type: PartText, Text: text} }

func ThinkingPart(text, signature string) Part {
	return Part{Type: PartThinking, Text: text, Signature: signature}
}

func ToolUsePart(call ToolCall) Part { return Part{Type: PartToolUse, ToolCall: &call} }

func ToolResultContent(r ToolResultPart) Part { return Part{Type: PartToolResult, ToolResult: &r} }

// Message is one entry of the conversation. Metadata holds scalar diagnostics (and, for
// messages that came from elsewhere, provider usage under promptTokens/completionTokens);
// Usage is the canonical, normalized token usage of the provider call that produced it.
type Message struct {
	ID        string         `json:"id"`
	Role      Role           `json:"role"`
	State     MessageState   `json:"state"`
	Content   []Part         `json:"content"`
	Usage     *Usage         `json:"usage,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	CreatedAt time.Time      `json:"createdAt,omitzero"`
}

// Text concatenates the message's text parts (thinking is excluded).
func (m Message) Text() string {
	n := 0
	var only string
	for _, p := range m.Content {
		if p.Type == PartText {
			n++
			only = p.Text
		}
	}
	if n <= 1 {
		return only
	}
	var b strings.Builder
	for _, p := range m.Content {
		if p.Type == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Thinking concatenates the message's thinking parts.
func (m Message) Thinking() string {
	var b strings.Builder
	for _, p := range m.Content {
		if p.Type == PartThinking {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the tool calls of an assistant message in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Content {
		if p.Type == PartToolUse && p.ToolCall != nil {
			calls = append(calls, *p.ToolCall)
		}
	}
	return calls
}

// ToolResult returns the tool result part of a tool message, if any.
func (m Message) ToolResult() (ToolResultPart, bool) {
	for _, p := range m.Content {
		if p.Type == PartToolResult && p.ToolResult != nil {
			return *p.ToolResult, true
		}
	}
	return ToolResultPart{}, false
}

// Factory creates messages with injectable IDs and clock, so tests and replays are
// deterministic. The zero Factory uses NewID and time.Now.
type Factory struct {
	NewID func() string
	Now   func() time.Time
}

func (f Factory) base(role Role, state MessageState, parts []Part) Message {
	id, now := NewID, time.Now
	if f.NewID != nil {
		id = f.NewID
	}
	if f.Now != nil {
		now = f.Now
	}
	if parts == nil {
		parts = []Part{}
	}
	return Message{ID: id(), Role: role, State: state, Content: parts, CreatedAt: now()}
}

// User creates a complete user message holding text.
func (f Factory) User(text string) Message {
	return f.base(RoleUser, StateComplete, []Part{TextPart(text)})
}

// System creates a complete system message holding text.
func (f Factory) System(text string) Message {
	return f.base(RoleSystem, StateComplete, []Part{TextPart(text)})
}

// Assistant creates an assistant message; an empty state means StateComplete.
func (f Factory) Assistant(parts []Part, state MessageState) Message {
	if state == "" {
		state = StateComplete
	}
	return f.base(RoleAssistant, state, parts)
}

// Tool creates a complete tool message carrying the result of one tool call.
func (f Factory) Tool(result ToolResultPart, metadata map[string]any) Message {
	m := f.base(RoleTool, StateComplete, []Part{ToolResultContent(result)})
	m.Metadata = metadata
	return m
}

var defaultFactory Factory

// NewUserMessage, NewSystemMessage, NewAssistantMessage and NewToolMessage are the
// spec's createXMessage factories with random UUIDs and the wall clock.
func NewUserMessage(text string) Message   { return defaultFactory.User(text) }
func NewSystemMessage(text string) Message { return defaultFactory.System(text) }
func NewAssistantMessage(parts []Part, state MessageState) Message {
	return defaultFactory.Assistant(parts, state)
}
func NewToolMessage(result ToolResultPart, metadata map[string]any) Message {
	return defaultFactory.Tool(result, metadata)
}

// NewID returns a random (version 4) UUID.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:16])
	return string(out[:])
}

// MessagesForAPI prepares history for a provider call: interrupted assistant messages get
// InterruptedSuffix appended to their text. The input is not modified. Without an
// interrupted message there is nothing to change, and the result is history itself
// (capacity cut to its length, so appending to it copies): treat it as read-only.
func MessagesForAPI(history []Message) []Message {
	if !slices.ContainsFunc(history, func(m Message) bool { return m.Role == RoleAssistant && m.State == StateInterrupted }) {
		return history[:len(history):len(history)]
	}
	out := make([]Message, len(history))
	copy(out, history)
	for i, m := range out {
		if m.Role != RoleAssistant || m.State != StateInterrupted {
			continue
		}
		parts := append(make([]Part, 0, len(m.Content)+1), m.Content...)
		annotated := false
		for j := len(parts) - 1; j >= 0; j-- {
			if parts[j].Type == PartText {
				sep := "\n\n"
				if parts[j].Text == "" {
					sep = ""
				}
				parts[j].Text += sep + InterruptedSuffix
				annotated = true
				break
			}
		}
		if !annotated {
			parts = append([]Part{TextPart(InterruptedSuffix)}, parts...)
		}
		out[i].Content = parts
	}
	return out
}
