package sessionlog

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Most of a turn's data is agent.Event values (a streamed answer is thousands of them).
// They are written by the typed appender here: it writes each type's fields straight
// into the caller's buffer, strings quoted, numbers formatted and raw JSON compacted by
// jsontext (JSON v2's). Everything else (a turn's pre_run, assistant and message data,
// any other type) is encoded by JSON v2's reflective encoder (appendJSON). Side by side
// (issue 30), that encoder cost the logged turn about a fifth more and a logged round a
// quarter more when it wrote the events too, and writing them as jsontext tokens (its
// Encoder.WriteToken, field by field) cost about twice the appender's time per event, a
// streamed turn too much of its budget. Two encoding/json-compatible libraries were
// tried in its place (issue 30). github.com/segmentio/encoding/json (v0.5.4) does not
// write what encoding/json writes here: no omitzero (a message's zero createdAt
// written), raw JSON neither compacted nor checked past its first value (`01` written
// as 0), times outside RFC 3339 taken. github.com/goccy/go-json (v0.12.0) does (the
// fuzz targets passed), and is faster on long strings (streamed turn -3% to -8%), but
// its omitzero check of a message's createdAt goes through reflection (a quarter of its
// time per event): medians of 9 and 11 alternating runs (load 3-4), the logged turn
// +5.6% and +9.9% ns/op (+4.7% and +11.1% CPU), a logged round +8% to +13% in Log
// (log-ns/round, history=10 and 10000); the 2,000-round run +5% (within noise). Past
// the budget, so the appender stays. The appender's text is, to encoding/json's
// decoder, the value json.Marshal gives (with a request as its MarshalJSON places it):
// omitempty and omitzero, time.Time as its MarshalJSON, nil slices and maps as null;
// encode_test.go decodes both and compares, also under fuzzing. Whatever it does not
// take (an event value json.Marshal would fail on: a NaN, invalid raw JSON, a time
// outside RFC 3339) makes it report !ok, and the caller takes JSON v2's answer, error
// included.

// appendEventJSON appends the value json.Marshal(ev) gives; ok is false when the caller
// is to use JSON v2's encoder instead.
func appendEventJSON(dst []byte, ev agent.Event) ([]byte, bool) {
	e := jsonAppender{b: dst, ok: true}
	e.event(ev, func(e *jsonAppender) { e.request(ev.Request) }, ev.Request != nil)
	return e.b, e.ok
}

// appendReferredJSON appends r's event with its reference, members in another order
// than the tree refer's fix makes (the line sorts them), sizes alike but for the
// message taken out.
func appendReferredJSON(dst []byte, r *referredEvent) ([]byte, bool) {
	e := jsonAppender{b: dst, ok: true, responseRef: r.responseRef, messageRef: r.messageRef}
	e.event(r.ev, func(e *jsonAppender) { e.request(r.ev.Request) }, r.ev.Request != nil)
	return e.b, e.ok
}

// appendHistoryRequestJSON appends h's event with its request replaced by h.wire (as
// historyRequestJSON is written).
func appendHistoryRequestJSON(dst []byte, h historyRequestEvent) ([]byte, bool) {
	e := jsonAppender{b: dst, ok: true}
	e.event(h.ev, func(e *jsonAppender) { e.historyRequest(&h.wire) }, true)
	return e.b, e.ok
}

type jsonAppender struct {
	b  []byte
	ok bool
	// responseRef and messageRef, when not 0, are a referredEvent's.
	responseRef, messageRef int64
}

func (e *jsonAppender) key(first bool, name string) {
	if !first {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, name...) // names are plain ASCII
	e.b = append(e.b, '"', ':')
}

func (e *jsonAppender) str(s string) { e.b = appendString(e.b, s) }

func (e *jsonAppender) int(n int64) { e.b = strconv.AppendInt(e.b, n, 10) }

func (e *jsonAppender) bool(v bool) { e.b = strconv.AppendBool(e.b, v) }

// time appends t's MarshalJSON text.
func (e *jsonAppender) time(t time.Time) {
	e.b = append(e.b, '"')
	n0 := len(e.b)
	e.b = t.AppendFormat(e.b, time.RFC3339Nano)
	// time.Time.MarshalJSON's checks (appendStrictRFC3339).
	b := e.b
	switch {
	case len(b) < n0+5 || b[n0+4] != '-':
		e.ok = false
	case b[len(b)-1] != 'Z':
		c := b[len(b)-len("Z07:00")]
		h := b[len(b)-len("07:00"):]
		if '0' <= c && c <= '9' || 10*(h[0]-'0')+(h[1]-'0') >= 24 {
			e.ok = false
		}
	}
	e.b = append(e.b, '"')
}

// raw appends a json.RawMessage as json.Marshal does: "null" for nil, else compacted
// (by jsontext; invalid text fails, as it fails json.Marshal).
func (e *jsonAppender) raw(m json.RawMessage) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	b, err := jsontext.AppendFormat(e.b, m, decodeOptions.Get()...)
	if err != nil {
		e.ok = false
		return
	}
	e.b = b
}

func (e *jsonAppender) event(ev agent.Event, request func(*jsonAppender), hasRequest bool) {
	e.b = append(e.b, `{"type":`...)
	e.str(string(ev.Type))
	e.key(false, "executionId")
	e.str(ev.ExecutionID)
	e.key(false, "conversationId")
	e.str(ev.ConversationID)
	e.key(false, "round")
	e.int(int64(ev.Round))
	e.key(false, "sequence")
	e.int(ev.Sequence)
	e.key(false, "timestamp")
	e.time(ev.Timestamp)
	if p := ev.RawPayload; p != nil {
		e.key(false, "rawPayload")
		e.rawPayload(p)
	}
	if d := ev.Delta; d != nil {
		e.key(false, "delta")
		e.b = append(e.b, `{"sequence":`...)
		e.int(d.Sequence)
		e.key(false, "delta")
		e.str(d.Delta)
		e.b = append(e.b, '}')
	}
	if r := ev.Response; r != nil {
		e.key(false, "response")
		if e.responseRef != 0 {
			e.b = append(e.b, `{"messageRef":{"sequence":`...)
			e.int(e.responseRef)
			e.b = append(e.b, `},"response":{"stopReason":`...)
		} else {
			e.b = append(e.b, `{"response":{"message":`...)
			e.message(&r.Response.Message)
			e.key(false, "stopReason")
		}
		e.str(string(r.Response.StopReason))
		e.b = append(e.b, '}')
		if r.ResponseKind != "" {
			e.key(false, "responseKind")
			e.str(r.ResponseKind)
		}
		e.key(false, "toolCallsCount")
		e.int(int64(r.ToolCallsCount))
		e.b = append(e.b, '}')
	}
	if b := ev.Batch; b != nil {
		e.key(false, "batch")
		e.b = append(e.b, `{"batchId":`...)
		e.str(b.BatchID)
		e.key(false, "mode")
		e.str(b.Mode)
		e.key(false, "maxConcurrency")
		e.int(int64(b.MaxConcurrency))
		e.key(false, "requestCount")
		e.int(int64(b.RequestCount))
		e.key(false, "tools")
		e.strings(b.Tools)
		e.b = append(e.b, '}')
	}
	if t := ev.Tool; t != nil {
		e.key(false, "tool")
		e.tool(t)
	}
	if m := ev.Mutation; m != nil {
		e.key(false, "mutation")
		e.b = append(e.b, `{"kind":`...)
		e.str(m.Kind)
		e.key(false, "index")
		e.int(int64(m.Index))
		e.b = append(e.b, '}')
	}
	if m := ev.Message; m != nil {
		e.key(false, "message")
		e.message(m)
	}
	if e.messageRef != 0 {
		e.key(false, "messageRef")
		e.b = append(e.b, `{"sequence":`...)
		e.int(e.messageRef)
		e.b = append(e.b, '}')
	}
	if hasRequest {
		e.key(false, "request")
		request(e)
	}
	e.b = append(e.b, '}')
}

func (e *jsonAppender) strings(ss []string) { array(e, ss, func(s *string) { e.str(*s) }) }

// array appends xs as encoding/json does a slice (null when nil), each element by each.
func array[T any](e *jsonAppender, xs []T, each func(*T)) {
	if xs == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i := range xs {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		each(&xs[i])
	}
	e.b = append(e.b, ']')
}

func (e *jsonAppender) rawPayload(p *llm.RawPayloadEvent) {
	e.b = append(e.b, `{"provider":`...)
	e.str(p.Provider)
	if p.APISurface != "" {
		e.key(false, "apiSurface")
		e.str(p.APISurface)
	}
	e.key(false, "payloadKind")
	e.str(string(p.PayloadKind))
	if p.Sequence != 0 {
		e.key(false, "sequence")
		e.int(p.Sequence)
	}
	e.key(false, "payload")
	e.raw(p.Payload)
	if len(p.Metadata) > 0 {
		e.key(false, "metadata")
		e.anyMap(p.Metadata)
	}
	e.b = append(e.b, '}')
}

func (e *jsonAppender) tool(t *agent.ToolEventData) {
	e.b = append(e.b, `{"batchId":`...)
	e.str(t.BatchID)
	e.key(false, "index")
	e.int(int64(t.Index))
	e.key(false, "toolName")
	e.str(t.ToolName)
	e.key(false, "toolCallId")
	e.str(t.ToolCallID)
	if len(t.Parameters) > 0 {
		e.key(false, "parameters")
		e.raw(t.Parameters)
	}
	if len(t.OwnerPath) > 0 {
		e.key(false, "ownerPath")
		e.b = append(e.b, '[')
		for i, s := range t.OwnerPath {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, `{"ownerType":`...)
			e.str(s.OwnerType)
			e.key(false, "ownerId")
			e.str(s.OwnerID)
			e.b = append(e.b, '}')
		}
		e.b = append(e.b, ']')
	}
	if r := t.Result; r != nil {
		e.key(false, "result")
		e.b = append(e.b, `{"success":`...)
		e.bool(r.Success)
		if r.Output != "" {
			e.key(false, "output")
			e.str(r.Output)
		}
		if r.Error != "" {
			e.key(false, "error")
			e.str(r.Error)
		}
		if len(r.Metadata) > 0 {
			e.key(false, "metadata")
			e.anyMap(r.Metadata)
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
}

func (e *jsonAppender) messages(ms []llm.Message) { array(e, ms, e.message) }

func (e *jsonAppender) message(m *llm.Message) {
	e.b = append(e.b, `{"id":`...)
	e.str(m.ID)
	e.key(false, "role")
	e.str(string(m.Role))
	e.key(false, "state")
	e.str(string(m.State))
	e.key(false, "content")
	array(e, m.Content, e.part)
	if u := m.Usage; u != nil {
		e.key(false, "usage")
		e.b = append(e.b, `{"inputTokens":`...)
		e.int(int64(u.InputTokens))
		e.key(false, "outputTokens")
		e.int(int64(u.OutputTokens))
		if u.CacheCreationInputTokens != 0 {
			e.key(false, "cacheCreationInputTokens")
			e.int(int64(u.CacheCreationInputTokens))
		}
		if u.CacheReadInputTokens != 0 {
			e.key(false, "cacheReadInputTokens")
			e.int(int64(u.CacheReadInputTokens))
		}
		e.b = append(e.b, '}')
	}
	if len(m.Metadata) > 0 {
		e.key(false, "metadata")
		e.anyMap(m.Metadata)
	}
	if !m.CreatedAt.IsZero() {
		e.key(false, "createdAt")
		e.time(m.CreatedAt)
	}
	e.b = append(e.b, '}')
}

func (e *jsonAppender) part(p *llm.Part) {
	e.b = append(e.b, `{"type":`...)
	e.str(string(p.Type))
	if p.Text != "" {
		e.key(false, "text")
		e.str(p.Text)
	}
	if p.Signature != "" {
		e.key(false, "signature")
		e.str(p.Signature)
	}
	if c := p.ToolCall; c != nil {
		e.key(false, "toolCall")
		e.b = append(e.b, `{"id":`...)
		e.str(c.ID)
		e.key(false, "name")
		e.str(c.Name)
		if len(c.Input) > 0 {
			e.key(false, "input")
			e.raw(c.Input)
		}
		e.b = append(e.b, '}')
	}
	if r := p.ToolResult; r != nil {
		e.key(false, "toolResult")
		e.b = append(e.b, `{"toolCallId":`...)
		e.str(r.ToolCallID)
		if r.ToolName != "" {
			e.key(false, "toolName")
			e.str(r.ToolName)
		}
		e.key(false, "content")
		e.str(r.Content)
		if r.IsError {
			e.key(false, "isError")
			e.bool(true)
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
}

func (e *jsonAppender) tools(ts []llm.ToolSchema) {
	array(e, ts, func(t *llm.ToolSchema) {
		e.b = append(e.b, `{"name":`...)
		e.str(t.Name)
		e.key(false, "description")
		e.str(t.Description)
		e.key(false, "inputSchema")
		e.raw(t.InputSchema)
		e.b = append(e.b, '}')
	})
}

// request appends agent.ProviderRequestData.MarshalJSON's text.
func (e *jsonAppender) request(d *agent.ProviderRequestData) {
	e.b = append(e.b, `{"provider":`...)
	e.str(d.Provider)
	e.key(false, "model")
	e.str(d.Model)
	if d.Purpose != "" {
		e.key(false, "purpose")
		e.str(string(d.Purpose))
	}
	newMessages := d.Messages
	if b := d.Base; b != nil {
		e.key(false, "base")
		e.b = append(e.b, `{"executionId":`...)
		e.str(b.ExecutionID)
		e.key(false, "round")
		e.int(int64(b.Round))
		e.key(false, "messages")
		e.int(int64(b.Messages))
		if b.Tools {
			e.key(false, "tools")
			e.bool(true)
		}
		e.b = append(e.b, '}')
		if d.Omitted() == 0 {
			newMessages = d.Messages[min(b.Messages, len(d.Messages)):]
		}
	}
	e.key(false, "messageCount")
	e.int(int64(d.Omitted() + len(d.Messages)))
	e.key(false, "newMessages")
	if newMessages == nil {
		newMessages = []llm.Message{}
	}
	e.messages(newMessages)
	if d.Base == nil || !d.Base.Tools {
		e.key(false, "tools")
		e.tools(d.Tools)
	}
	e.b = append(e.b, '}')
}

// historyRequest appends json.Marshal(w)'s text.
func (e *jsonAppender) historyRequest(w *historyRequestWire) {
	e.b = append(e.b, `{"provider":`...)
	e.str(w.Provider)
	e.key(false, "model")
	e.str(w.Model)
	if w.Purpose != "" {
		e.key(false, "purpose")
		e.str(string(w.Purpose))
	}
	e.key(false, "base")
	e.b = append(e.b, `{"history":`...)
	e.bool(w.Base.History)
	e.key(false, "messages")
	e.int(int64(w.Base.Messages))
	if len(w.Base.Replaced) > 0 {
		e.key(false, "replaced")
		e.b = append(e.b, '[')
		for i := range w.Base.Replaced {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, `{"index":`...)
			e.int(int64(w.Base.Replaced[i].Index))
			e.key(false, "message")
			e.message(&w.Base.Replaced[i].Message)
			e.b = append(e.b, '}')
		}
		e.b = append(e.b, ']')
	}
	e.b = append(e.b, '}')
	e.key(false, "messageCount")
	e.int(int64(w.MessageCount))
	e.key(false, "newMessages")
	e.messages(w.NewMessages)
	e.key(false, "tools")
	e.tools(w.Tools)
	e.b = append(e.b, '}')
}

// anyMap appends a map[string]any as json.Marshal does: keys sorted. (The line sorts the
// members again, but two names that differ only in invalid UTF-8 become one, and of a
// repeated name the last counts: the order is encoding/json's so that the same one does.)
func (e *jsonAppender) anyMap(m map[string]any) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	e.b = append(e.b, '{')
	for i, k := range keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(k)
		e.b = append(e.b, ':')
		e.any(m[k])
	}
	e.b = append(e.b, '}')
}

// any appends a metadata value; types other than JSON's own are left to JSON v2 with
// encoding/json's semantics (marshal), whose text for a value is the same at the top
// level as inside a map.
func (e *jsonAppender) any(v any) {
	switch v := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
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
		b, err := marshal(v)
		if err != nil {
			e.ok = false
			return
		}
		e.b = append(e.b, b...)
	}
}

// float is encoding/json's float64 encoding (ES6 number to string; NaN and infinities
// refused).
func (e *jsonAppender) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.ok = false
		return
	}
	e.b = jsontext.AppendFloat(e.b, f, 64)
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
