package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// checkRedactedLikeTree fails when appendRedacted takes raw and writes anything but what
// the tree path writes, to the oracle: encoding/json's tree of raw, redacted, encoded by
// encoding/json, and appendRedacted's text decode (by encoding/json) to the same value.
func checkRedactedLikeTree(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := appendRedacted([]byte("prefix"), raw)
	tree, err := stdTree(raw)
	if !ok {
		// Refused: only invalid text, a member name redaction changes, or nesting
		// deeper than maxCanonDepth.
		if err == nil && !renamesMember(tree) && treeDepth(tree) <= maxCanonDepth {
			t.Fatalf("appendRedacted refused %q", raw)
		}
		return
	}
	if err != nil {
		t.Fatalf("appendRedacted took %q, encoding/json refuses it: %v", raw, err)
	}
	want, err := stdEncode(redact.Value(tree))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("prefix")) {
		t.Fatalf("appendRedacted(%q) dropped what dst held: %q", raw, got)
	}
	checkSameJSON(t, fmt.Sprintf("appendRedacted(%q)", raw), got[len("prefix"):], want)
}

func treeDepth(v any) int {
	d := 0
	switch t := v.(type) {
	case map[string]any:
		for _, c := range t {
			d = max(d, treeDepth(c))
		}
		return d + 1
	case []any:
		for _, c := range t {
			d = max(d, treeDepth(c))
		}
		return d + 1
	}
	return 0
}

func renamesMember(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if redact.Name(k) != k || renamesMember(c) {
				return true
			}
		}
	case []any:
		for _, c := range t {
			if renamesMember(c) {
				return true
			}
		}
	}
	return false
}

var redactedSamples = []string{
	`{"b":"x","a":{"apiKey":"sk-ant-api03-abcdefghijkl","token":"","password":null,"secret":true,"authToken":12,"cookie":{"a":1}}}`,
	`{"properties":{"password":{"type":"string"},"token":"v"},"nested":{"properties":"x","z":[{"properties":{"apiKey":{}}}]}}`,
	`{"text":"my key is sk-ant-api03-abcdefghijklmnop and Bearer abcdefghijkl","arr":["OPENAI_API_KEY=abc123", "{\"token\":\"t\"}"]}`,
	`{"input":"{\"b\":1,\"a\":\"x\"}","doc":"[{\"password\":\"p\"}]"}`,
	`{"a":1,"a":{"password":"p"},"b":[],"c":{}}`,
	`{"a":1,"a":2,"a":"sk-ant-api03-abcdefghijkl"}`,
	`{"token":"[REDACTED]","x":"\u003chtml\u003e \u0026 \u2028"}`,
	`{"sk-ant-api03-abcdefghijklmnop":"key as a name"}`,
	`[1,-2.5e3,true,false,null,"s",{"z":0,"y":[[]]}]`,
	`"AIza` + "0123456789012345678901234567890123" + `"`,
	strings.Repeat(`{"a":`, 64) + "1" + strings.Repeat("}", 64),
	strings.Repeat(`[`, 65) + strings.Repeat("]", 65),
	`{"a":tru}`, `{"a":1,"a":x}`, `{"a":"\x"}`, `[1,2`, `{"a" 1}`,
}

func TestAppendRedactedMatchesTheTree(t *testing.T) {
	for _, s := range append(redactedSamples, treeSamples...) {
		checkRedactedLikeTree(t, []byte(s))
	}
}

// FuzzAppendRedacted compares appendRedacted with the tree path on any text, and on
// json.Marshal's form of it.
func FuzzAppendRedacted(f *testing.F) {
	for _, s := range append(redactedSamples, treeSamples...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkRedactedLikeTree(t, raw)
		if json.Valid(raw) {
			m, err := json.Marshal(json.RawMessage(raw))
			if err != nil {
				t.Fatal(err)
			}
			checkRedactedLikeTree(t, m)
		}
	})
}
