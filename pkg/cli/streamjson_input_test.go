package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// streamClient drives runStreamJSON as an Agent SDK would: it writes lines to the run's
// stdin and reads the JSON lines of its stdout.
type streamClient struct {
	t      *testing.T
	stdin  *io.PipeWriter
	lines  chan map[string]any
	done   chan int
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startStream runs robota --input-format stream-json --output-format stream-json with
// the script provider playing script ($DIR: the project directory), in a fresh project
// directory, plus extra flags.
func startStream(t *testing.T, script string, extra ...string) (*streamClient, string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	scriptPath := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(scriptPath, []byte(strings.ReplaceAll(script, "$DIR", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--input-format", "stream-json", "--output-format", "stream-json", "--provider", "script",
		"--script", scriptPath, "--cwd", dir}, extra...)
	o, err := ParseFlags(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &streamClient{t: t, stdin: inW, lines: make(chan map[string]any, 1000), done: make(chan int, 1), stderr: &syncBuffer{}}
	go func() {
		code := runStreamJSON(context.Background(), o, inR, outW, c.stderr)
		outW.Close()
		c.done <- code
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line %q is not JSON: %v", sc.Text(), err)
				continue
			}
			c.lines <- m
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return c, dir
}

func (c *streamClient) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("write stdin: %v", err)
	}
}

func (c *streamClient) user(text string) {
	c.send(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": text}})
}

func (c *streamClient) control(id string, req map[string]any) {
	c.send(map[string]any{"type": "control_request", "request_id": id, "request": req})
}

// until reads lines until one satisfies match, returning all read (that one last).
func (c *streamClient) until(what string, match func(map[string]any) bool) []map[string]any {
	c.t.Helper()
	var seen []map[string]any
	timeout := time.After(30 * time.Second) // a guard against a hang, not a speed check
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("stdout ended before %s; read %v; stderr %q", what, seen, c.stderr.String())
			}
			seen = append(seen, m)
			if match(m) {
				return seen
			}
		case <-timeout:
			c.t.Fatalf("no %s; read %v; stderr %q", what, seen, c.stderr.String())
		}
	}
}

func isType(typ string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == typ }
}

func isResponseTo(id string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		r, _ := m["response"].(map[string]any)
		return m["type"] == "control_response" && r["request_id"] == id
	}
}

// finish closes stdin and returns the exit status.
func (c *streamClient) finish() int {
	c.t.Helper()
	c.stdin.Close()
	for range c.lines {
	}
	select {
	case code := <-c.done:
		return code
	case <-time.After(30 * time.Second):
		c.t.Fatalf("the run did not end after stdin closed; stderr %q", c.stderr.String())
	}
	return -1
}

func field(m map[string]any, path ...string) any {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// Issue 13 §1: initialize is answered in Claude Code's shape, and two user messages run
// as two turns of one session, each ending with its result line.
func TestStreamJSONInitializeAndTwoTurnsOnOneSession(t *testing.T) {
	c, _ := startStream(t, `
turns:
  - when: {lastUserContains: "first"}
    text: "one"
  - when: {lastUserContains: "second"}
    text: "two"
`)
	c.control("init-1", map[string]any{"subtype": "initialize", "hooks": nil})
	initLines := c.until("initialize response", isResponseTo("init-1"))
	resp := initLines[len(initLines)-1]
	if field(resp, "response", "subtype") != "success" {
		t.Fatalf("initialize answered %v", resp)
	}
	body, _ := field(resp, "response", "response").(map[string]any)
	models, _ := body["models"].([]any)
	if len(models) == 0 {
		t.Fatalf("no models in %v", body)
	}
	m0, _ := models[0].(map[string]any)
	for _, k := range []string{"value", "resolvedModel", "displayName", "description"} {
		if s, _ := m0[k].(string); s == "" {
			t.Errorf("models[0].%s empty in %v", k, m0)
		}
	}
	if _, ok := body["commands"].([]any); !ok || body["output_style"] != "default" || body["pid"] != float64(os.Getpid()) {
		t.Errorf("initialize response %v", body)
	}

	c.user("first question")
	first := c.until("first result", isType("result"))
	c.user("second question")
	second := c.until("second result", isType("result"))
	r1, r2 := first[len(first)-1], second[len(second)-1]
	if r1["result"] != "one" || r2["result"] != "two" || r1["is_error"] != false || r2["is_error"] != false {
		t.Fatalf("results %v / %v", r1, r2)
	}
	if r1["session_id"] == "" || r1["session_id"] != r2["session_id"] {
		t.Fatalf("two sessions: %v / %v", r1["session_id"], r2["session_id"])
	}
	if r2["stop_reason"] != "end_turn" {
		t.Errorf("stop_reason %v", r2["stop_reason"])
	}
	if mu, _ := r2["modelUsage"].(map[string]any); len(mu) != 1 {
		t.Errorf("modelUsage %v", r2["modelUsage"])
	}
	if _, ok := r2["total_cost_usd"]; !ok {
		t.Errorf("no total_cost_usd in %v", r2)
	}
	// Claude Code writes system/init as each turn starts: two turns, two, of one session.
	var initIDs []any
	for _, m := range append(append(initLines, first...), second...) {
		if m["type"] == "system" && m["subtype"] == "init" {
			initIDs = append(initIDs, m["session_id"])
		}
	}
	if len(initIDs) != 2 || initIDs[0] != initIDs[1] {
		t.Errorf("system/init lines of sessions %v, want two of one session", initIDs)
	}
	if code := c.finish(); code != 0 {
		t.Fatalf("exit %d; stderr %q", code, c.stderr.String())
	}
}

// A user message whose content is an array of blocks runs with its text blocks, and
// --replay-user-messages echoes it.
func TestStreamJSONContentBlocksAndReplay(t *testing.T) {
	c, _ := startStream(t, `
turns:
  - when: {lastUserContains: "alpha\n\nbeta"}
    text: "joined"
`, "--replay-user-messages")
	c.send(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "alpha"}, map[string]any{"type": "text", "text": "beta"}}}})
	lines := c.until("result", isType("result"))
	if r := lines[len(lines)-1]; r["result"] != "joined" {
		t.Fatalf("result %v", r)
	}
	replayed := false
	for _, m := range lines {
		if m["type"] == "user" && m["isReplay"] == true && field(m, "message", "role") == "user" {
			replayed = true
		}
	}
	if !replayed {
		t.Fatalf("user message not replayed: %v", lines)
	}
	c.finish()
}

// interrupt aborts the running turn (InteractiveSession.Abort): the turn ends with an
// error result and the session takes the next message.
func TestStreamJSONInterrupt(t *testing.T) {
	c, _ := startStream(t, `
turns:
  - when: {lastUserContains: "long"}
    text: "working on it"
    hang: true
  - when: {lastUserContains: "next"}
    text: "still here"
`, "--include-partial-messages")
	c.user("a long job")
	c.until("a text delta", func(m map[string]any) bool {
		return m["type"] == "stream_event" && field(m, "event", "type") == "content_block_delta"
	})
	c.control("int-1", map[string]any{"subtype": "interrupt"})
	lines := c.until("the interrupted result", isType("result"))
	r := lines[len(lines)-1]
	if r["is_error"] != true || r["subtype"] != "error_during_execution" {
		t.Fatalf("interrupted turn's result %v", r)
	}
	answered := false
	for _, m := range lines {
		if isResponseTo("int-1")(m) && field(m, "response", "subtype") == "success" {
			answered = true
		}
	}
	if !answered {
		t.Fatalf("interrupt not answered: %v", lines)
	}
	c.user("next one")
	lines = c.until("the next result", isType("result"))
	if r := lines[len(lines)-1]; r["result"] != "still here" || r["is_error"] != false {
		t.Fatalf("next turn %v", r)
	}
	c.finish()
}

// --permission-prompt-tool stdio: the ask goes to the client as can_use_tool; its allow
// with updatedInput runs the rewritten command.
func TestStreamJSONCanUseToolAllowsWithUpdatedInput(t *testing.T) {
	c, dir := startStream(t, `
turns:
  - toolCalls: [{name: Bash, input: {command: "touch asked.txt"}}]
  - text: "done"
`, "--permission-prompt-tool", "stdio")
	c.user("make a file")
	lines := c.until("can_use_tool", func(m map[string]any) bool {
		return m["type"] == "control_request" && field(m, "request", "subtype") == "can_use_tool"
	})
	req := lines[len(lines)-1]
	if field(req, "request", "tool_name") != "Bash" || field(req, "request", "input", "command") != "touch asked.txt" ||
		field(req, "request", "tool_use_id") == "" {
		t.Fatalf("can_use_tool %v", req)
	}
	c.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success",
		"request_id": req["request_id"], "response": map[string]any{"behavior": "allow",
			"updatedInput": map[string]any{"command": "touch allowed.txt"}}}})
	lines = c.until("result", isType("result"))
	if r := lines[len(lines)-1]; r["result"] != "done" || len(r["permission_denials"].([]any)) != 0 {
		t.Fatalf("result %v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "allowed.txt")); err != nil {
		t.Errorf("the updated command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "asked.txt")); err == nil {
		t.Errorf("the original command ran instead of the updated one")
	}
	c.finish()
}

// A deny from the client denies the call with its message.
func TestStreamJSONCanUseToolDeny(t *testing.T) {
	c, dir := startStream(t, `
turns:
  - toolCalls: [{name: Bash, input: {command: "touch nope.txt"}}]
  - text: "ok"
`, "--permission-prompt-tool", "stdio")
	c.user("make a file")
	lines := c.until("can_use_tool", func(m map[string]any) bool {
		return m["type"] == "control_request" && field(m, "request", "subtype") == "can_use_tool"
	})
	c.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success",
		"request_id": lines[len(lines)-1]["request_id"], "response": map[string]any{"behavior": "deny", "message": "not today"}}})
	lines = c.until("result", isType("result"))
	found := false
	for _, m := range lines {
		if m["type"] == "user" && strings.Contains(mustJSON(t, m), "not today") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the model was not told the client's message: %v", lines)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope.txt")); err == nil {
		t.Errorf("a denied command ran")
	}
	c.finish()
}

// A hook registered at initialize runs as a hook_callback; the client's answer is the
// hook's JSON output (here a PreToolUse deny).
func TestStreamJSONHookCallback(t *testing.T) {
	c, dir := startStream(t, `
turns:
  - toolCalls: [{name: Bash, input: {command: "touch hooked.txt"}}]
  - text: "fine"
`, "--permission-mode", "bypassPermissions")
	c.control("init", map[string]any{"subtype": "initialize", "hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "Bash", "hookCallbackIds": []string{"hook_0"}, "timeout": 30}}}})
	c.until("initialize response", isResponseTo("init"))
	c.user("go")
	lines := c.until("hook_callback", func(m map[string]any) bool {
		return m["type"] == "control_request" && field(m, "request", "subtype") == "hook_callback"
	})
	req := lines[len(lines)-1]
	if field(req, "request", "callback_id") != "hook_0" || field(req, "request", "input", "hook_event_name") != "PreToolUse" ||
		field(req, "request", "input", "tool_name") != "Bash" || field(req, "request", "tool_use_id") == nil {
		t.Fatalf("hook_callback %v", req)
	}
	c.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success",
		"request_id": req["request_id"], "response": map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "hooks say no"}}}})
	lines = c.until("result", isType("result"))
	found := false
	for _, m := range lines {
		if m["type"] == "user" && strings.Contains(mustJSON(t, m), "hooks say no") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the hook's denial did not reach the model: %v", lines)
	}
	if _, err := os.Stat(filepath.Join(dir, "hooked.txt")); err == nil {
		t.Errorf("the call the hook denied ran")
	}
	c.finish()
}

// A UserPromptSubmit hook callback that blocks stops the turn before the model is called;
// the next prompt, let through, runs.
func TestStreamJSONUserPromptSubmitHookCallbackBlocks(t *testing.T) {
	c, _ := startStream(t, `
turns:
  - text: "answered"
`)
	c.control("init", map[string]any{"subtype": "initialize", "hooks": map[string]any{
		"UserPromptSubmit": []any{map[string]any{"hookCallbackIds": []string{"ups"}}}}})
	c.until("initialize response", isResponseTo("init"))
	for i, tt := range []struct {
		answer  map[string]any
		isError bool
	}{
		{map[string]any{"decision": "block", "reason": "not this one"}, true},
		{map[string]any{}, false},
	} {
		c.user("prompt")
		lines := c.until("hook_callback", func(m map[string]any) bool {
			return m["type"] == "control_request" && field(m, "request", "subtype") == "hook_callback"
		})
		req := lines[len(lines)-1]
		if field(req, "request", "callback_id") != "ups" || field(req, "request", "input", "prompt") != "prompt" {
			t.Fatalf("hook_callback %v", req)
		}
		c.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success",
			"request_id": req["request_id"], "response": tt.answer}})
		lines = c.until("result", isType("result"))
		r := lines[len(lines)-1]
		if r["is_error"] != tt.isError || (!tt.isError && r["result"] != "answered") {
			t.Fatalf("prompt %d: result %v", i, r)
		}
		if tt.isError && !strings.Contains(mustJSON(t, r), "not this one") {
			t.Fatalf("the block reason is not in the result: %v", r)
		}
	}
	c.finish()
}

// --include-partial-messages: the answer streams as Anthropic stream events, more than
// one text delta, before the committed assistant message.
func TestStreamJSONPartialMessages(t *testing.T) {
	c, _ := startStream(t, `
turns:
  - text: "three small words"
    chunks: ["three ", "small ", "words"]
    delay: 20ms # the subscriber keeps up: deltas are not merged
`, "--include-partial-messages")
	c.user("hi")
	lines := c.until("result", isType("result"))
	var kinds []string
	deltas, text := 0, ""
	for _, m := range lines {
		switch m["type"] {
		case "stream_event":
			k, _ := field(m, "event", "type").(string)
			kinds = append(kinds, k)
			if k == "content_block_delta" && field(m, "event", "delta", "type") == "text_delta" {
				deltas++
				text += field(m, "event", "delta", "text").(string)
			}
		case "assistant":
			kinds = append(kinds, "assistant")
		}
	}
	want := "message_start content_block_start"
	if got := strings.Join(kinds, " "); !strings.HasPrefix(got, want) ||
		!strings.HasSuffix(got, "assistant content_block_stop message_delta message_stop") {
		t.Fatalf("event order %q", got)
	}
	if deltas < 2 || text != "three small words" {
		t.Fatalf("%d deltas making %q", deltas, text)
	}
	c.finish()
}

// set_permission_mode and set_model are answered; an unknown subtype is an error
// response. Both apply to the running session: in acceptEdits a Write runs that the
// default mode (nobody to ask) denies, and the next turn asks for the model set (the
// script's turns only answer that model); an alias the provider has no model for is an
// error.
func TestStreamJSONSettingsControlRequests(t *testing.T) {
	c, dir := startStream(t, `
turns:
  - when: {model: other-model}
    toolCalls: [{name: Write, input: {file_path: "$DIR/a.txt", content: "hi"}}]
  - when: {model: other-model}
    text: "written"
`)
	c.control("i", map[string]any{"subtype": "initialize"})
	c.until("init", isResponseTo("i"))
	tests := []struct {
		req     map[string]any
		subtype string
	}{
		{map[string]any{"subtype": "set_permission_mode", "mode": "acceptEdits"}, "success"},
		{map[string]any{"subtype": "set_permission_mode", "mode": "yolo"}, "error"},
		{map[string]any{"subtype": "set_model", "model": "default"}, "success"},
		{map[string]any{"subtype": "set_model", "model": "haiku"}, "error"},
		{map[string]any{"subtype": "set_model", "model": "other-model"}, "success"},
		{map[string]any{"subtype": "no_such_thing"}, "error"},
	}
	for i, tt := range tests {
		id := "r" + string(rune('0'+i))
		c.control(id, tt.req)
		lines := c.until("response "+id, isResponseTo(id))
		if got := field(lines[len(lines)-1], "response", "subtype"); got != tt.subtype {
			t.Errorf("%v answered %v, want %s", tt.req, lines[len(lines)-1], tt.subtype)
		}
	}
	c.user("write it")
	lines := c.until("result", isType("result"))
	if r := lines[len(lines)-1]; r["result"] != "written" || len(r["permission_denials"].([]any)) != 0 {
		t.Fatalf("result %v", r)
	}
	if usage, _ := lines[len(lines)-1]["modelUsage"].(map[string]any); usage["other-model"] == nil {
		t.Fatalf("modelUsage %v: want the model set", lines[len(lines)-1]["modelUsage"])
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("a.txt: %q, %v", b, err)
	}
	c.finish()
}

// A prompt given with -p runs first, then the messages on stdin.
func TestStreamJSONPromptFlagIsTheFirstMessage(t *testing.T) {
	c, _ := startStream(t, `
turns:
  - when: {lastUserContains: "from the flag"}
    text: "flag answer"
  - when: {lastUserContains: "from stdin"}
    text: "stdin answer"
`, "-p", "from the flag")
	first := c.until("first result", isType("result"))
	c.user("from stdin")
	second := c.until("second result", isType("result"))
	if first[len(first)-1]["result"] != "flag answer" || second[len(second)-1]["result"] != "stdin answer" {
		t.Fatalf("results %v / %v", first[len(first)-1], second[len(second)-1])
	}
	c.finish()
}

func TestCheckInputFlags(t *testing.T) {
	tests := []struct {
		args []string
		ok   bool
	}{
		{[]string{"--input-format", "stream-json", "--output-format", "stream-json"}, true},
		{[]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--permission-prompt-tool", "stdio"}, true},
		{[]string{"--input-format", "stream-json"}, false},
		{[]string{"--input-format", "xml", "--output-format", "stream-json"}, false},
		{[]string{"-p", "q", "--permission-prompt-tool", "stdio"}, false},
		{[]string{"--input-format", "stream-json", "--output-format", "stream-json", "--permission-prompt-tool", "mcp__x__y"}, false},
	}
	for _, tt := range tests {
		_, err := ParseFlags(tt.args, io.Discard)
		if (err == nil) != tt.ok {
			t.Errorf("%q: err %v, want ok=%v", tt.args, err, tt.ok)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A line over the input limit is never parsed whole: it is read past, answered with an
// error result and a warning, the session goes on with the next line, and the exit status
// says a line was refused.
func TestStreamJSONLineOverLimit(t *testing.T) {
	c, _ := startStream(t, `
turns:
  - text: after the big line
`)
	big := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", maxInputLine+1024) + `"}}` + "\n"
	go func() { _, _ = io.WriteString(c.stdin, big) }()
	first := c.until("the refusal", isType("result"))
	res := first[len(first)-1]
	if res["is_error"] != true || !strings.Contains(fmt.Sprint(res["errors"]), "line limit") {
		t.Fatalf("refusal result %v", res)
	}
	c.user("hi")
	lines := c.until("the turn's result", isType("result"))
	if r := lines[len(lines)-1]; r["result"] != "after the big line" {
		t.Fatalf("the next line's turn: %v", r)
	}
	c.stdin.Close()
	if code := <-c.done; code == 0 {
		t.Fatalf("exit 0 after a refused line; stderr %q", c.stderr.String())
	}
	if !strings.Contains(c.stderr.String(), "line limit") {
		t.Fatalf("stderr %q does not name the limit", c.stderr.String())
	}
}

// An allow whose updatedInput is not a JSON object is never a run of the original input:
// the call is refused with the reason, which the client sees in the tool result.
func TestStreamJSONCanUseToolAllowWithBadUpdatedInput(t *testing.T) {
	for _, bad := range []any{"touch other.txt", []any{1}, 42} {
		c, dir := startStream(t, `
turns:
  - toolCalls: [{name: Bash, input: {command: "touch asked.txt"}}]
  - text: "done"
`, "--permission-prompt-tool", "stdio")
		c.user("make a file")
		lines := c.until("can_use_tool", func(m map[string]any) bool {
			return m["type"] == "control_request" && field(m, "request", "subtype") == "can_use_tool"
		})
		c.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success",
			"request_id": lines[len(lines)-1]["request_id"], "response": map[string]any{"behavior": "allow", "updatedInput": bad}}})
		lines = c.until("result", isType("result"))
		said := false
		for _, m := range lines {
			if m["type"] != "user" || !strings.Contains(mustJSON(t, m), "not a JSON object") {
				continue
			}
			said = true
			// robota refused it, not a person: never worded as the user's denial.
			if text := mustJSON(t, m); strings.Contains(text, "by user") || !strings.Contains(text, "no one can be asked") {
				t.Errorf("updatedInput %v: the refusal is worded as someone's answer: %s", bad, text)
			}
		}
		if !said {
			t.Errorf("updatedInput %v: no tool result says why the call did not run", bad)
		}
		if _, err := os.Stat(filepath.Join(dir, "asked.txt")); err == nil {
			t.Errorf("updatedInput %v: the original command ran", bad)
		}
		c.finish()
	}
}
