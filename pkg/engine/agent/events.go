package agent

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// EventType names a replay event (the spec's Replay Boundary Events table).
type EventType string

const (
	EventProviderRequest            EventType = "provider_request"
	EventProviderNativeRawPayload   EventType = "provider_native_raw_payload"
	EventProviderStreamRawDelta     EventType = "provider_stream_raw_delta"
	EventProviderResponseRaw        EventType = "provider_response_raw"
	EventProviderResponseNormalized EventType = "provider_response_normalized"
	EventAssistantMessageCommitted  EventType = "assistant_message_committed"
	EventToolBatchStarted           EventType = "tool_batch_started"
	EventToolExecutionRequest       EventType = "tool_execution_request"
	EventToolExecutionResult        EventType = "tool_execution_result"
	EventToolMessageCommitted       EventType = "tool_message_committed"
	EventHistoryMutation            EventType = "history_mutation"
)

// ResponseKindNormalized is provider_response_raw.responseKind: the provider returns an
// already-normalized llm message; native payloads travel in provider_native_raw_payload.
const ResponseKindNormalized = "provider-normalized-message"

// Event is one append-only replay event. Exactly the payload pointer(s) of its Type are set:
//
//	provider_request              Request
//	provider_native_raw_payload   RawPayload
//	provider_stream_raw_delta     Delta
//	provider_response_raw         Response (ResponseKind)
//	provider_response_normalized  Response (ToolCallsCount)
//	assistant_message_committed   Message
//	tool_batch_started            Batch
//	tool_execution_request        Tool (no Result)
//	tool_execution_result         Tool (with Result)
//	tool_message_committed        Tool (BatchID, Index), Message
//	history_mutation              Mutation, Message
//
// Order within a round: provider_request, [provider_native_raw_payload |
// provider_stream_raw_delta]*, provider_response_raw, provider_response_normalized,
// history_mutation, assistant_message_committed; then, if the model called tools,
// tool_batch_started, tool_execution_request × n (request order), tool_execution_result × n
// (completion order), and per result in request order: history_mutation,
// tool_message_committed. The run's user message is a history_mutation before round 1.
type Event struct {
	Type           EventType `json:"type"`
	ExecutionID    string    `json:"executionId"`
	ConversationID string    `json:"conversationId"`
	Round          int       `json:"round"`
	Sequence       int64     `json:"sequence"` // per-execution order of events
	Timestamp      time.Time `json:"timestamp"`

	Request    *ProviderRequestData `json:"request,omitempty"`
	RawPayload *llm.RawPayloadEvent `json:"rawPayload,omitempty"`
	Delta      *DeltaData           `json:"delta,omitempty"`
	Response   *ResponseData        `json:"response,omitempty"`
	Batch      *BatchData           `json:"batch,omitempty"`
	Tool       *ToolEventData       `json:"tool,omitempty"`
	Mutation   *MutationData        `json:"mutation,omitempty"`
	Message    *llm.Message         `json:"message,omitempty"`
}

// ProviderRequestData is the provider-neutral request envelope. Messages and Tools are
// always what the provider is sent. Base, set by the agent, names the previous request of
// this agent that the request extends: its JSON form (what the session log writes) then
// carries only what is new, so logging a request costs what it adds, not the whole
// history (see MarshalJSON).
type ProviderRequestData struct {
	Provider string           `json:"provider"`
	Model    string           `json:"model"`
	Purpose  llm.Purpose      `json:"purpose,omitempty"`
	Messages []llm.Message    `json:"messages"`
	Tools    []llm.ToolSchema `json:"tools"`
	Base     *RequestBase     `json:"base,omitempty"`
	// omitted counts the leading messages a request decoded from a delta line does not
	// hold (its base's): Messages then holds only the new ones.
	omitted int
}

// RequestBase says what a request shares with an earlier request of the same agent,
// named by its executionId and round: its first Messages messages, and its tool schemas
// when Tools is set. An agent's history is append-only, so a request extends the one
// before it; the agent's first request has no base.
type RequestBase struct {
	ExecutionID string `json:"executionId"`
	Round       int    `json:"round"`
	Messages    int    `json:"messages"`
	Tools       bool   `json:"tools,omitempty"`
}

// requestWire is the JSON form of ProviderRequestData: messageCount is len(Messages);
// newMessages are the messages after the base's shared ones (all of them without a base);
// tools is left out when the base's are reused.
type requestWire struct {
	Provider     string            `json:"provider"`
	Model        string            `json:"model"`
	Purpose      llm.Purpose       `json:"purpose,omitempty"`
	Base         *RequestBase      `json:"base,omitempty"`
	MessageCount int               `json:"messageCount"`
	NewMessages  []llm.Message     `json:"newMessages"`
	Tools        *[]llm.ToolSchema `json:"tools,omitempty"`
}

// MarshalJSON encodes the request as a delta of its base: messageCount, base and the new
// messages only, so its size is that of the new content. Without a base newMessages is
// the whole list.
func (d ProviderRequestData) MarshalJSON() ([]byte, error) {
	w := requestWire{Provider: d.Provider, Model: d.Model, Purpose: d.Purpose, Base: d.Base,
		MessageCount: d.omitted + len(d.Messages), NewMessages: d.Messages}
	if d.Base != nil && d.omitted == 0 {
		w.NewMessages = d.Messages[min(d.Base.Messages, len(d.Messages)):]
	}
	if w.NewMessages == nil {
		w.NewMessages = []llm.Message{}
	}
	if d.Base == nil || !d.Base.Tools {
		w.Tools = &d.Tools
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads both forms: a whole list (messages, the format before deltas) and a
// delta line. A delta's Messages holds only its new messages (Omitted tells how many
// leading ones its base holds); encoding it again gives the same line. Replay readers
// (package sessionlog) rebuild the complete list from the base requests.
func (d *ProviderRequestData) UnmarshalJSON(b []byte) error {
	var w struct {
		requestWire
		MessageCount *int             `json:"messageCount"`
		Messages     *[]llm.Message   `json:"messages"`
		Tools        []llm.ToolSchema `json:"tools"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = ProviderRequestData{Provider: w.Provider, Model: w.Model, Purpose: w.Purpose, Base: w.Base,
		Messages: w.NewMessages, Tools: w.Tools}
	if w.Messages != nil {
		d.Messages = *w.Messages
	} else if w.MessageCount != nil {
		d.omitted = max(*w.MessageCount-len(w.NewMessages), 0)
	}
	return nil
}

// Omitted is the number of leading messages Messages lacks: 0 for a request the agent
// built, the base's share for one decoded from a delta line.
func (d ProviderRequestData) Omitted() int { return d.omitted }

// DeltaData is one streamed provider text delta.
type DeltaData struct {
	Sequence int64  `json:"sequence"`
	Delta    string `json:"delta"`
}

// ResponseData is a provider response snapshot.
type ResponseData struct {
	Response       llm.ChatResponse `json:"response"`
	ResponseKind   string           `json:"responseKind,omitempty"`
	ToolCallsCount int              `json:"toolCallsCount"`
}

// BatchData describes a tool batch.
type BatchData struct {
	BatchID        string   `json:"batchId"`
	Mode           string   `json:"mode"`
	MaxConcurrency int      `json:"maxConcurrency"`
	RequestCount   int      `json:"requestCount"`
	Tools          []string `json:"tools"`
}

// OwnerPathSegment traces who owns an execution (agent → execution → tool).
type OwnerPathSegment struct {
	OwnerType string `json:"ownerType"`
	OwnerID   string `json:"ownerId"`
}

// ToolEventData describes one tool request, result or committed tool message.
type ToolEventData struct {
	BatchID    string             `json:"batchId"`
	Index      int                `json:"index"`
	ToolName   string             `json:"toolName"`
	ToolCallID string             `json:"toolCallId"`
	Parameters json.RawMessage    `json:"parameters,omitempty"`
	OwnerPath  []OwnerPathSegment `json:"ownerPath,omitempty"`
	Result     *llm.ToolResult    `json:"result,omitempty"`
}

// MutationData describes an append to canonical history.
type MutationData struct {
	Kind  string `json:"kind"` // always "append": history is append-only
	Index int    `json:"index"`
}

// emitter stamps and serializes events for one execution.
type emitter struct {
	mu             sync.Mutex
	fn             func(Event)
	now            func() time.Time
	executionID    string
	conversationID string
	seq            int64
	deltaSeq       int64
	rawSeq         int64
}

func (e *emitter) emit(round int, ev Event) {
	if e.fn == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seq++
	ev.ExecutionID, ev.ConversationID, ev.Round = e.executionID, e.conversationID, round
	ev.Sequence, ev.Timestamp = e.seq, e.now()
	e.fn(ev)
}

func (e *emitter) delta(round int, d string) {
	if e.fn == nil {
		return
	}
	e.mu.Lock()
	e.deltaSeq++
	n := e.deltaSeq
	e.mu.Unlock()
	e.emit(round, Event{Type: EventProviderStreamRawDelta, Delta: &DeltaData{Sequence: n, Delta: d}})
}

func (e *emitter) rawPayload(round int, p llm.RawPayloadEvent) {
	if e.fn == nil {
		return
	}
	e.mu.Lock()
	e.rawSeq++
	if p.Sequence == 0 {
		p.Sequence = e.rawSeq
	}
	e.mu.Unlock()
	e.emit(round, Event{Type: EventProviderNativeRawPayload, RawPayload: &p})
}
