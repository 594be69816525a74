package sessionlog

import (
	"bytes"
	stdjson "encoding/json"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// A turn's data (agent.Event values, messages, PreRunData, AssistantData and whatever
// else a caller logs) is encoded by JSON v2 (github.com/go-json-experiment/json): it
// caches each type's encoder, writes into the caller's buffer through jsontext, and
// formats times and numbers without allocating. The types are tagged for encoding/json, so it runs with encoding/json's
// meaning of those tags and of nil (marshalOptions); encode_test.go decodes its text and
// json.Marshal's and compares the values, also under fuzzing. What it refuses (a NaN,
// invalid raw JSON, a time outside RFC 3339), json.Marshal refuses too.

// marshalOptions are encoding/json's meaning of the data's struct tags and values:
// omitempty leaves out false and 0 too, a nil slice or map is null (map members are
// not sorted here: the line sorts them, canonical.go and tree.go), invalid UTF-8 becomes
// U+FFFD, an
// encoding/json Number is a number; a provider request is written in its delta form
// without its MarshalJSON (which would encode it with encoding/json, and v2 would check
// that text again).
var marshalOptions = json.JoinOptions(
	jsonv1.OmitEmptyWithLegacySemantics(true),
	json.FormatNilSliceAsNull(true),
	json.FormatNilMapAsNull(true),
	jsontext.AllowInvalidUTF8(true),
	jsonv1.FormatDurationAsNano(true),
	jsonv1.FormatByteArrayAsArray(true),
	json.WithMarshalers(json.JoinMarshalers(
		json.MarshalToFunc(marshalNumber),
		json.MarshalToFunc(marshalRequest),
	)),
)

// marshalNumber writes an encoding/json Number as encoding/json does: "" as 0.
func marshalNumber(enc *jsontext.Encoder, n stdjson.Number) error {
	if n == "" {
		n = "0"
	}
	return enc.WriteValue(jsontext.Value(n))
}

// requestWire is agent.ProviderRequestData's JSON form (its MarshalJSON's): messageCount
// is the length of the whole list, newMessages the messages after the base's shared
// ones (all of them without a base), tools left out when the base's are reused.
type requestWire struct {
	Provider     string             `json:"provider"`
	Model        string             `json:"model"`
	Purpose      llm.Purpose        `json:"purpose,omitempty"`
	Base         *agent.RequestBase `json:"base,omitempty"`
	MessageCount int                `json:"messageCount"`
	NewMessages  []llm.Message      `json:"newMessages"`
	Tools        *[]llm.ToolSchema  `json:"tools,omitempty"`
}

func marshalRequest(enc *jsontext.Encoder, d *agent.ProviderRequestData) error {
	if d == nil {
		return enc.WriteToken(jsontext.Null)
	}
	w := requestWire{Provider: d.Provider, Model: d.Model, Purpose: d.Purpose, Base: d.Base,
		MessageCount: d.Omitted() + len(d.Messages), NewMessages: d.Messages}
	if d.Base != nil && d.Omitted() == 0 {
		w.NewMessages = d.Messages[min(d.Base.Messages, len(d.Messages)):]
	}
	if w.NewMessages == nil {
		w.NewMessages = []llm.Message{}
	}
	if d.Base == nil || !d.Base.Tools {
		w.Tools = &d.Tools
	}
	return json.MarshalEncode(enc, &w)
}

// historyRequestJSON is a historyRequestEvent's JSON form: the event with its request
// replaced (the shallower request wins over agent.Event's).
type historyRequestJSON struct {
	agent.Event
	Request *historyRequestWire `json:"request"`
}

// referredJSON is an event whose message is referred to (refs.go): the reference in the
// message's place, the shallower response winning over agent.Event's.
type referredJSON struct {
	agent.Event
	Response   any      `json:"response,omitempty"`
	MessageRef *LineRef `json:"messageRef,omitempty"`
}

// referredResponse is agent.ResponseData with its message referred to.
type referredResponse struct {
	MessageRef LineRef `json:"messageRef"`
	Response   struct {
		StopReason llm.StopReason `json:"stopReason"`
	} `json:"response"`
	ResponseKind   string `json:"responseKind,omitempty"`
	ToolCallsCount int    `json:"toolCallsCount"`
}

// referredAssistantJSON is AssistantData with its content referred to.
type referredAssistantJSON struct {
	ContentRef       LineRef            `json:"contentRef"`
	HistoryLength    int                `json:"historyLength"`
	HistoryFrom      int                `json:"historyFrom"`
	HistoryStructure []MessageStructure `json:"historyStructure"`
}

// wireOf is the value whose JSON is data's in the log.
func wireOf(data any) any {
	switch d := data.(type) {
	case historyRequestEvent:
		return &historyRequestJSON{Event: d.ev, Request: &d.wire}
	case referredEvent:
		return d.wire()
	}
	return data
}

// wire is the value whose JSON is r's: refer has taken out of r.ev a message referred to
// by messageRef; one referred to by responseRef is left out here.
func (r *referredEvent) wire() any {
	if a := r.assistant; a != nil {
		if r.contentRef == 0 {
			return a
		}
		return &referredAssistantJSON{ContentRef: LineRef{r.contentRef}, HistoryLength: a.HistoryLength,
			HistoryFrom: a.HistoryFrom, HistoryStructure: a.HistoryStructure}
	}
	w := &referredJSON{Event: r.ev}
	if resp := r.ev.Response; resp != nil && r.responseRef != 0 {
		rr := &referredResponse{MessageRef: LineRef{r.responseRef}, ResponseKind: resp.ResponseKind,
			ToolCallsCount: resp.ToolCallsCount}
		rr.Response.StopReason = resp.Response.StopReason
		w.Response = rr
	} else if resp != nil {
		w.Response = resp
	}
	if r.messageRef != 0 {
		w.MessageRef = &LineRef{r.messageRef}
	}
	return w
}

// encoders recycles the jsontext encoders appendJSON writes with, and their buffers.
var encoders = sync.Pool{New: func() any { return new(bufferedEncoder) }}

type bufferedEncoder struct {
	jsontext.Encoder
	out bytes.Buffer
}

// appendJSON appends v's JSON (marshalOptions') to dst.
func appendJSON(dst []byte, v any) ([]byte, error) {
	e := encoders.Get().(*bufferedEncoder)
	defer encoders.Put(e)
	e.out = *bytes.NewBuffer(dst)
	e.Reset(&e.out, marshalOptions)
	err := json.MarshalEncode(&e.Encoder, v)
	out := e.out.Bytes()
	e.out = bytes.Buffer{}
	e.Reset(&e.out) // drop dst
	if err != nil {
		return nil, err
	}
	if len(out) > 0 && out[len(out)-1] == '\n' {
		out = out[:len(out)-1]
	}
	return out, nil
}
