package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// stdTree is the tree encoding/json makes of raw (what toSizedTree made before
// decodeTree).
func stdTree(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	// Only whitespace may follow, as json.Unmarshal checks (Decoder.More does not
	// look past a ']' or '}').
	if rest := bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, &json.SyntaxError{}
	}
	return v, nil
}

// stdEncode is what encodeJSON wrote before the log moved to jsontext (encoding/json's
// Encoder without HTML escaping).
func stdEncode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// checkSameJSON fails when got and want, JSON texts, are not the same value to
// encoding/json's decoder (the oracle: numbers compared as written).
func checkSameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	gotTree, err := stdTree(got)
	if err != nil {
		t.Fatalf("%s = %q: encoding/json refuses it: %v", what, got, err)
	}
	wantTree, err := stdTree(want)
	if err != nil {
		t.Fatalf("%s: the oracle's %q: %v", what, want, err)
	}
	if !reflect.DeepEqual(gotTree, wantTree) {
		t.Fatalf("%s = %s\nencoding/json %s", what, got, want)
	}
}

// checkTreeLikeStd fails when decodeTree or appendTree differs from encoding/json on raw:
// both take it or both refuse it, decodeTree makes the tree encoding/json's decoder
// makes, and appendTree's text of it decodes (by encoding/json) to that tree again.
func checkTreeLikeStd(t *testing.T, raw []byte) {
	t.Helper()
	want, stdErr := stdTree(raw)
	got, err := decodeTree(raw)
	if err == nil && stdErr != nil {
		t.Fatalf("decodeTree took %q, encoding/json refuses it: %v", raw, stdErr)
	}
	if err != nil {
		if stdErr == nil {
			t.Fatalf("decodeTree refused %q, encoding/json takes it: %v", raw, err)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeTree(%q) = %#v, encoding/json %#v", raw, got, want)
	}
	wantLine, err := stdEncode(want)
	if err != nil {
		t.Fatal(err)
	}
	gotLine, err := encodeJSON(got)
	if err != nil {
		t.Fatal(err)
	}
	checkSameJSON(t, "encodeJSON", gotLine, wantLine)
}

var treeSamples = []string{
	`null`, `true`, `false`, `0`, `-0.5e+10`, `1E3`, `""`, `"plain"`, `{}`, `[]`,
	`{"b":1,"a":[1,"x",null,{"z":true,"y":false}],"c":{"é":"ü","":""}}`,
	`{"a":1,"a":2}`,
	`"tab\tnl\ncr\rq\"bs\\sl\/bsp\bff\f\u0001\u001f"`,
	`"html <a href=\"x\">&amp;</a> \u003c\u003e\u0026"`,
	`"line sep \u2028 para \u2029 raw"`,
	`"surrogates \ud83d\ude00 lone \ud800 \udc00 x \ud800\u0041"`,
	"\"invalid utf8 \xff\xfe \xc3\x28 ok\"",
	"{\"k\xff\":\"v\"}",
	` { "spaced" : [ 1 , 2 ] } `,
	`[1,2]x`, `{"a":}`, `[1,]`, `01`, `"unterminated`, `{"a" 1}`, `nul`, `-`, `1.`, `1e`,
}

func TestTreeCodecMatchesEncodingJSON(t *testing.T) {
	for _, s := range treeSamples {
		checkTreeLikeStd(t, []byte(s))
	}
	// The typed data the session and the agent log, as json.Marshal gives it.
	msg := llm.Message{ID: "m", Role: llm.RoleAssistant, State: llm.StateComplete,
		Content: []llm.Part{llm.TextPart("a <b> & c\n\u2028"), llm.ToolUsePart(llm.ToolCall{ID: "c", Name: "Bash",
			Input: json.RawMessage(`{"command":"ls -la","z":1.50,"a":[true]}`)})},
		Usage: &llm.Usage{InputTokens: 10}, Metadata: map[string]any{"n": 1.25, "s": "x", "nested": map[string]any{"b": 1, "a": 2}},
		CreatedAt: time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC)}
	values := []any{
		agent.Event{Type: agent.EventHistoryMutation, ExecutionID: "e", Round: 2, Message: &msg,
			Mutation: &agent.MutationData{Kind: "append", Index: 3}},
		agent.Event{Type: agent.EventProviderRequest, Request: &agent.ProviderRequestData{Provider: "p", Messages: []llm.Message{msg}}},
		PreRunData{Provider: "script", Input: "hi", HistoryLength: 1},
		NewAssistantData("ok", []llm.Message{msg}, 0),
		TextDeltaData{Delta: "piece", ExecutionID: "e"},
	}
	for _, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		checkTreeLikeStd(t, raw)
	}
}

func TestAppendLineMatchesEncodingJSON(t *testing.T) {
	type lineEntry struct {
		SchemaVersion int       `json:"schemaVersion"`
		Sequence      int64     `json:"sequence"`
		Timestamp     time.Time `json:"timestamp"`
		SessionID     string    `json:"sessionId"`
		Event         EventType `json:"event"`
		Data          any       `json:"data,omitempty"`
	}
	stamps := []time.Time{time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 12, 0, 0, 10_000_000, time.UTC)}
	for _, data := range []any{nil, map[string]any{"b": json.Number("1"), "a": "x"}, liftedContent{"x"},
		map[string]any{"ref": PayloadRef{Kind: PayloadKind}, "n": 3, "m": int64(4)}, map[string]any(nil)} {
		for _, st := range stamps {
			want, err := stdEncode(lineEntry{SchemaVersion, 7, st, "sess-<1>", "text_delta", data})
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendLine(nil, 7, st, "sess-<1>", "text_delta", data)
			if err != nil {
				t.Fatal(err)
			}
			checkSameJSON(t, "appendLine", got, want)
		}
	}
}

// FuzzTreeCodec compares decodeTree and appendTree with encoding/json on any text, and
// on json.Marshal's form of it (what the logger decodes).
func FuzzTreeCodec(f *testing.F) {
	for _, s := range treeSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkTreeLikeStd(t, raw)
		if json.Valid(raw) {
			m, err := json.Marshal(json.RawMessage(raw))
			if err != nil {
				t.Fatal(err)
			}
			checkTreeLikeStd(t, m)
		}
	})
}

// TestMarshalDataIsJSONMarshal: the requests appendData encodes apart make the tree
// json.Marshal's text makes.
func TestMarshalDataIsJSONMarshal(t *testing.T) {
	msg := llm.Message{ID: "m", Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("<b> & \u2028")}}
	req := &agent.ProviderRequestData{Provider: "p", Model: "x", Messages: []llm.Message{msg, msg},
		Tools: []llm.ToolSchema{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Base:  &agent.RequestBase{ExecutionID: "e0", Round: 1, Messages: 1, Tools: true}}
	plain := *req
	plain.Base = nil
	for _, data := range []any{
		agent.Event{Type: agent.EventProviderRequest, ExecutionID: "e", Round: 2, Request: req},
		agent.Event{Type: agent.EventProviderRequest, Request: &plain},
		agent.Event{Type: agent.EventProviderRequest},
		historyRequestEvent{ev: agent.Event{Type: agent.EventProviderRequest, ExecutionID: "e", Request: &plain},
			wire: historyRequestWire{Provider: "p", Base: historyBase{History: true, Messages: 1}, MessageCount: 2,
				NewMessages: []llm.Message{msg}, Tools: []llm.ToolSchema{}}},
	} {
		want, err := marshalDataReflect(data) // json.Marshal's (the history request's wire in place)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendData(nil, data)
		if err != nil {
			t.Fatal(err)
		}
		wantTree, _ := stdTree(want)
		gotTree, err := stdTree(got)
		if err != nil {
			t.Fatalf("appendData(%T) is not JSON: %v: %s", data, err, got)
		}
		if !reflect.DeepEqual(gotTree, wantTree) {
			t.Fatalf("appendData = %s\njson.Marshal %s", got, want)
		}
	}
}

// TestAppendStringEveryByteEverywhere: every byte value, at every offset of a string, is
// encoded to the string encoding/json's encoding of it decodes to (invalid UTF-8 as
// U+FFFD).
func TestAppendStringEveryByteEverywhere(t *testing.T) {
	const pad = "abcdefghijklmnopqrstuvwxyz"
	for b := 0; b < 256; b++ {
		for pos := 0; pos <= 17; pos++ {
			for _, tail := range []string{"", "\u2028", "é"} {
				s := pad[:pos] + string([]byte{byte(b)}) + pad[pos:] + tail
				want, err := stdEncode(s)
				if err != nil {
					t.Fatal(err)
				}
				checkSameJSON(t, fmt.Sprintf("appendString(%q)", s), appendString(nil, s), want)
			}
		}
	}
}

func TestTextDeltaTreeIsToTree(t *testing.T) {
	for _, d := range []TextDeltaData{{}, {Delta: "a<b>\u2028é"}, {Delta: "x", ExecutionID: "e"}, {Delta: "x", Pieces: 3}, {Pieces: -1}} {
		want, err := toTree(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := textDeltaTree(d); !reflect.DeepEqual(any(got), want) {
			t.Fatalf("textDeltaTree(%+v) = %#v, toTree %#v", d, got, want)
		}
	}
}
