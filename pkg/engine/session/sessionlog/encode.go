package sessionlog

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"math"
	"sync"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Most of a turn's data is agent.Event values (a streamed answer is thousands of them).
// They are written as jsontext tokens, field by field, into a reused buffer: jsontext
// (JSON v2's) does the syntax (names, strings, numbers, raw JSON checked and compacted),
// and this file only says which members a type has, with encoding/json's meaning of its
// tags (omitempty, omitzero, nil as null). JSON v2's reflective encoder writes the same
// text but cost a logged round about a quarter more and a turn a fifth more (measured side
// by side, issue 30), so it encodes only the rest (appendJSON): a turn's pre_run,
// assistant and message data, any other type, a metadata value of a type other than
// JSON's own. The events' text is, to encoding/json's decoder, the value json.Marshal
// gives (with a request as its MarshalJSON places it); encode_test.go decodes both and
// compares, also under fuzzing. What json.Marshal would refuse (a NaN, invalid raw JSON,
// a time outside RFC 3339) makes the writer report !ok, and the caller takes JSON v2's
// answer, error included.

// tokenOptions are the encoder's: member names are not tracked for repeats (the line's
// pass keeps the last), invalid UTF-8 becomes U+FFFD as in encoding/json.
var tokenOptions = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// appendEventJSON appends the value json.Marshal(ev) gives; ok is false when the caller
// is to use JSON v2's encoder instead.
func appendEventJSON(dst []byte, ev agent.Event) ([]byte, bool) {
	return encodeTokens(dst, func(e *tokenWriter) {
		e.event(ev, func(e *tokenWriter) { e.request(ev.Request) }, ev.Request != nil)
	})
}

// appendReferredJSON appends r's event with its reference, members in another order
// than the tree refer's fix makes (the line sorts them), sizes alike but for the
// message taken out.
func appendReferredJSON(dst []byte, r *referredEvent) ([]byte, bool) {
	return encodeTokens(dst, func(e *tokenWriter) {
		e.responseRef, e.messageRef = r.responseRef, r.messageRef
		e.event(r.ev, func(e *tokenWriter) { e.request(r.ev.Request) }, r.ev.Request != nil)
	})
}

// appendHistoryRequestJSON appends h's event with its request replaced by h.wire (as
// historyRequestJSON is written).
func appendHistoryRequestJSON(dst []byte, h historyRequestEvent) ([]byte, bool) {
	return encodeTokens(dst, func(e *tokenWriter) {
		e.event(h.ev, func(e *tokenWriter) { e.historyRequest(&h.wire) }, true)
	})
}

// tokenWriter writes a value's tokens; the first error stops it.
type tokenWriter struct {
	jsontext.Encoder
	out  bytes.Buffer
	err  error
	text []byte // scratch for a time's text
	// responseRef and messageRef, when not 0, are a referredEvent's.
	responseRef, messageRef int64
}

var tokenWriters = sync.Pool{New: func() any { return new(tokenWriter) }}

// encodeTokens appends what write writes to dst: the encoder writes into dst's spare
// capacity (jsontext appends to a bytes.Buffer in place).
func encodeTokens(dst []byte, write func(*tokenWriter)) ([]byte, bool) {
	e := tokenWriters.Get().(*tokenWriter)
	defer tokenWriters.Put(e)
	e.out = *bytes.NewBuffer(dst)
	e.Reset(&e.out, tokenOptions)
	e.err, e.responseRef, e.messageRef = nil, 0, 0
	write(e)
	out := e.out.Bytes()
	e.out = bytes.Buffer{}
	e.Reset(&e.out) // drop dst
	if e.err != nil {
		return nil, false
	}
	return bytes.TrimSuffix(out, []byte{'\n'}), true // the encoder ends a top-level value with one
}

func (e *tokenWriter) token(t jsontext.Token) *tokenWriter {
	if e.err == nil {
		e.err = e.WriteToken(t)
	}
	return e
}

// member writes an object member's name (the value follows).
func (e *tokenWriter) member(name string) *tokenWriter { return e.token(jsontext.String(name)) }

func (e *tokenWriter) begin() *tokenWriter { return e.token(jsontext.BeginObject) }
func (e *tokenWriter) end()                { e.token(jsontext.EndObject) }
func (e *tokenWriter) str(s string)        { e.token(jsontext.String(s)) }
func (e *tokenWriter) int(n int64)         { e.token(jsontext.Int(n)) }
func (e *tokenWriter) bool(v bool)         { e.token(jsontext.Bool(v)) }
func (e *tokenWriter) lineRef(seq int64)   { e.begin().member("sequence").int(seq); e.end() }

// float writes f as encoding/json does (which refuses NaN and infinities).
func (e *tokenWriter) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.fail()
		return
	}
	e.token(jsontext.Float(f))
}

func (e *tokenWriter) fail() {
	if e.err == nil {
		e.err = errRefused
	}
}

// errRefused stops a tokenWriter at a value json.Marshal refuses.
var errRefused = errors.New("refused")

// time writes t's MarshalJSON text, and refuses what MarshalJSON refuses.
func (e *tokenWriter) time(t time.Time) {
	b := t.AppendFormat(e.text[:0], time.RFC3339Nano)
	e.text = b
	// time.Time.MarshalJSON's checks (appendStrictRFC3339).
	switch {
	case len(b) < 5 || b[4] != '-':
		e.fail()
		return
	case b[len(b)-1] != 'Z':
		c := b[len(b)-len("Z07:00")]
		h := b[len(b)-len("07:00"):]
		if '0' <= c && c <= '9' || 10*(h[0]-'0')+(h[1]-'0') >= 24 {
			e.fail()
			return
		}
	}
	e.str(unsafe.String(unsafe.SliceData(b), len(b))) // the token is copied as written
}

// raw writes a json.RawMessage as json.Marshal does: null for nil, else compacted (and
// refused when invalid).
func (e *tokenWriter) raw(m stdjson.RawMessage) {
	switch {
	case e.err != nil:
	case m == nil:
		e.token(jsontext.Null)
	default:
		e.err = e.WriteValue(jsontext.Value(m))
	}
}

func (e *tokenWriter) event(ev agent.Event, request func(*tokenWriter), hasRequest bool) {
	e.begin()
	e.member("type").str(string(ev.Type))
	e.member("executionId").str(ev.ExecutionID)
	e.member("conversationId").str(ev.ConversationID)
	e.member("round").int(int64(ev.Round))
	e.member("sequence").int(ev.Sequence)
	e.member("timestamp").time(ev.Timestamp)
	if p := ev.RawPayload; p != nil {
		e.member("rawPayload").rawPayload(p)
	}
	if d := ev.Delta; d != nil {
		e.member("delta").begin()
		e.member("sequence").int(d.Sequence)
		e.member("delta").str(d.Delta)
		e.end()
	}
	if r := ev.Response; r != nil {
		e.member("response").begin()
		if e.responseRef != 0 {
			e.member("messageRef").lineRef(e.responseRef)
			e.member("response").begin()
		} else {
			e.member("response").begin()
			e.member("message").message(&r.Response.Message)
		}
		e.member("stopReason").str(string(r.Response.StopReason))
		e.end()
		if r.ResponseKind != "" {
			e.member("responseKind").str(r.ResponseKind)
		}
		e.member("toolCallsCount").int(int64(r.ToolCallsCount))
		e.end()
	}
	if b := ev.Batch; b != nil {
		e.member("batch").begin()
		e.member("batchId").str(b.BatchID)
		e.member("mode").str(b.Mode)
		e.member("maxConcurrency").int(int64(b.MaxConcurrency))
		e.member("requestCount").int(int64(b.RequestCount))
		e.member("tools").strings(b.Tools)
		e.end()
	}
	if t := ev.Tool; t != nil {
		e.member("tool").tool(t)
	}
	if m := ev.Mutation; m != nil {
		e.member("mutation").begin()
		e.member("kind").str(m.Kind)
		e.member("index").int(int64(m.Index))
		e.end()
	}
	if m := ev.Message; m != nil {
		e.member("message").message(m)
	}
	if e.messageRef != 0 {
		e.member("messageRef").lineRef(e.messageRef)
	}
	if hasRequest {
		e.member("request")
		request(e)
	}
	e.end()
}

func (e *tokenWriter) strings(ss []string) { array(e, ss, func(s *string) { e.str(*s) }) }

// array writes xs as encoding/json does a slice (null when nil), each element by each.
func array[T any](e *tokenWriter, xs []T, each func(*T)) {
	if xs == nil {
		e.token(jsontext.Null)
		return
	}
	e.token(jsontext.BeginArray)
	for i := range xs {
		each(&xs[i])
	}
	e.token(jsontext.EndArray)
}

func (e *tokenWriter) rawPayload(p *llm.RawPayloadEvent) {
	e.begin()
	e.member("provider").str(p.Provider)
	if p.APISurface != "" {
		e.member("apiSurface").str(p.APISurface)
	}
	e.member("payloadKind").str(string(p.PayloadKind))
	if p.Sequence != 0 {
		e.member("sequence").int(p.Sequence)
	}
	e.member("payload").raw(p.Payload)
	if len(p.Metadata) > 0 {
		e.member("metadata").anyMap(p.Metadata)
	}
	e.end()
}

func (e *tokenWriter) tool(t *agent.ToolEventData) {
	e.begin()
	e.member("batchId").str(t.BatchID)
	e.member("index").int(int64(t.Index))
	e.member("toolName").str(t.ToolName)
	e.member("toolCallId").str(t.ToolCallID)
	if len(t.Parameters) > 0 {
		e.member("parameters").raw(t.Parameters)
	}
	if len(t.OwnerPath) > 0 {
		e.member("ownerPath")
		array(e, t.OwnerPath, func(s *agent.OwnerPathSegment) {
			e.begin()
			e.member("ownerType").str(s.OwnerType)
			e.member("ownerId").str(s.OwnerID)
			e.end()
		})
	}
	if r := t.Result; r != nil {
		e.member("result").begin()
		e.member("success").bool(r.Success)
		if r.Output != "" {
			e.member("output").str(r.Output)
		}
		if r.Error != "" {
			e.member("error").str(r.Error)
		}
		if len(r.Metadata) > 0 {
			e.member("metadata").anyMap(r.Metadata)
		}
		e.end()
	}
	e.end()
}

func (e *tokenWriter) messages(ms []llm.Message) { array(e, ms, e.message) }

func (e *tokenWriter) message(m *llm.Message) {
	e.begin()
	e.member("id").str(m.ID)
	e.member("role").str(string(m.Role))
	e.member("state").str(string(m.State))
	e.member("content")
	array(e, m.Content, e.part)
	if u := m.Usage; u != nil {
		e.member("usage").begin()
		e.member("inputTokens").int(int64(u.InputTokens))
		e.member("outputTokens").int(int64(u.OutputTokens))
		if u.CacheCreationInputTokens != 0 {
			e.member("cacheCreationInputTokens").int(int64(u.CacheCreationInputTokens))
		}
		if u.CacheReadInputTokens != 0 {
			e.member("cacheReadInputTokens").int(int64(u.CacheReadInputTokens))
		}
		e.end()
	}
	if len(m.Metadata) > 0 {
		e.member("metadata").anyMap(m.Metadata)
	}
	if !m.CreatedAt.IsZero() {
		e.member("createdAt").time(m.CreatedAt)
	}
	e.end()
}

func (e *tokenWriter) part(p *llm.Part) {
	e.begin()
	e.member("type").str(string(p.Type))
	if p.Text != "" {
		e.member("text").str(p.Text)
	}
	if p.Signature != "" {
		e.member("signature").str(p.Signature)
	}
	if c := p.ToolCall; c != nil {
		e.member("toolCall").begin()
		e.member("id").str(c.ID)
		e.member("name").str(c.Name)
		if len(c.Input) > 0 {
			e.member("input").raw(c.Input)
		}
		e.end()
	}
	if r := p.ToolResult; r != nil {
		e.member("toolResult").begin()
		e.member("toolCallId").str(r.ToolCallID)
		if r.ToolName != "" {
			e.member("toolName").str(r.ToolName)
		}
		e.member("content").str(r.Content)
		if r.IsError {
			e.member("isError").bool(true)
		}
		e.end()
	}
	e.end()
}

func (e *tokenWriter) tools(ts []llm.ToolSchema) {
	array(e, ts, func(t *llm.ToolSchema) {
		e.begin()
		e.member("name").str(t.Name)
		e.member("description").str(t.Description)
		e.member("inputSchema").raw(t.InputSchema)
		e.end()
	})
}

// request writes agent.ProviderRequestData.MarshalJSON's text.
func (e *tokenWriter) request(d *agent.ProviderRequestData) {
	e.begin()
	e.member("provider").str(d.Provider)
	e.member("model").str(d.Model)
	if d.Purpose != "" {
		e.member("purpose").str(string(d.Purpose))
	}
	newMessages := d.Messages
	if b := d.Base; b != nil {
		e.member("base").begin()
		e.member("executionId").str(b.ExecutionID)
		e.member("round").int(int64(b.Round))
		e.member("messages").int(int64(b.Messages))
		if b.Tools {
			e.member("tools").bool(true)
		}
		e.end()
		if d.Omitted() == 0 {
			newMessages = d.Messages[min(b.Messages, len(d.Messages)):]
		}
	}
	e.member("messageCount").int(int64(d.Omitted() + len(d.Messages)))
	if newMessages == nil {
		newMessages = []llm.Message{}
	}
	e.member("newMessages").messages(newMessages)
	if d.Base == nil || !d.Base.Tools {
		e.member("tools").tools(d.Tools)
	}
	e.end()
}

// historyRequest writes json.Marshal(w)'s text.
func (e *tokenWriter) historyRequest(w *historyRequestWire) {
	e.begin()
	e.member("provider").str(w.Provider)
	e.member("model").str(w.Model)
	if w.Purpose != "" {
		e.member("purpose").str(string(w.Purpose))
	}
	e.member("base").begin()
	e.member("history").bool(w.Base.History)
	e.member("messages").int(int64(w.Base.Messages))
	if len(w.Base.Replaced) > 0 {
		e.member("replaced")
		array(e, w.Base.Replaced, func(r *IndexedMessage) {
			e.begin()
			e.member("index").int(int64(r.Index))
			e.member("message").message(&r.Message)
			e.end()
		})
	}
	e.end()
	e.member("messageCount").int(int64(w.MessageCount))
	e.member("newMessages").messages(w.NewMessages)
	e.member("tools").tools(w.Tools)
	e.end()
}

// anyMap writes a map[string]any as json.Marshal does (its members' order is left to
// the line's sort).
func (e *tokenWriter) anyMap(m map[string]any) {
	if m == nil {
		e.token(jsontext.Null)
		return
	}
	e.begin()
	for k, v := range m {
		e.member(k).any(v)
	}
	e.end()
}

// any writes a metadata value; types other than JSON's own are left to JSON v2 with
// encoding/json's semantics (v1Options).
func (e *tokenWriter) any(v any) {
	switch v := v.(type) {
	case nil:
		e.token(jsontext.Null)
	case string:
		e.str(v)
	case bool:
		e.bool(v)
	case int:
		e.int(int64(v))
	case int64:
		e.int(v)
	case float64:
		e.float(v)
	case map[string]any:
		e.anyMap(v)
	case []any:
		array(e, v, func(x *any) { e.any(*x) })
	default:
		if e.err == nil {
			e.err = json.MarshalEncode(&e.Encoder, v, v1Options)
		}
	}
}

// historyRequestJSON is a historyRequestEvent's JSON form: the event with its request
// replaced (the shallower request wins over agent.Event's).
type historyRequestJSON struct {
	agent.Event
	Request *historyRequestWire `json:"request"`
}

// referredAssistantJSON is AssistantData with its content referred to (refs.go).
type referredAssistantJSON struct {
	ContentRef       LineRef            `json:"contentRef"`
	HistoryLength    int                `json:"historyLength"`
	HistoryFrom      int                `json:"historyFrom"`
	HistoryStructure []MessageStructure `json:"historyStructure"`
}

// appendJSON appends data's JSON as JSON v2 writes it with encoding/json's semantics
// (marshal): a history request and a referred answer as their wire forms.
func appendJSON(dst []byte, data any) ([]byte, error) {
	switch d := data.(type) {
	case historyRequestEvent:
		data = &historyRequestJSON{Event: d.ev, Request: &d.wire}
	case referredEvent:
		a := d.assistant
		data = a
		if d.contentRef != 0 {
			data = &referredAssistantJSON{ContentRef: LineRef{d.contentRef}, HistoryLength: a.HistoryLength,
				HistoryFrom: a.HistoryFrom, HistoryStructure: a.HistoryStructure}
		}
	}
	b, err := marshal(data)
	if err != nil || len(dst) == 0 {
		return b, err
	}
	return append(dst, b...), nil
}
