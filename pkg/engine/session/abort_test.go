package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

type runResult struct {
	text string
	err  error
}

func runAsync(s *session.Session, input string) <-chan runResult {
	ch := make(chan runResult, 1)
	go func() {
		text, err := s.Run(context.Background(), input)
		ch <- runResult{text, err}
	}()
	return ch
}

// Acceptance 1: abort during streaming keeps the partial text, returns the aborted error
// and leaves the session usable.
func TestRun_AbortDuringStreaming(t *testing.T) {
	p := newProvider(t, `
turns:
  - chunks: ["Hello ", "wor"]
    hang: true
  - when: {lastUserContains: "again"}
    text: "second answer"
`)
	st := &memStore{}
	deltas := make(chan string, 8)
	s := newSession(t, session.Config{Provider: p, Store: st,
		Callbacks: session.Callbacks{OnTextDelta: func(d string) { deltas <- d }}})
	done := runAsync(s, "say hello")
	waitFor(t, deltas, "first delta")
	waitFor(t, deltas, "second delta")
	if !s.IsRunning() {
		t.Fatal("IsRunning is false while streaming")
	}
	s.Abort()
	res := waitFor(t, done, "aborted run")
	if !errors.Is(res.err, context.Canceled) || !errors.Is(res.err, session.ErrAborted) {
		t.Fatalf("Run error %v, want context.Canceled and ErrAborted", res.err)
	}
	if res.text != "Hello wor" {
		t.Fatalf("partial text %q", res.text)
	}
	if s.IsRunning() {
		t.Fatal("IsRunning after the aborted run returned")
	}
	msgs := s.Messages()
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleAssistant || last.State != llm.StateInterrupted || last.Text() != "Hello wor" {
		t.Fatalf("last message %s/%s %q, want the interrupted partial text", last.Role, last.State, last.Text())
	}
	if rec := st.load(t, s.ID()); rec.Messages[len(rec.Messages)-1].State != llm.StateInterrupted {
		t.Fatal("the aborted run was not saved")
	}
	if got := mustRun(t, s, "again please"); got != "second answer" {
		t.Fatalf("run after abort answered %q", got)
	}
	reqs := p.requests()
	sent := reqs[len(reqs)-1].Messages
	if !strings.Contains(sent[2].Text(), "Hello wor") || !strings.Contains(sent[2].Text(), llm.InterruptedSuffix) {
		t.Fatalf("the next request does not carry the annotated partial answer: %q", sent[2].Text())
	}
	s.Abort() // no-op when idle
	if s.MessageCount() != 1 {
		t.Fatalf("MessageCount %d, want 1 completed run", s.MessageCount())
	}
}

// Acceptance 1: an abort while waiting for approval never runs the tool.
func TestRun_AbortWhileWaitingForApproval(t *testing.T) {
	p := newProvider(t, `
turns:
  - toolCalls: [{id: call_0, name: Bash, input: {command: "rm -rf build"}}]
  - when: {lastUserContains: "next"}
    text: "ok"
`)
	tool := &funcTool{name: "Bash"}
	hooks := &fakeHooks{}
	waiting := make(chan struct{})
	release := make(chan struct{})
	handler := func(ctx context.Context, req session.ApprovalRequest) session.PermissionAnswer {
		close(waiting)
		<-release // ignores ctx on purpose: a late "allow" must not run the tool
		return session.PermissionAnswer{Approval: session.ApprovalAllow}
	}
	ask := &fakeEvaluator{fn: func(session.PermissionRequest, session.PermissionMode) session.PermissionDecision {
		return session.PermissionDecision{Behavior: session.BehaviorAsk, Reason: "Bash needs approval"}
	}}
	s := newSession(t, session.Config{Provider: p, Tools: []llm.Tool{tool}, Evaluator: ask,
		PermissionHandler: handler, Hooks: hooks})
	done := runAsync(s, "clean up")
	waitFor(t, waiting, "approval question")
	s.Abort()
	res := waitFor(t, done, "aborted run")
	close(release)
	if !errors.Is(res.err, context.Canceled) {
		t.Fatalf("Run error %v, want context.Canceled", res.err)
	}
	if tool.count() != 0 {
		t.Fatal("the tool ran after an abort during approval")
	}
	msgs := s.Messages()
	tr, ok := msgs[len(msgs)-1].ToolResult()
	if !ok || !tr.IsError || !strings.HasPrefix(tr.Content, session.PermissionDeniedPrefix) {
		t.Fatalf("tool result %+v, want a permission denial", msgs[len(msgs)-1])
	}
	if d := s.PermissionDenials(); len(d) != 1 || d[0].ToolUseID != "call_0" {
		t.Fatalf("denials %+v", d)
	}
	if n := len(hooks.of(session.HookPostToolUse)) + len(hooks.of(session.HookPostToolUseFailure)); n != 0 {
		t.Fatalf("%d post-tool hooks fired for a tool that never ran", n)
	}
	if got := mustRun(t, s, "next"); got != "ok" || tool.count() != 0 {
		t.Fatalf("run after abort: %q, tool ran %d times", got, tool.count())
	}
}

// Shutdown during a run aborts it, saves after it ended, then fires SessionEnd once.
func TestShutdown_DuringRunAbortsThenSavesThenSessionEnd(t *testing.T) {
	p := newProvider(t, "turns:\n  - chunks: [\"partial\"]\n    hang: true\n")
	tr := &trace{}
	st := &memStore{tr: tr}
	hooks := &fakeHooks{tr: tr}
	lg := &recLogger{t: t, tr: tr}
	deltas := make(chan string, 4)
	s := newSession(t, session.Config{Provider: p, Store: st, Hooks: hooks, Logger: lg,
		Callbacks: session.Callbacks{OnTextDelta: func(d string) { deltas <- d }}})
	done := runAsync(s, "go")
	waitFor(t, deltas, "delta")
	if err := s.Shutdown(context.Background(), "prompt_input_exit"); err != nil {
		t.Fatal(err)
	}
	res := waitFor(t, done, "run")
	if !errors.Is(res.err, context.Canceled) {
		t.Fatalf("run error %v", res.err)
	}
	steps := tr.get()
	want := []string{"hook:SessionStart", "hook:UserPromptSubmit", "log:session_shutdown", "store:save", "store:save", "hook:SessionEnd"}
	if strings.Join(steps, " ") != strings.Join(want, " ") {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	if rec := st.load(t, s.ID()); rec.Messages[len(rec.Messages)-1].Text() != "partial" {
		t.Fatal("the final save lost the partial answer")
	}
}

// Tool calls skipped because of an abort never ran the enforcer; the bridge still reports
// them once, as interrupted.
func TestRun_AbortBeforeToolsStartReportsThemOnce(t *testing.T) {
	p := newProvider(t, `
turns:
  - text: "Running it."
    toolCalls: [{id: call_0, name: Echo, input: {x: 1}}]
    hang: true
`)
	tool := &funcTool{name: "Echo"}
	events := &toolEvents{}
	deltas := make(chan string, 4)
	s := newSession(t, session.Config{Provider: p, Tools: []llm.Tool{tool}, Evaluator: allowAll(),
		Callbacks: session.Callbacks{OnTextDelta: func(d string) { deltas <- d }, OnToolExecution: events.add}})
	done := runAsync(s, "go")
	// The script keeps tool calls only once all the text has streamed; abort after that.
	for streamed := ""; streamed != "Running it."; {
		streamed += waitFor(t, deltas, "delta")
	}
	s.Abort()
	if res := waitFor(t, done, "run"); !errors.Is(res.err, context.Canceled) {
		t.Fatalf("run error %v", res.err)
	}
	got := events.get()
	if tool.count() != 0 || len(got) != 2 || got[0].Type != session.ToolStart || got[1].Type != session.ToolEnd ||
		got[1].ErrorCode != "interrupted" || got[1].ToolUseID != "call_0" || string(got[1].ToolArgs) != `{"x":1}` {
		t.Fatalf("tool ran %d times; events %+v", tool.count(), got)
	}
}
