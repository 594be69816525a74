package sessionlog

import (
	"bytes"
	"encoding/json"
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
	if dec.More() {
		return nil, &json.SyntaxError{}
	}
	return v, nil
}

// stdEncode is what encodeJSON wrote before appendTree.
func stdEncode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// checkTreeLikeStd fails when decodeTree or appendTree differs from encoding/json on raw.
func checkTreeLikeStd(t *testing.T, raw []byte) {
	t.Helper()
	want, stdErr := stdTree(raw)
	got, ok := decodeTree(raw)
	if ok && stdErr != nil {
		t.Fatalf("decodeTree took %q, encoding/json refuses it: %v", raw, stdErr)
	}
	if !ok {
		// Refusing is allowed (toSizedTree then uses encoding/json) only for what
		// json.Marshal never returns.
		if stdErr == nil && json.Valid(raw) && len(raw) < 1000 && bytes.Equal(mustCompact(t, raw), raw) {
			t.Fatalf("decodeTree refused compact valid JSON %q", raw)
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
	if !bytes.Equal(gotLine, wantLine) {
		t.Fatalf("encodeJSON = %s, encoding/json %s", gotLine, wantLine)
	}
}

func mustCompact(t *testing.T, raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
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
			if !bytes.Equal(got, want) {
				t.Fatalf("appendLine = %s, encoding/json %s", got, want)
			}
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

// TestMarshalDataIsJSONMarshal: the requests marshalData encodes apart make the tree
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
		want, err := json.Marshal(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalData(data)
		if err != nil {
			t.Fatal(err)
		}
		wantTree, _ := stdTree(want)
		gotTree, err := stdTree(got)
		if err != nil {
			t.Fatalf("marshalData(%T) is not JSON: %v: %s", data, err, got)
		}
		if !reflect.DeepEqual(gotTree, wantTree) {
			t.Fatalf("marshalData = %s\njson.Marshal %s", got, want)
		}
	}
}

// TestAppendStringEveryByteEverywhere: every byte value, at every offset of the
// eight-byte runs appendString passes over, is encoded as encoding/json encodes it.
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
				if got := appendString(nil, s); !bytes.Equal(got, want) {
					t.Fatalf("appendString(%q) = %s, encoding/json %s", s, got, want)
				}
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
