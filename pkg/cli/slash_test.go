package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// robota -p "/name" runs the command instead of asking the model; a "/path" that exists
// goes to the model; an unknown command fails.
func TestHeadlessSlashPrompts(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(scriptPath, []byte("turns:\n  - text: the model answered\n    repeat: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prompt, format string
		code           int
		isError        bool
		result         string // substring of the result text
	}{
		{"/help", "json", 0, false, "/compact [instructions]"},
		{"/mode plan", "json", 0, false, "Permission mode set to plan"},
		{"/cost", "text", 0, false, "Messages: 1\nTokens: 0 input, 0 output (0 total)\nThis run: 0 prompt(s)"},
		{"/memory", "json", 0, false, "0 memory topic(s), 0 pending candidate(s)."},
		{"/memory add project keys sk-ant-api03-abcdefghijklmnopqrstuvwx", "json", 1, true, "Not saved: it looks like an Anthropic API key"},
		{"/frobnicate now", "json", 1, true, "Unknown command: /frobnicate"},
		{"/frobnicate", "text", 1, true, "Unknown command: /frobnicate"},
		{"/notes.txt says what?", "json", 0, false, "the model answered"},
		{"hello", "json", 0, false, "the model answered"},
	} {
		var out, errb bytes.Buffer
		code := mainWith([]string{"-p", tc.prompt, "--provider", "script", "--script", scriptPath, "--cwd", dir, "--output-format", tc.format},
			openFile(t, os.DevNull), &out, &errb)
		text := out.String()
		if tc.format == "json" {
			var res struct {
				IsError bool   `json:"is_error"`
				Result  string `json:"result"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("%s: result line %q: %v", tc.prompt, out.String(), err)
			}
			if res.IsError != tc.isError {
				t.Errorf("%s: is_error %v", tc.prompt, res.IsError)
			}
			text = res.Result
		}
		if code != tc.code || !strings.Contains(text, tc.result) {
			t.Errorf("%s: exit %d, result %q; want %d and %q (stderr %q)", tc.prompt, code, text, tc.code, tc.result, errb.String())
		}
	}
}

// In stream-json input, a user line starting with "/" runs the command: its message is
// the turn's result line, and the model is not asked; the next plain line is.
func TestStreamJSONSlashLines(t *testing.T) {
	c, _ := startStream(t, "turns:\n  - text: the model answered\n    usage: {inputTokens: 10, outputTokens: 3}\n")
	c.user("/model")
	seen := c.until("the /model result", isType("result"))
	res := seen[len(seen)-1]
	if res["is_error"] != false || !strings.HasPrefix(res["result"].(string), "Model: ") {
		t.Fatalf("/model result = %v", res)
	}
	for _, m := range seen {
		if m["type"] == "assistant" {
			t.Fatalf("the model was asked for /model: %v", m)
		}
	}
	c.user("/nope")
	seen = c.until("the /nope result", isType("result"))
	if res := seen[len(seen)-1]; res["is_error"] != true || res["result"] != "Unknown command: /nope" {
		t.Fatalf("/nope result = %v", res)
	}
	c.user("hello")
	seen = c.until("the model's result", isType("result"))
	if res := seen[len(seen)-1]; res["result"] != "the model answered" {
		t.Fatalf("hello result = %v", res)
	}
	c.user("/cost")
	seen = c.until("the /cost result", isType("result"))
	if res := seen[len(seen)-1]; !strings.Contains(res["result"].(string), "Tokens: 10 input, 3 output (13 total)\nThis run: 1 prompt(s)") {
		t.Fatalf("/cost result = %v", res)
	}
	if code := c.finish(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
