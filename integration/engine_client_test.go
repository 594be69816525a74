package integration

import (
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// engineProject is a project whose HOME the engine shares (the engine inherits the
// test's environment), and a running engine; it returns the --engine address.
func engineProject(t *testing.T) (*project, string) {
	t.Helper()
	p := newProject(t)
	t.Setenv("HOME", p.Home)
	e, _ := startEngine(t, "--state-dir", t.TempDir())
	return p, "unix://" + e.Socket
}

// normalizedLines parses stream-json output and drops what differs between any two
// runs: timing fields, ids chosen at run time (session, line and message ids).
func normalizedLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	lines := jsonLines(t, out)
	for _, l := range lines {
		for _, k := range []string{"session_id", "uuid", "duration_ms", "duration_api_ms"} {
			delete(l, k)
		}
		if m, ok := l["message"].(map[string]any); ok {
			delete(m, "id")
		}
	}
	return lines
}

// TestEngineClientStreamJSONEqualsInProcess: robota -p --engine prints the same
// text, json and stream-json as the in-process run of the same script (a read, an allowed command and
// a denied one), timing fields and ids aside, and exits 0 like it.
func TestEngineClientStreamJSONEqualsInProcess(t *testing.T) {
	p, addr := engineProject(t)
	p.writeFile(t, "notes.txt", "remember the milk\n")
	args := []string{"-p", "what do the notes say?", "--provider", "script", "--script", p.script(t, "output", nil),
		"--allowedTools", "Read,Bash(echo *)", "--disallowedTools", "Bash(rm *)"}
	for _, format := range []string{"text", "json"} {
		fargs := append(append([]string{}, args...), "--output-format", format)
		local, remote := p.mustRun(t, fargs...), p.mustRun(t, append(fargs, "--engine", addr)...)
		if format == "text" && (remote.Stdout != local.Stdout || remote.Stdout == "") {
			t.Errorf("text output: --engine %q, in-process %q", remote.Stdout, local.Stdout)
		}
		if format == "json" && !reflect.DeepEqual(normalizedLines(t, remote.Stdout), normalizedLines(t, local.Stdout)) {
			t.Errorf("json output differs:\n--engine:   %s\nin-process: %s", remote.Stdout, local.Stdout)
		}
	}
	args = append(args, "--output-format", "stream-json")
	local := p.mustRun(t, args...)
	remote := p.mustRun(t, append(args, "--engine", addr)...)
	want, got := normalizedLines(t, local.Stdout), normalizedLines(t, remote.Stdout)
	// The engine's CreateSession answer carries no skills, agents or commands yet: under
	// --engine the init line's lists are empty; the in-process line has the built-ins.
	if len(want) > 0 && len(got) > 0 {
		for _, k := range []string{"slash_commands", "skills", "agents"} {
			if l, _ := want[0][k].([]any); k != "skills" && len(l) == 0 {
				t.Errorf("in-process init %s is empty", k)
			}
			delete(want[0], k)
			delete(got[0], k)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("--engine printed %d lines, in-process %d\n--engine:\n%s\nin-process:\n%s", len(got), len(want), remote.Stdout, local.Stdout)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			t.Errorf("line %d differs:\n--engine:   %s\nin-process: %s", i+1, g, w)
		}
	}
	res := got[len(got)-1]
	if denials, _ := res["permission_denials"].([]any); len(denials) != 1 {
		t.Fatalf("result permission_denials = %v, want the denied rm", res["permission_denials"])
	}
	// The session is the engine's and was saved in the project: it resumes in-process.
	id, _ := jsonLines(t, remote.Stdout)[0]["session_id"].(string)
	if rec := p.record(t, id); len(rec.Messages) == 0 {
		t.Fatalf("session %s saved without messages", id)
	}
}

// TestEngineClientExitCodes: a failed run exits 1 with the same result as in-process; a
// flag the engine refuses exits 2; a bad --engine address exits 2 before any call.
func TestEngineClientExitCodes(t *testing.T) {
	p, addr := engineProject(t)
	script := p.script(t, "error", nil)
	failing := []string{"-p", "please fail", "--provider", "script", "--script", script, "--output-format", "json"}
	local, remote := p.run(t, failing...), p.run(t, append(failing, "--engine", addr)...)
	if local.Code != 1 || remote.Code != 1 {
		t.Fatalf("failing run exited %d in-process, %d with --engine; want 1 and 1\n--engine stderr:\n%s", local.Code, remote.Code, remote.Stderr)
	}
	want, got := normalizedLines(t, local.Stdout), normalizedLines(t, remote.Stdout)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("failing run result differs:\n--engine:   %v\nin-process: %v", got, want)
	}

	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"unknown provider", []string{"--provider", "no-such-provider"}, "provider"},
		{"bad permission mode", []string{"--permission-mode", "yolo"}, "yolo"},
		{"relative socket path", []string{"--engine", "unix://e.sock"}, "must be absolute"},
		{"tcp without TLS", []string{"--engine", "tcp://127.0.0.1:1"}, "mutual TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-p", "hi", "--engine", addr}, tc.args...)
			res := p.run(t, args...)
			if res.Code != 2 || !strings.Contains(res.Stderr, tc.stderr) {
				t.Fatalf("robota %q exited %d, want 2 with %q on stderr:\n%s", args, res.Code, tc.stderr, res.Stderr)
			}
		})
	}
}

// TestEngineClientCtrlCAbortsInTheEngine: SIGINT while the answer streams aborts the
// prompt in the engine; robota exits 130 naming the saved session, whose last message is
// the interrupted partial answer, and the session resumes in-process.
func TestEngineClientCtrlCAbortsInTheEngine(t *testing.T) {
	p, addr := engineProject(t)
	p.fullLog(t) // the run is interrupted once a text delta is in the log
	base := []string{"--provider", "script", "--script", p.script(t, "interrupt", nil)}
	args := append([]string{"-p", "tell me a long story", "--output-format", "stream-json", "--engine", addr}, base...)
	id, stdout, stderr, err := interruptRun(t, p, `"event":"text_delta"`, syscall.SIGINT, args)
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
		t.Fatalf("after SIGINT robota --engine ended with %v, want exit status 130\nstderr:\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "--resume "+id) {
		t.Fatalf("stderr does not tell how to resume the saved session:\n%s", stderr)
	}
	lines := jsonLines(t, stdout)
	if res := lines[len(lines)-1]; res["type"] != "result" || res["subtype"] != "error_during_execution" || res["is_error"] != true {
		t.Fatalf("result after SIGINT = %v, want error_during_execution", res)
	}
	rec := p.record(t, id)
	if last := rec.Messages[len(rec.Messages)-1]; last.Role != "assistant" || last.State != "interrupted" || last.text() == "" {
		t.Fatalf("last saved message %s (%s) %q, want the interrupted partial answer", last.Role, last.State, last.text())
	}
	next := resultObject(t, p.mustRun(t, append([]string{"-p", "go on", "--resume", id, "--output-format", "json"}, base...)...).Stdout)
	if next["result"] != "Picking up where we left off." || next["session_id"] != id {
		t.Fatalf("resume after the engine's abort: %v", next)
	}
}

// TestEngineClientDeniesPermissionQuestions: a call that asks (default mode, no allow
// rule) is denied, since no one can answer in a headless run; it is listed in
// permission_denials, the command never ran, and the run goes on to its answer.
func TestEngineClientDeniesPermissionQuestions(t *testing.T) {
	p, addr := engineProject(t)
	p.writeFile(t, "notes.txt", "remember the milk\n")
	res := p.mustRun(t, "-p", "what do the notes say?", "--provider", "script", "--script", p.script(t, "output", nil),
		"--allowedTools", "Read,Bash(echo *)", "--output-format", "stream-json", "--engine", addr)
	lines := jsonLines(t, res.Stdout)
	out := lines[len(lines)-1]
	denials, _ := out["permission_denials"].([]any)
	if len(denials) != 1 {
		t.Fatalf("permission_denials = %v, want the rm that asked", out["permission_denials"])
	}
	d, _ := denials[0].(map[string]any)
	if d["tool_name"] != "Bash" || d["tool_use_id"] != "toolu_rm" {
		t.Fatalf("denial %v, want Bash toolu_rm", d)
	}
	if out["result"] != "The notes say to remember the milk; the checks pass." || out["is_error"] != false {
		t.Fatalf("result %v: want the answer, no error", out)
	}
	if !strings.Contains(res.Stdout, `"tool_use_id":"toolu_rm","content":"Permission denied for Bash: approval required and no one can be asked (`) {
		t.Fatalf("the model was not told the call was denied for want of someone to ask:\n%s", res.Stdout)
	}
}

// TestEngineClientResumeContinueFork: --resume, --continue and --fork-session reach the
// engine: each run sees the earlier runs' history, the fork gets a new id, and only the
// messages of the run itself are printed.
func TestEngineClientResumeContinueFork(t *testing.T) {
	p, addr := engineProject(t)
	p.writeFile(t, "notes.txt", "MARKER-ONE\n")
	base := []string{"--provider", "script", "--script", p.script(t, "resume", nil), "--allowedTools", "Read,Bash(echo *)",
		"--output-format", "stream-json", "--engine", addr}
	runLines := func(args ...string) []map[string]any {
		t.Helper()
		return jsonLines(t, p.mustRun(t, append(args, base...)...).Stdout)
	}
	result := func(lines []map[string]any) (string, string) {
		last := lines[len(lines)-1]
		r, _ := last["result"].(string)
		id, _ := last["session_id"].(string)
		return r, id
	}
	first := runLines("-p", "first question")
	if r, _ := result(first); r != "The notes say MARKER-ONE." {
		t.Fatalf("first run answered %q", r)
	}
	_, id := result(first)
	second := runLines("-p", "second question", "--resume", id)
	if r, sid := result(second); r != "Earlier the notes said MARKER-ONE; now MARKER-TWO." || sid != id {
		t.Fatalf("resumed run answered %q in session %s, want the history of %s", r, sid, id)
	}
	// Only this run's messages: init, assistant (a text line and a tool_use line, one per
	// content block), tool result, assistant, result.
	if len(second) != 6 {
		t.Fatalf("resumed run printed %d lines, want 6 (none of the earlier run's):\n%v", len(second), second)
	}
	if r, sid := result(runLines("-p", "third question", "--continue")); r != "I still remember MARKER-TWO." || sid != id {
		t.Fatalf("--continue answered %q in session %s, want session %s", r, sid, id)
	}
	r, fork := result(runLines("-p", "fourth question", "--resume", id, "--fork-session"))
	if r != "Forked, and I remember MARKER-TWO." || fork == id || fork == "" {
		t.Fatalf("fork answered %q in session %q, want a new session with %s's history", r, fork, id)
	}
}
