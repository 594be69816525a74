package redact_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// leftoverPatterns are what must never survive redaction, whatever surrounds them.
var leftoverPatterns = []*regexp.Regexp{
	regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{8,}`),
	regexp.MustCompile(`\b(Bearer|bearer|BEARER)\s+[A-Za-z0-9\-._~+/]{8,}`),
}

// FuzzRedact embeds a known key and a bearer token in arbitrary text, in a string member
// of a JSON document, and (when the text is JSON) walks the text as a document. Properties:
// the key never survives, no key-shaped text survives, the output is JSON again, and
// redaction is idempotent.
func FuzzRedact(f *testing.F) {
	seeds := []struct{ prefix, suffix string }{
		{"", ""},
		{"my key is ", " thanks"},
		{`{"apiKey":"`, `"}`},
		{`{"nested":{"body":"{\"token\":\"`, `\"}"}}`},
		{"Authorization: Bearer ", "\n"},
		{"x", "y"},
		{`["`, `",1,true,null]`},
		{"OPENAI_API_KEY=", "&a=b"},
		{"\u2028\x00", "\\\""},
	}
	for _, s := range seeds {
		f.Add(s.prefix, s.suffix)
	}
	f.Fuzz(func(t *testing.T, prefix, suffix string) {
		text := prefix + anthropicKey + suffix + " Bearer " + bearerToken
		checkString(t, text)
		doc := map[string]any{"a": text, "b": []any{map[string]any{"c": text}}, prefix: suffix}
		checkTree(t, doc)
		var tree any
		dec := json.NewDecoder(strings.NewReader(prefix + suffix))
		dec.UseNumber()
		if dec.Decode(&tree) == nil {
			checkTree(t, tree)
		}
	})
}

func checkString(t *testing.T, text string) {
	out := redact.String(text)
	if strings.Contains(out, anthropicKey) || strings.Contains(out, bearerToken) {
		t.Fatalf("secret survived: %q -> %q", text, out)
	}
	for _, re := range leftoverPatterns {
		if m := re.FindString(out); m != "" {
			t.Fatalf("key-shaped text %q survived in %q", m, out)
		}
	}
	if again := redact.String(out); again != out {
		t.Fatalf("not idempotent: %q -> %q -> %q", text, out, again)
	}
}

func checkTree(t *testing.T, tree any) {
	out := redact.Value(tree)
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatalf("output is not JSON-encodable: %v", err)
	}
	var back any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("output does not parse: %v", err)
	}
	walkStrings(out, func(s string) {
		if strings.Contains(s, anthropicKey) || strings.Contains(s, bearerToken) {
			t.Fatalf("secret survived in tree string %q", s)
		}
		for _, re := range leftoverPatterns {
			if m := re.FindString(s); m != "" {
				t.Fatalf("key-shaped text %q survived in %q", m, s)
			}
		}
	})
	again, _ := json.Marshal(redact.Value(out))
	if !bytes.Equal(again, raw) {
		t.Fatalf("not idempotent:\n%s\n%s", raw, again)
	}
}

func walkStrings(v any, fn func(string)) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			fn(k)
			walkStrings(c, fn)
		}
	case []any:
		for _, c := range t {
			walkStrings(c, fn)
		}
	case string:
		fn(t)
	}
}
