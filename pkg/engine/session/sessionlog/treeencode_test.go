package sessionlog

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

func stdEncode(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// encodeJSON writes exactly what encoding/json writes (HTML escaping off) for trees, the
// values the logger puts in them, and lines.
func TestEncodeJSONMatchesEncodingJSON(t *testing.T) {
	var every []byte
	for c := range 256 {
		every = append(every, byte(c))
	}
	values := []any{
		nil, true, "", string(every), "\u2028\u2029\ufffd😀\xc3 é<>&", json.Number("-1.5e3"), json.Number(""), 3, int64(-7), 1.5, 1e21,
		map[string]any{}, []any{}, map[string]any(nil), []any(nil), map[string]any{"b": 1, "a": []any{"x", nil}, "\xff": "k", "<": ">"},
		PayloadRef{Kind: PayloadKind, Encoding: "json", SHA256: "ab", ByteLength: 2, RelativePath: "s.payloads/ab.json"},
		map[string]any{"ref": &PayloadRef{Kind: PayloadKind}, "n": map[string]string{"z": "1", "a": "2"}},
	}
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "é", "\u2028", "\x00", "\x1f", "\x7f", "\"", "\\", "/", "<", "&", "\xff", "\xc3", "😀", "\n", "\t", "\b", "\f", "\r"}
	for range 2000 {
		m := map[string]any{}
		for range r.IntN(5) {
			m[randString(r, pieces)] = []any{randString(r, pieces), json.Number("12"), r.IntN(2) == 0, nil}
		}
		values = append(values, m)
	}
	for _, v := range values {
		got, err := encodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if want := stdEncode(t, v); !bytes.Equal(got, want) {
			t.Fatalf("%#v:\n got  %s\n want %s", v, got, want)
		}
	}
	for _, e := range []lineEntry{
		{SchemaVersion: 1, Sequence: 42, Timestamp: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), SessionID: "s\"1", Event: "text_delta",
			Data: map[string]any{"delta": "x\ny", "pieces": 3}},
		{SchemaVersion: 1, Sequence: 1, Timestamp: time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC), SessionID: "s", Event: "session_shutdown"},
		{SchemaVersion: 1, Sequence: 1, Timestamp: time.Date(2026, 3, 1, 12, 0, 0, 1, time.FixedZone("x", 3600)), SessionID: "s", Event: "e", Data: map[string]any(nil)},
	} {
		got, err := encodeJSON(e)
		if err != nil {
			t.Fatal(err)
		}
		if want := stdEncode(t, e); !bytes.Equal(got, want) {
			t.Fatalf("line:\n got  %s\n want %s", got, want)
		}
	}
	if _, err := encodeJSON(json.Number("1x")); err == nil {
		t.Fatal("an invalid json.Number encoded without error")
	}
}
