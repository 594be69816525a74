package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

func openFile(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// pipe returns the read end of a pipe holding content, closed after it.
func pipe(t *testing.T, content string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() { w.WriteString(content); w.Close() }()
	return r
}

func TestWithPipedInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(file, []byte("from a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		prompt string
		stdin  *os.File
		want   string
	}{
		{"pipe", "explain", pipe(t, "from a pipe"), "explain\n\nfrom a pipe"},
		{"pipe is the prompt", "", pipe(t, "q\n"), "q"},
		{"empty pipe", "explain", pipe(t, ""), "explain"},
		{"regular file", "explain", openFile(t, file), "explain\n\nfrom a file"},
		{"dev null", "explain", openFile(t, os.DevNull), "explain"},
	}
	for _, tt := range tests {
		var warn bytes.Buffer
		// The wait is far longer than any of these inputs needs: each ends on its own.
		got, err := withPipedInput(tt.prompt, tt.stdin, time.Minute, &warn)
		if err != nil || got != tt.want || warn.Len() != 0 {
			t.Errorf("%s: got %q, %v (warning %q); want %q", tt.name, got, err, warn.String(), tt.want)
		}
	}
}

// Review A5: a pipe nobody writes to or closes (a parent that keeps stdin open) does not
// hang the run: after the wait it goes on without stdin and says so.
func TestWithPipedInputDoesNotWaitForeverOnAnOpenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); r.Close() }) // open (and silent) for the whole test
	var warn bytes.Buffer
	got, err := withPipedInput("hi", r, 20*time.Millisecond, &warn)
	if err != nil || got != "hi" {
		t.Fatalf("got %q, %v; want the prompt alone", got, err)
	}
	if !strings.Contains(warn.String(), "no stdin data received in 20ms, proceeding without it") {
		t.Fatalf("warning %q", warn.String())
	}
}

// Review A5: once input starts it is read to its end, even when the rest comes after the
// wait is over.
func TestReadWithinReadsToTheEndOnceStarted(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	timeout := make(chan time.Time, 1)
	firstRead := make(chan struct{})
	go func() {
		w.WriteString("part one, ")
		<-firstRead
		timeout <- time.Time{} // the wait ends between the first byte and the rest
		w.WriteString("part two")
		w.Close()
	}()
	data, arrived, err := readWithin(&notifyingReader{r: r, read: firstRead}, timeout)
	if !arrived || err != nil || string(data) != "part one, part two" {
		t.Fatalf("got %q, arrived %v, %v", data, arrived, err)
	}
}

// notifyingReader closes read when it is asked for more after its first chunk: by then
// readWithin has seen the first byte.
type notifyingReader struct {
	r     *os.File
	read  chan struct{}
	calls int
}

func (n *notifyingReader) Read(p []byte) (int, error) {
	if n.calls++; n.calls == 2 {
		close(n.read)
	}
	return n.r.Read(p)
}

// fakeRun is a session's record of its last run, as resultOf reads it.
type fakeRun struct {
	last    agent.Result
	denials []interactive.PermissionDenial
}

func (f fakeRun) LastResult() agent.Result                          { return f.last }
func (f fakeRun) ContextWindow() int                                { return 1000 }
func (f fakeRun) PermissionDenials() []interactive.PermissionDenial { return f.denials }

// Review A8/A9: how a run ended decides the result's subtype, is_error, errors and
// num_turns. (The rounds a run counts, and the guard's words, are the agent's tests.)
func TestResultOf(t *testing.T) {
	denial := interactive.PermissionDenial{ToolName: "Write", ToolUseID: "t1"}
	for _, tc := range []struct {
		name     string
		run      fakeRun
		answer   string
		runErr   error
		maxTurns int
		want     output.Result
	}{
		{name: "success", answer: "fine",
			run:  fakeRun{last: agent.Result{StopReason: agent.StopCompleted, Rounds: 1}},
			want: output.Result{Subtype: output.SubtypeSuccess, NumTurns: 1, Text: "fine", StopReason: "end_turn", ContextWindow: 1000}},
		{name: "context limit is an error",
			run: fakeRun{last: agent.Result{StopReason: agent.StopContextLimit, Rounds: 1, Response: "Context window limit reached"}},
			want: output.Result{Subtype: output.SubtypeErrorDuringExecution, IsError: true, NumTurns: 1, ContextWindow: 1000,
				Errors: []string{"Context window limit reached"}}},
		{name: "max turns", maxTurns: 1,
			run: fakeRun{last: agent.Result{StopReason: agent.StopMaxRounds, Rounds: 1, FinalSummary: true}},
			want: output.Result{Subtype: output.SubtypeErrorMaxTurns, IsError: true, NumTurns: 1, ContextWindow: 1000,
				Errors: []string{"Reached maximum number of turns (1)"}}},
		{name: "provider error", runErr: nil,
			run: fakeRun{last: agent.Result{StopReason: agent.StopProviderError, Err: errors.New("overloaded")}},
			want: output.Result{Subtype: output.SubtypeErrorDuringExecution, IsError: true, ContextWindow: 1000,
				Errors: []string{"overloaded"}}},
		{name: "run error", runErr: errors.New("aborted"),
			run: fakeRun{last: agent.Result{StopReason: agent.StopCompleted}},
			want: output.Result{Subtype: output.SubtypeErrorDuringExecution, IsError: true, StopReason: "end_turn", ContextWindow: 1000,
				Errors: []string{"aborted"}}},
		{name: "denials are listed", answer: "ok",
			run: fakeRun{last: agent.Result{StopReason: agent.StopCompleted, Rounds: 2}, denials: []interactive.PermissionDenial{denial}},
			want: output.Result{Subtype: output.SubtypeSuccess, NumTurns: 2, Text: "ok", StopReason: "end_turn", ContextWindow: 1000,
				PermissionDenials: []output.PermissionDenial{{ToolName: "Write", ToolUseID: "t1"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resultOf(tc.run, tc.answer, tc.runErr, tc.maxTurns)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("result\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestEventPrinterShowsHookMessagesAlways(t *testing.T) {
	end := interactive.Event{Type: interactive.EventToolEnd,
		Tool: &interactive.ToolState{ToolName: "Bash", Result: "success", Message: "lint is slow today"}}
	for _, verbose := range []bool{false, true} {
		var buf, stdout bytes.Buffer
		eventPrinter{out: output.New(&stdout, output.FormatStreamJSON, llm.NewID), verbose: verbose, stderr: &buf}.print(end)
		out := buf.String()
		if !strings.Contains(out, "robota: hook: lint is slow today") {
			t.Errorf("verbose=%v: hook message missing: %q", verbose, out)
		}
		if got := strings.Contains(out, "✓ Bash"); got != verbose {
			t.Errorf("verbose=%v: tool line shown = %v: %q", verbose, got, out)
		}
	}
}

// Issue 10 §5: when the session cannot be saved (a full disk, an unwritable directory),
// the result line and the exit status agree (is_error, exit 1) and the message names the
// file that could not be written.
func TestHeadlessUnsavedSessionIsAnError(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".robota"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A file where the sessions directory belongs: every save fails (as root too).
	if err := os.WriteFile(filepath.Join(dir, ".robota", "sessions"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(scriptPath, []byte("turns:\n  - text: the answer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := mainWith([]string{"-p", "hi", "--provider", "script", "--script", scriptPath, "--cwd", dir, "--output-format", "json"},
		openFile(t, os.DevNull), &out, &errb)
	var res struct {
		SessionID string   `json:"session_id"`
		IsError   bool     `json:"is_error"`
		Errors    []string `json:"errors"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("result line %q: %v", out.String(), err)
	}
	want := filepath.Join(dir, ".robota", "sessions", res.SessionID+".jsonl")
	if code != 1 || !res.IsError || len(res.Errors) == 0 || !strings.Contains(strings.Join(res.Errors, "\n"), want) {
		t.Fatalf("exit %d, result %s; want exit 1 and is_error naming %s (stderr %q)", code, out.String(), want, errb.String())
	}
}

// --include-partial-messages works with the prompt given to -p too (not only with
// stream-json input): one content_block_delta per streamed chunk, and the assistant line
// before its content_block_stop.
func TestHeadlessPartialMessages(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	scriptPath := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(scriptPath, []byte("turns:\n  - chunks: [\"one \", \"two \", \"three\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := mainWith([]string{"-p", "hi", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
		"--provider", "script", "--script", scriptPath, "--cwd", dir}, pipe(t, ""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var kinds []string
	deltas := 0
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			Type  string `json:"type"`
			Event struct {
				Type string `json:"type"`
			} `json:"event"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		k := m.Type
		if k == "stream_event" {
			k = m.Event.Type
			if k == "content_block_delta" {
				deltas++
			}
		}
		kinds = append(kinds, k)
	}
	want := "system message_start content_block_start content_block_delta content_block_delta content_block_delta assistant content_block_stop message_delta message_stop result"
	if got := strings.Join(kinds, " "); got != want || deltas != 3 {
		t.Fatalf("lines %q, want %q", got, want)
	}
}
