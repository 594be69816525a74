package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// streamProc is a running `robota --input-format stream-json`, driven as the Agent SDKs
// drive claude.
type streamProc struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan map[string]any
}

// newStreamProc reads stdout's JSON lines into the proc's lines, closed at the end.
func newStreamProc(t *testing.T, stdin io.WriteCloser, stdout io.Reader) *streamProc {
	s := &streamProc{t: t, stdin: stdin, lines: make(chan map[string]any, 1000)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				s.lines <- m
			}
		}
	}()
	return s
}

func (s *streamProc) send(v any) {
	s.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		s.t.Fatalf("write stdin: %v", err)
	}
}

func (s *streamProc) user(text string) {
	s.send(map[string]any{"type": "user", "parent_tool_use_id": nil, "session_id": "",
		"message": map[string]any{"role": "user", "content": text}})
}

// until reads stdout lines until match; all lines read are returned, that one last.
func (s *streamProc) until(what string, match func(map[string]any) bool) []map[string]any {
	s.t.Helper()
	var seen []map[string]any
	timeout := time.After(runTimeout)
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("stdout ended before %s; read %v", what, seen)
			}
			seen = append(seen, m)
			if match(m) {
				return seen
			}
		case <-timeout:
			s.t.Fatalf("no %s within %s; read %v", what, runTimeout, seen)
		}
	}
}

func controlRequestOf(subtype string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		r, _ := m["request"].(map[string]any)
		return m["type"] == "control_request" && r["subtype"] == subtype
	}
}

func responseTo(id string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		r, _ := m["response"].(map[string]any)
		return m["type"] == "control_response" && r["request_id"] == id
	}
}

func lineType(typ string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == typ }
}

func (s *streamProc) answer(req map[string]any, response any) {
	s.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": req["request_id"], "response": response}})
}

// Issue 13 §1 over the real binary: initialize with a PreToolUse hook callback; a Bash
// call goes through hook_callback and can_use_tool (approved) and runs; a second prompt on
// the same session; a third interrupted; closing stdin ends the process (exit 0).
func TestStreamJSONInputOverTheBinary(t *testing.T) {
	p := newProject(t)
	script := p.writeScript(t, "stream.yaml", `
turns:
  - when: {lastUserContains: "make"}
    toolCalls: [{id: call_bash, name: Bash, input: {command: "touch made-by-bash.txt"}}]
  - text: "made it"
  - when: {lastUserContains: "again"}
    text: "second answer"
  - when: {lastUserContains: "forever"}
    text: "this takes a while"
    hang: true
`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--permission-prompt-tool", "stdio", "--include-partial-messages", "--provider", "script", "--script", script)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := newStreamProc(t, stdin, stdout)
	defer func() {
		if t.Failed() {
			t.Logf("stderr: %s", stderr.String())
		}
	}()

	s.send(map[string]any{"type": "control_request", "request_id": "init", "request": map[string]any{
		"subtype": "initialize", "hooks": map[string]any{"PreToolUse": []any{
			map[string]any{"matcher": "Bash", "hookCallbackIds": []string{"hook_0"}}}}}})
	lines := s.until("the initialize response", responseTo("init"))
	if r := lines[len(lines)-1]["response"].(map[string]any); r["subtype"] != "success" {
		t.Fatalf("initialize: %v", r)
	}

	// 1: the Bash call: hook_callback, then can_use_tool, approved; it runs.
	s.user("make a file")
	lines = s.until("hook_callback", controlRequestOf("hook_callback"))
	hookReq := lines[len(lines)-1]
	if in := hookReq["request"].(map[string]any)["input"].(map[string]any); in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "Bash" {
		t.Fatalf("hook_callback input %v", in)
	}
	s.answer(hookReq, map[string]any{"continue": true})
	lines = s.until("can_use_tool", controlRequestOf("can_use_tool"))
	ask := lines[len(lines)-1]
	if r := ask["request"].(map[string]any); r["tool_name"] != "Bash" || r["tool_use_id"] != "call_bash" {
		t.Fatalf("can_use_tool %v", r)
	}
	s.answer(ask, map[string]any{"behavior": "allow", "updatedInput": map[string]any{"command": "touch made-by-bash.txt"}})
	lines = s.until("the first result", lineType("result"))
	first := lines[len(lines)-1]
	if first["result"] != "made it" || first["is_error"] != false {
		t.Fatalf("first result %v", first)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "made-by-bash.txt")); err != nil {
		t.Fatalf("the approved Bash did not run: %v", err)
	}

	// 2: the same session answers again.
	s.user("again please")
	lines = s.until("the second result", lineType("result"))
	second := lines[len(lines)-1]
	if second["result"] != "second answer" || second["session_id"] != first["session_id"] {
		t.Fatalf("second result %v (first session %v)", second, first["session_id"])
	}

	// 3: interrupted.
	s.user("run forever")
	s.until("the third turn's first text delta", func(m map[string]any) bool {
		e, _ := m["event"].(map[string]any)
		return m["type"] == "stream_event" && e["type"] == "content_block_delta"
	})
	s.send(map[string]any{"type": "control_request", "request_id": "stop", "request": map[string]any{"subtype": "interrupt"}})
	lines = s.until("the interrupted result", lineType("result"))
	if third := lines[len(lines)-1]; third["is_error"] != true {
		t.Fatalf("interrupted result %v", third)
	}

	stdin.Close()
	for range s.lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("robota ended with %v", err)
	}
}

// lockedBuffer is a stderr buffer written by the process while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// SIGINT during a stream-json turn aborts it, saves the session and exits 130, as -p does.
func TestStreamJSONInputSIGINT(t *testing.T) {
	p := newProject(t)
	script := p.writeScript(t, "hang.yaml", "turns:\n  - text: \"working\"\n    hang: true\n")
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "--input-format", "stream-json", "--output-format", "stream-json", "--include-partial-messages",
		"--provider", "script", "--script", script)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := newStreamProc(t, stdin, stdout)
	s.user("start")
	s.until("a text delta", func(m map[string]any) bool { return m["type"] == "stream_event" })
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for range s.lines {
	}
	err := cmd.Wait()
	if cmd.ProcessState.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %v (%v), stderr %q; want 130 and the session saved", cmd.ProcessState.ExitCode(), err, stderr.String())
	}
	if ids := p.sessionIDs(t); len(ids) != 1 {
		t.Fatalf("sessions saved: %v", ids)
	}
}
