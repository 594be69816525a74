package sessionlog

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"unsafe"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// own returns data in a form its caller can no longer change: a logger in Background
// mode writes it after Log returned, while the caller goes on with (and may change) the
// maps, slices and pointed-to values it logged. The types the session and the agent log
// are copied as far as they hold mutable parts (strings are immutable and shared); any
// other value is snapshotted as its JSON. The copy keeps each value's type, so the
// logger's typed paths (deltas, references, history) see what they would have seen.
// Not copied: strings and values without references, and an agent.Event that carries
// only a Delta (a streamed piece: agent.DeltaData is made per piece by the agent's
// emitter and never changed; nothing else in the module writes one).
func own(data any, memo *ownMemo) (any, error) {
	switch d := data.(type) {
	case nil, string, bool, int, int64, float64, json.Number,
		TextDeltaData, PreRunData, SessionShutdownData, ErrorData, ContextCompactData:
		return data, nil
	case *TextDeltaData:
		if d == nil {
			return nil, nil
		}
		return *d, nil
	case agent.Event:
		if d.Delta != nil && d.Request == nil && d.RawPayload == nil && d.Response == nil && d.Batch == nil &&
			d.Tool == nil && d.Mutation == nil && d.Message == nil {
			// A streamed piece (provider_stream_raw_delta): the agent makes a DeltaData
			// for each piece, of values only, and no one changes it after emitting it, so
			// the event is kept as given. Copying it cost two allocations a piece, the
			// most of a streamed answer's.
			return data, nil
		}
		return memo.event(d), nil
	case HistoryMutationData:
		if d.resumed && d.Continues == nil {
			// A resumed conversation (ContinueHistory) is the committed history, whose
			// messages no one changes (agent.ConversationStore): they are kept, not
			// copied, and the agent's first request, which holds the same messages, is
			// owned against them (ownMemo.request). Copying them cost a resume time in
			// proportion to the whole conversation, twice (issue 29).
			d.Messages = slices.Clone(d.Messages)
			memo.share(d.Messages)
			return d, nil
		}
		return ownMutation(d), nil
	case AssistantData:
		d.HistoryStructure = slices.Clone(d.HistoryStructure)
		for i := range d.HistoryStructure {
			s := &d.HistoryStructure[i]
			s.ToolCallNames = slices.Clone(s.ToolCallNames)
			s.Metadata = ownMap(s.Metadata)
		}
		return d, nil
	case ServerToolData:
		d.Input = bytes.Clone(d.Input)
		return d, nil
	case SessionInitData:
		d.ToolSchemas = ownSchemas(d.ToolSchemas)
		return d, nil
	case json.RawMessage:
		return bytes.Clone(d), nil
	}
	raw, err := marshal(data)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(raw), nil
}

func ownEvent(ev agent.Event) agent.Event { return (*ownMemo)(nil).event(ev) }

// event is ownEvent sharing what m copied of the last request (m may be nil).
func (m *ownMemo) event(ev agent.Event) agent.Event {
	if ev.Request != nil {
		r := *ev.Request // the unexported count of omitted messages is copied with it
		r.Messages, r.Tools = m.request(r.Messages, r.Tools)
		if r.Base != nil {
			b := *r.Base
			r.Base = &b
		}
		ev.Request = &r
	}
	if ev.RawPayload != nil {
		p := *ev.RawPayload
		p.Payload = bytes.Clone(p.Payload)
		p.Metadata = ownMap(p.Metadata)
		ev.RawPayload = &p
	}
	if ev.Delta != nil {
		d := *ev.Delta
		ev.Delta = &d
	}
	if ev.Response != nil {
		r := *ev.Response
		r.Response.Message = ownMessage(r.Response.Message)
		ev.Response = &r
	}
	if ev.Batch != nil {
		b := *ev.Batch
		b.Tools = slices.Clone(b.Tools)
		ev.Batch = &b
	}
	if ev.Tool != nil {
		t := *ev.Tool
		t.Parameters = bytes.Clone(t.Parameters)
		t.OwnerPath = slices.Clone(t.OwnerPath)
		if t.Result != nil {
			res := *t.Result
			res.Metadata = ownMap(res.Metadata)
			t.Result = &res
		}
		ev.Tool = &t
	}
	if ev.Mutation != nil {
		m := *ev.Mutation
		ev.Mutation = &m
	}
	if ev.Message != nil {
		m := ownMessage(*ev.Message)
		ev.Message = &m
	}
	return ev
}

func ownMutation(d HistoryMutationData) HistoryMutationData {
	if d.Message != nil {
		m := ownMessage(*d.Message)
		d.Message = &m
	}
	d.Messages = ownMessages(d.Messages)
	if d.Continues != nil {
		c := *d.Continues
		d.Continues = &c
	}
	d.Replaced = slices.Clone(d.Replaced)
	for i := range d.Replaced {
		d.Replaced[i].Message = ownMessage(d.Replaced[i].Message)
	}
	if d.Length != nil {
		n := *d.Length
		d.Length = &n
	}
	d.changed = slices.Clone(d.changed)
	return d
}

func ownMessages(msgs []llm.Message) []llm.Message {
	if msgs == nil {
		return nil
	}
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = ownMessage(m)
	}
	return out
}

func ownMessage(m llm.Message) llm.Message {
	m.Content = slices.Clone(m.Content)
	for i := range m.Content {
		p := &m.Content[i]
		if p.ToolCall != nil {
			c := *p.ToolCall
			c.Input = bytes.Clone(c.Input)
			p.ToolCall = &c
		}
		if p.ToolResult != nil {
			r := *p.ToolResult
			p.ToolResult = &r
		}
	}
	if m.Usage != nil {
		u := *m.Usage
		m.Usage = &u
	}
	m.Metadata = ownMap(m.Metadata)
	return m
}

func ownSchemas(s []llm.ToolSchema) []llm.ToolSchema {
	if s == nil {
		return nil
	}
	s = slices.Clone(s)
	for i := range s {
		s[i].InputSchema = bytes.Clone(s[i].InputSchema)
	}
	return s
}

// ownMap copies a metadata map deeply: JSON containers are copied, scalars kept, and any
// other value (a struct, a typed map) is snapshotted as its JSON, which is what the log
// writes of it.
func ownMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		out[k] = ownValue(v)
	}
	return out
}

func ownValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return ownMap(t)
	case []any:
		out := slices.Clone(t)
		for i, c := range out {
			out[i] = ownValue(c)
		}
		return out
	case []string:
		return slices.Clone(t)
	case json.RawMessage:
		return bytes.Clone(t)
	case []byte:
		return bytes.Clone(t)
	case nil, string, bool, float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		return v
	}
	raw, err := marshal(v)
	if err != nil {
		return v // the line's encoding reports it
	}
	return json.RawMessage(raw)
}

// ownMemo lets own share what it copied of one provider request with the next. A
// request's messages are the session's history as it stands (agent.ConversationStore.
// View: an append-only array whose committed messages never change) and its tools the
// agent's schemas, fixed once built. So when a request's messages lie in the same array
// as the last one's and reach at least as far, the messages the last one had are the
// same messages, and only the new ones are copied; the same schemas are not copied
// again. Without it every round copied the whole history and every tool schema: the
// most of what logging a turn allocated, and growing with the session.
type ownMemo struct {
	mu                   sync.Mutex
	msgsSrc, msgsOwned   []llm.Message
	toolsSrc, toolsOwned []llm.ToolSchema
	// shared is the last resumed conversation (ContinueHistory), kept as given: a
	// request message that is one of them (sameMemory) is not copied.
	shared []llm.Message
}

// share records a resumed conversation's messages, kept uncopied (m may be nil).
func (m *ownMemo) share(msgs []llm.Message) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.shared = msgs
	m.mu.Unlock()
}

// request returns the owned forms of a request's messages and tools.
func (m *ownMemo) request(msgs []llm.Message, tools []llm.ToolSchema) ([]llm.Message, []llm.ToolSchema) {
	if m == nil {
		return ownMessages(msgs), ownSchemas(tools)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ownedMsgs []llm.Message
	if n := len(m.msgsSrc); n > 0 && n <= len(msgs) && unsafe.SliceData(msgs) == unsafe.SliceData(m.msgsSrc) {
		// The copies already made are shared (no one changes them), and the new ones are
		// appended after them: the last request's owned slice, and every one before it,
		// ends where it ended, so what is written past it is never seen through it.
		ownedMsgs = m.msgsOwned
		for i := n; i < len(msgs); i++ {
			ownedMsgs = append(ownedMsgs, ownMessage(msgs[i]))
		}
	} else {
		ownedMsgs = make([]llm.Message, len(msgs))
		shared := 0
		for i, msg := range msgs {
			if i < len(m.shared) && sameMemory(m.shared[i], msg) {
				ownedMsgs[i] = msg // a committed message of the resumed conversation
				shared++
			} else {
				ownedMsgs[i] = ownMessage(msg)
			}
		}
		if shared > 0 {
			m.shared = nil // the requests after this one extend it (the branch above)
		}
		if msgs == nil {
			ownedMsgs = nil
		}
	}
	m.msgsSrc, m.msgsOwned = msgs, ownedMsgs
	if len(tools) == 0 || len(tools) != len(m.toolsSrc) || unsafe.SliceData(tools) != unsafe.SliceData(m.toolsSrc) {
		m.toolsSrc, m.toolsOwned = tools, ownSchemas(tools)
	}
	return ownedMsgs, m.toolsOwned
}
