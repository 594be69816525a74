package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestStructuredOutputTool(t *testing.T) {
	tool, err := newStructuredOutput(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if tool.value() != nil {
		t.Fatal("a value before any call")
	}
	for _, tt := range []struct {
		args string
		ok   bool
	}{
		{`{"n": "x"}`, false},
		{`{}`, false},
		{`{"n": 7}`, true},
		{`not json`, false},
	} {
		res := tool.Execute(context.Background(), json.RawMessage(tt.args))
		if res.Success != tt.ok {
			t.Fatalf("%s: success %v (%s), want %v", tt.args, res.Success, res.Error, tt.ok)
		}
	}
	if got := string(tool.value()); got != `{"n": 7}` {
		t.Fatalf("value %s, want the valid input", got)
	}
	if _, err := newStructuredOutput(`{"type": 3}`); err == nil || !strings.Contains(err.Error(), "--json-schema") {
		t.Fatalf("invalid schema: %v", err)
	}
	o, _ := ParseFlags([]string{"-p", "x", "--allowedTools", "Read", "--append-system-prompt", "Be brief.", "--json-schema", `{"type":"object"}`}, nil)
	_, allow, prompt, err := withJSONSchema(o)
	if err != nil || strings.Join(allow, ",") != "Read,StructuredOutput" || !strings.HasPrefix(prompt, "Be brief.\n\n") ||
		!strings.Contains(prompt, structuredOutputTool) {
		t.Fatalf("allow %q prompt %q err %v", allow, prompt, err)
	}
}
