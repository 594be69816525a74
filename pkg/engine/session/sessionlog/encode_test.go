package sessionlog

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// gen builds values from fuzz input: every choice takes the next byte (0 once the input
// is used up), so the fuzzer steers the shape and the strings.
type gen struct {
	b []byte
	i int
}

func (g *gen) byte() byte {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return g.b[g.i-1]
}

func (g *gen) n(k int) int { return int(g.byte()) % k }

var specialStrings = []string{"", "plain", "<b> & </b>", "line\u2028sep\u2029", "\x00\x01\x1f\x7f", "\"q\" \\ /",
	"\xff\xfe invalid", "é ü 日本 😀", "\b\f\n\r\t", "sk-ant-api03-" + strings.Repeat("A", 90),
	"ghp_0123456789abcdefghijABCDEFGHIJ012345", "\ufffd", "\xe2\x80", "\xe2\x80\xa8", strings.Repeat("long text ", 500)}

func (g *gen) str() string {
	switch g.n(4) {
	case 0:
		return specialStrings[g.n(len(specialStrings))]
	case 1:
		k := g.n(24)
		var s []byte
		for range k {
			s = append(s, g.byte())
		}
		return string(s)
	case 2:
		return specialStrings[g.n(len(specialStrings))] + g.str()
	}
	return ""
}

var specialRaw = []string{`{"a":1}`, ` { "x" : [ 1 , 2.5e10 , "<&>" , true , null ] } `, `"\u2028 \u003c"`,
	"\"\xe2\x80\xa8 raw sep\"", `[]`, `{}`, `null`, `{"k":"a\"b\\"}`, "\t\n[ \"x y\" ]\r\n", `{"bad"`, `nope`,
	`{"properties":{"api_key":{"type":"string"}}}`, `{"api_key":"sk-123456789012345678901234"}`, `-0.0e+5`}

func (g *gen) raw() json.RawMessage {
	switch g.n(4) {
	case 0:
		return nil
	case 1:
		return json.RawMessage{}
	}
	return json.RawMessage(specialRaw[g.n(len(specialRaw))])
}

func (g *gen) time() time.Time {
	switch g.n(6) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(2026, 3, 1, 12, 0, 0, g.n(256)*1000003, time.UTC)
	case 2:
		return time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("x", (g.n(60)-30)*1800+g.n(3)*17))
	case 3:
		return time.Date(10000+g.n(3), 1, 1, 0, 0, 0, 0, time.UTC)
	case 4:
		return time.Date(2026, 3, 1, 12, 0, 0, 5, time.FixedZone("big", 24*3600+60*g.n(3)))
	}
	return time.Unix(int64(g.n(256))<<24, int64(g.n(256))).Add(time.Duration(g.n(256)) * time.Hour) // local, monotonic-free
}

func (g *gen) any(depth int) any {
	switch g.n(12) {
	case 0:
		return nil
	case 1:
		return g.str()
	case 2:
		return g.n(2) == 1
	case 3:
		return g.n(256) - 128
	case 4:
		return []float64{0, 1.5, -2e-7, 1e21, 123456789.125, math.NaN(), 1e-6, 5e-324, math.Inf(1)}[g.n(9)]
	case 5:
		if depth < 3 {
			return g.metadata(depth + 1)
		}
	case 6:
		if depth < 3 {
			var a []any
			if g.n(2) == 1 {
				a = []any{}
			}
			for range g.n(4) {
				a = append(a, g.any(depth+1))
			}
			return a
		}
	case 7:
		return int64(g.n(256)) << 40
	case 8:
		return []string{"a", "<"}
	case 9:
		return json.Number("12.50")
	case 10:
		return map[string]int{"z": 1, "a": 2}
	}
	return uint8(g.n(256))
}

func (g *gen) metadata(depth int) map[string]any {
	switch g.n(3) {
	case 0:
		return nil
	case 1:
		return map[string]any{}
	}
	m := map[string]any{}
	for range g.n(6) + 1 {
		m[g.str()] = g.any(depth)
	}
	return m
}

func (g *gen) message() llm.Message {
	m := llm.Message{ID: g.str(), Role: llm.Role(g.str()), State: llm.MessageState(g.str()), CreatedAt: g.time()}
	switch g.n(3) {
	case 0:
	case 1:
		m.Content = []llm.Part{}
	default:
		for range g.n(4) + 1 {
			m.Content = append(m.Content, g.part())
		}
	}
	if g.n(2) == 1 {
		m.Usage = &llm.Usage{InputTokens: g.n(256), OutputTokens: g.n(256) - 5, CacheCreationInputTokens: g.n(3),
			CacheReadInputTokens: g.n(3)}
	}
	m.Metadata = g.metadata(0)
	return m
}

func (g *gen) part() llm.Part {
	p := llm.Part{Type: llm.PartType(g.str()), Text: g.str(), Signature: g.str()}
	if g.n(2) == 1 {
		p.ToolCall = &llm.ToolCall{ID: g.str(), Name: g.str(), Input: g.raw()}
	}
	if g.n(2) == 1 {
		p.ToolResult = &llm.ToolResultPart{ToolCallID: g.str(), ToolName: g.str(), Content: g.str(), IsError: g.n(2) == 1}
	}
	return p
}

func (g *gen) messages() []llm.Message {
	var ms []llm.Message
	switch g.n(3) {
	case 0:
		return nil
	case 1:
		ms = []llm.Message{}
	}
	for range g.n(4) {
		ms = append(ms, g.message())
	}
	return ms
}

func (g *gen) tools() []llm.ToolSchema {
	if g.n(3) == 0 {
		return nil
	}
	ts := []llm.ToolSchema{}
	for range g.n(3) {
		ts = append(ts, llm.ToolSchema{Name: g.str(), Description: g.str(), InputSchema: g.raw()})
	}
	return ts
}

func (g *gen) request() *agent.ProviderRequestData {
	r := &agent.ProviderRequestData{Provider: g.str(), Model: g.str(), Purpose: llm.Purpose(g.str()),
		Messages: g.messages(), Tools: g.tools()}
	if g.n(2) == 1 {
		r.Base = &agent.RequestBase{ExecutionID: g.str(), Round: g.n(5), Messages: g.n(6), Tools: g.n(2) == 1}
	}
	if g.n(4) == 0 { // a request decoded from a delta line: Messages holds only the new ones
		b, err := json.Marshal(r)
		if err == nil {
			var d agent.ProviderRequestData
			if json.Unmarshal(b, &d) == nil {
				return &d
			}
		}
	}
	return r
}

func (g *gen) preRun() PreRunData {
	return PreRunData{Provider: g.str(), Input: g.str(), HistoryLength: g.n(256) - 1,
		NativeWebTools: NativeWebState{WebSearch: llm.NativeToolSupport{Supported: g.n(2) == 1, Enabled: g.n(2) == 1},
			WebFetch: llm.NativeToolSupport{Supported: g.n(2) == 1, Enabled: g.n(2) == 1}}}
}

// assistant is the assistant data of history, described from a fuzzed index, with
// content text (the last message's text, for refs.go, or any).
func (g *gen) assistant(history []llm.Message, text string) AssistantData {
	d := NewAssistantData(text, history, g.n(4)-1)
	switch g.n(4) {
	case 0:
		d.HistoryStructure = nil
	case 1:
		for i := range d.HistoryStructure {
			if g.n(2) == 1 {
				d.HistoryStructure[i].ToolCallNames = nil
			}
		}
	}
	return d
}

func (g *gen) event() agent.Event {
	ev := agent.Event{Type: agent.EventType(g.str()), ExecutionID: g.str(), ConversationID: g.str(),
		Round: g.n(256) - 3, Sequence: int64(g.n(256)) << 33, Timestamp: g.time()}
	for _, f := range []func(){
		func() { ev.Request = g.request() },
		func() {
			ev.RawPayload = &llm.RawPayloadEvent{Provider: g.str(), APISurface: g.str(),
				PayloadKind: llm.PayloadKind(g.str()), Sequence: int64(g.n(4)), Payload: g.raw(), Metadata: g.metadata(0)}
		},
		func() { ev.Delta = &agent.DeltaData{Sequence: int64(g.n(256)), Delta: g.str()} },
		func() {
			ev.Response = &agent.ResponseData{Response: llm.ChatResponse{Message: g.message(),
				StopReason: llm.StopReason(g.str())}, ResponseKind: g.str(), ToolCallsCount: g.n(4)}
		},
		func() {
			b := &agent.BatchData{BatchID: g.str(), Mode: g.str(), MaxConcurrency: g.n(9), RequestCount: g.n(9)}
			if g.n(3) > 0 {
				b.Tools = []string{}
				for range g.n(3) {
					b.Tools = append(b.Tools, g.str())
				}
			}
			ev.Batch = b
		},
		func() {
			t := &agent.ToolEventData{BatchID: g.str(), Index: g.n(9), ToolName: g.str(), ToolCallID: g.str(),
				Parameters: g.raw()}
			if g.n(3) > 0 {
				t.OwnerPath = []agent.OwnerPathSegment{}
				for range g.n(3) {
					t.OwnerPath = append(t.OwnerPath, agent.OwnerPathSegment{OwnerType: g.str(), OwnerID: g.str()})
				}
			}
			if g.n(2) == 1 {
				t.Result = &llm.ToolResult{Success: g.n(2) == 1, Output: g.str(), Error: g.str(), Metadata: g.metadata(0)}
			}
			ev.Tool = t
		},
		func() { ev.Mutation = &agent.MutationData{Kind: g.str(), Index: g.n(99)} },
		func() { m := g.message(); ev.Message = &m },
	} {
		if g.n(3) == 0 {
			f()
		}
	}
	return ev
}

// checkEncoding fails t when the encoder's text for data is not, to encoding/json's
// decoder (the oracle), the value marshalDataReflect's (json.Marshal's) text is, or when
// it takes a value json.Marshal refuses.
func checkEncoding(t *testing.T, data any) {
	t.Helper()
	want, wantErr := marshalDataReflect(data)
	var got []byte
	var ok bool
	switch d := data.(type) {
	case agent.Event:
		got, ok = appendEventJSON([]byte("prefix"), d)
	case historyRequestEvent:
		got, ok = appendHistoryRequestJSON([]byte("prefix"), d)
	case llm.Message, PreRunData, AssistantData:
		var err error
		got, err = appendData([]byte("prefix"), d) // JSON v2 (appendJSON)
		ok = err == nil
	default:
		t.Fatalf("no encoder for %T", data)
	}
	if wantErr != nil {
		if ok {
			t.Fatalf("encoder took what json.Marshal refuses (%v):\n%s", wantErr, got)
		}
		return
	}
	if !ok {
		t.Fatalf("encoder refused what json.Marshal takes:\n%s", want)
	}
	if !bytes.HasPrefix(got, []byte("prefix")) {
		t.Fatalf("encoder dropped what dst held: %q", got)
	}
	checkSameJSON(t, "encoder", got[len("prefix"):], want)
}

func encodeSeeds(f *testing.F) {
	for _, s := range []string{"", "\x00\x00\x00", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a",
		strings.Repeat("\x02\x03", 60), strings.Repeat("\x00\x01\x02", 80), strings.Repeat("\xff\x07\x31", 90)} {
		f.Add([]byte(s))
	}
}

func TestEncoderTable(t *testing.T) {
	msg := llm.Message{ID: "m", Role: llm.RoleUser, State: llm.StateComplete,
		Content: []llm.Part{llm.TextPart("<b> & \u2028"), llm.ToolUsePart(llm.ToolCall{ID: "c", Name: "Read",
			Input: json.RawMessage(" {\"path\" : \"a<b>\"} ")})},
		Metadata: map[string]any{"z": 1.5, "a": []any{"x", nil, map[string]any{"k": 1e-7}}}, CreatedAt: time.Now()}
	req := &agent.ProviderRequestData{Provider: "p", Model: "x", Messages: []llm.Message{msg, msg},
		Tools: []llm.ToolSchema{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Base:  &agent.RequestBase{ExecutionID: "e0", Round: 1, Messages: 1, Tools: true}}
	plain := *req
	plain.Base = nil
	for _, data := range []any{
		agent.Event{Type: agent.EventProviderRequest, ExecutionID: "e", Round: 2, Request: req, Timestamp: time.Now()},
		agent.Event{Type: agent.EventProviderRequest, Request: &plain},
		agent.Event{Type: agent.EventHistoryMutation, Message: &msg, Mutation: &agent.MutationData{Kind: "append", Index: 3}},
		agent.Event{Type: agent.EventProviderRequest},
		historyRequestEvent{ev: agent.Event{Type: agent.EventProviderRequest, ExecutionID: "e", Request: &plain},
			wire: historyRequestWire{Provider: "p", Base: historyBase{History: true, Messages: 1,
				Replaced: []IndexedMessage{{Index: 0, Message: msg}}}, MessageCount: 2,
				NewMessages: []llm.Message{msg}, Tools: []llm.ToolSchema{}}},
	} {
		checkEncoding(t, data)
	}
}

// FuzzEventEncoding: the encoder writes json.Marshal's value for any event.
func FuzzEventEncoding(f *testing.F) {
	encodeSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		g := &gen{b: in}
		ev := g.event()
		checkEncoding(t, ev)
		checkEncoding(t, g.message())
		checkEncoding(t, g.preRun())
		checkEncoding(t, g.assistant(g.messages(), g.str()))
		if ev.Request != nil {
			checkEncoding(t, historyRequestEvent{ev: ev, wire: historyRequestWire{Provider: g.str(), Model: g.str(),
				Purpose: llm.Purpose(g.str()), Base: historyBase{History: g.n(2) == 1, Messages: g.n(4),
					Replaced: []IndexedMessage{{Index: g.n(3), Message: g.message()}}[:g.n(2)]},
				MessageCount: g.n(9), NewMessages: g.messages(), Tools: g.tools()}})
		}
	})
}

var lineEvents = []string{EventProviderRequest, EventProviderResponseRaw, EventProviderResponseNormalized,
	EventHistoryMutation, EventAssistantMessageCommitted, EventToolExecutionResult, EventProviderNativeRawPayload,
	EventProviderStreamRawDelta, EventTextDelta, "tool_batch_started"}

// FuzzEncodedLines: a sequence of events logged through a FileLogger makes the same
// files with the encoder as with json.Marshal.
func FuzzEncodedLines(f *testing.F) {
	encodeSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		g := &gen{b: in}
		threshold := []int{-1, 0, 300, 4096}[g.n(4)]
		type logged struct {
			event string
			data  any
		}
		var evs []logged
		for range g.n(6) + 1 {
			ev := g.event()
			if g.n(2) == 1 { // the shape the agent logs: history_mutation with its message and index
				m := g.message()
				ev.Message, ev.Mutation = &m, &agent.MutationData{Kind: "append", Index: g.n(4)}
			}
			evs = append(evs, logged{lineEvents[g.n(len(lineEvents))], ev})
			if g.n(2) == 0 { // a round's answer, logged again as its later lines do (refs.go)
				m := g.message()
				if g.n(4) > 0 {
					m.Content = []llm.Part{llm.TextPart(g.str())}
				}
				if g.n(4) > 0 {
					m.Role = llm.RoleAssistant
				}
				raw := agent.Event{Type: agent.EventProviderResponseRaw, ExecutionID: ev.ExecutionID, Round: ev.Round,
					Response: &agent.ResponseData{Response: llm.ChatResponse{Message: m, StopReason: "end"}, ToolCallsCount: g.n(2)}}
				norm := raw
				norm.Type, norm.Timestamp = agent.EventProviderResponseNormalized, g.time()
				if g.n(3) == 0 {
					n := g.message()
					norm.Message = &n
				}
				hist := agent.Event{Type: agent.EventHistoryMutation, ExecutionID: ev.ExecutionID, Round: ev.Round,
					Message: &m, Mutation: &agent.MutationData{Kind: "append", Index: g.n(4)}}
				commit := hist
				commit.Type, commit.Mutation, commit.Tool = agent.EventAssistantMessageCommitted, nil, ev.Tool
				text := m.Text()
				if g.n(4) == 0 {
					text = g.str()
				}
				evs = append(evs, logged{EventProviderResponseRaw, raw}, logged{EventProviderResponseNormalized, norm},
					logged{EventHistoryMutation, hist}, logged{EventAssistantMessageCommitted, commit},
					logged{EventAssistant, g.assistant(append(g.messages(), m), text)})
			}
			if g.n(4) == 0 {
				evs = append(evs, logged{EventPreRun, g.preRun()})
			}
		}
		files := func(reflect bool) map[string][]byte {
			if reflect {
				oracleEncoding = marshalDataReflect
				defer func() { oracleEncoding = nil }()
			}
			dir := t.TempDir()
			l, err := Open(dir, "s", Options{Now: func() time.Time { return time.Unix(1e9, 0).UTC() },
				InlineThreshold: threshold})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				_ = l.Append(e.event, e.data)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			out := map[string][]byte{}
			_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					b, _ := os.ReadFile(p)
					out[strings.TrimPrefix(p, dir)] = b
				}
				return nil
			})
			return out
		}
		want, got := files(true), files(false)
		if len(got) != len(want) {
			t.Fatalf("files %d, want %d", len(got), len(want))
		}
		for name, w := range want {
			if !bytes.Equal(got[name], w) {
				t.Fatalf("%s:\n%s\nwant:\n%s", name, got[name], w)
			}
		}
	})
}

// marshalDataReflect is the oracle of the log's encoding: encoding/json's json.Marshal of
// data, a provider request by its own MarshalJSON (which uses encoding/json) placed as
// data.request.
func marshalDataReflect(data any) ([]byte, error) {
	switch d := data.(type) {
	case nil:
		return nil, nil
	case agent.Event:
		if d.Request != nil {
			req, err := d.Request.MarshalJSON()
			if err != nil {
				return nil, err
			}
			return withRequest(d, req)
		}
	case historyRequestEvent:
		w, err := json.Marshal(d.wire)
		if err != nil {
			return nil, err
		}
		return withRequest(d.ev, w)
	}
	return json.Marshal(data)
}

// withRequest is ev's JSON with request as data.request: json.Marshal(ev) gives the same
// members (in another order) when request is ev.Request's JSON.
func withRequest(ev agent.Event, request []byte) ([]byte, error) {
	ev.Request = nil
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSuffix(bytes.TrimSpace(b), []byte("}"))
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(append(append(b, `"request":`...), request...), '}')
	return b, nil
}
