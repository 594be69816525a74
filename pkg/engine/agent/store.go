package agent

import (
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ConversationStore is the canonical, append-only chat history plus the pending assistant
// message being streamed. It is safe for concurrent use.
type ConversationStore struct {
	mu       sync.Mutex
	factory  llm.Factory
	history  []llm.Message
	chars    int // serialized characters of history, for the tool-result budget
	pending  *pendingAssistant
	onAppend func(index int, m llm.Message)
}

type pendingAssistant struct {
	text      pieces
	thinking  []llm.Part
	toolCalls []llm.ToolCall
}

// NewConversationStore returns a store holding a copy of initial (e.g. a resumed session).
func NewConversationStore(factory llm.Factory, initial []llm.Message) *ConversationStore {
	s := &ConversationStore{factory: factory, history: append([]llm.Message(nil), initial...)}
	for i := range s.history {
		s.chars += contextwin.SerializedChars(&s.history[i])
	}
	return s
}

// setAppendObserver installs the callback told about every appended message.
func (s *ConversationStore) setAppendObserver(fn func(index int, m llm.Message)) {
	s.mu.Lock()
	s.onAppend = fn
	s.mu.Unlock()
}

// Append adds a complete message (user, system or tool) to history and returns it.
func (s *ConversationStore) Append(m llm.Message) llm.Message {
	s.mu.Lock()
	idx := len(s.history)
	s.history = append(s.history, m)
	s.chars += contextwin.SerializedChars(&m)
	fn := s.onAppend
	s.mu.Unlock()
	if fn != nil {
		fn(idx, m)
	}
	return m
}

// BeginAssistant starts a pending assistant message; it replaces any stale pending state.
func (s *ConversationStore) BeginAssistant() {
	s.mu.Lock()
	s.pending = &pendingAssistant{}
	s.mu.Unlock()
}

// AppendStreaming adds a streamed text delta to the pending message.
func (s *ConversationStore) AppendStreaming(delta string) {
	s.mu.Lock()
	if s.pending == nil {
		s.pending = &pendingAssistant{}
	}
	s.pending.text.add(delta)
	s.mu.Unlock()
}

// SetPendingText replaces the pending text with the provider's final text, for providers
// that return text they did not stream (or streamed differently).
func (s *ConversationStore) SetPendingText(text string) {
	s.mu.Lock()
	if s.pending == nil {
		s.pending = &pendingAssistant{}
	}
	s.pending.text.set(text)
	s.mu.Unlock()
}

// AppendThinking adds a thinking part to the pending message.
func (s *ConversationStore) AppendThinking(p llm.Part) {
	s.mu.Lock()
	if s.pending == nil {
		s.pending = &pendingAssistant{}
	}
	s.pending.thinking = append(s.pending.thinking, p)
	s.mu.Unlock()
}

// AppendToolCall adds a tool call to the pending message, ignoring a second call with the
// same ID within this message. IDs are never rewritten.
func (s *ConversationStore) AppendToolCall(tc llm.ToolCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		s.pending = &pendingAssistant{}
	}
	for _, existing := range s.pending.toolCalls {
		if existing.ID == tc.ID {
			return
		}
	}
	s.pending.toolCalls = append(s.pending.toolCalls, tc)
}

// PendingContent returns the text accumulated so far.
func (s *ConversationStore) PendingContent() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		return ""
	}
	return s.pending.text.String()
}

// CommitAssistant appends the pending message (thinking, text, tool calls) with state,
// usage and metadata, and clears the pending state. It always appends — even an empty
// message — and never strips text.
func (s *ConversationStore) CommitAssistant(state llm.MessageState, usage *llm.Usage, metadata map[string]any) llm.Message {
	s.mu.Lock()
	p := s.pending
	s.pending = nil
	s.mu.Unlock()
	if p == nil {
		p = &pendingAssistant{}
	}
	parts := make([]llm.Part, 0, len(p.thinking)+1+len(p.toolCalls))
	parts = append(parts, p.thinking...)
	if text := p.text.String(); text != "" {
		parts = append(parts, llm.TextPart(text))
	}
	for _, tc := range p.toolCalls {
		parts = append(parts, llm.ToolUsePart(tc))
	}
	m := s.factory.Assistant(parts, state)
	m.Usage = usage
	m.Metadata = metadata
	contextwin.NormalizeMessageUsage(&m)
	return s.Append(m)
}

// History returns a new slice of the committed messages. The messages' content is shared
// with the store and must be treated as read-only (history is append-only).
func (s *ConversationStore) History() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Message(nil), s.history...)
}

// View returns the committed messages without copying them, for readers on the hot
// path (saves, context estimates). It shares the store's array, which is append-only:
// the messages in it never change, appends to the store do not show in it, and its
// capacity ends at its length, so appending to it copies. It must not be written to.
func (s *ConversationStore) View() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.history[:len(s.history):len(s.history)]
}

// Len returns the number of committed messages.
func (s *ConversationStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.history)
}

// MessagesForAPI returns history prepared for a provider call (interrupted assistant
// messages annotated; see llm.MessagesForAPI).
func (s *ConversationStore) MessagesForAPI() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The result may be the history itself (see View): committed messages are never
	// mutated, and the slice's capacity ends at its length.
	return llm.MessagesForAPI(s.history[:len(s.history):len(s.history)])
}

// serializedChars returns the serialized size of history.
func (s *ConversationStore) serializedChars() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chars
}

// pieces accumulates streamed text without copying it as it grows: a growing buffer
// reallocates (and copies) the answer several times over, a long answer's deltas many
// thousands of times; the pieces are joined once, when the text is read.
type pieces struct {
	parts []string
	n     int
}

func (p *pieces) add(s string) {
	if s != "" {
		p.parts = append(p.parts, s)
		p.n += len(s)
	}
}

// set replaces the text with s.
func (p *pieces) set(s string) {
	p.parts, p.n = p.parts[:0], 0
	p.add(s)
}

// String joins the pieces (once: the joined text replaces them).
func (p *pieces) String() string {
	switch len(p.parts) {
	case 0:
		return ""
	case 1:
		return p.parts[0]
	}
	var b strings.Builder
	b.Grow(p.n)
	for _, s := range p.parts {
		b.WriteString(s)
	}
	joined := b.String()
	p.parts = append(p.parts[:0], joined)
	return joined
}
