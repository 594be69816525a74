package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestShutdown_SessionEndExactlyOnceAfterSave(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: hi\n")
	tr := &trace{}
	st := &memStore{tr: tr}
	hooks := &fakeHooks{tr: tr}
	lg := &recLogger{t: t, tr: tr}
	s := newSession(t, session.Config{Provider: p, Store: st, Hooks: hooks, Logger: lg})
	mustRun(t, s, "hello")
	for range 3 {
		if err := s.Shutdown(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
	}
	steps := tr.get()
	want := "hook:SessionStart hook:UserPromptSubmit hook:Stop store:save log:session_shutdown store:save hook:SessionEnd"
	if got := strings.Join(steps, " "); got != want {
		t.Fatalf("steps %q, want %q", got, want)
	}
	if ends := hooks.of(session.HookSessionEnd); ends[0].Reason != "other" {
		t.Fatalf("SessionEnd reason %q", ends[0].Reason)
	}
	if _, err := s.Run(context.Background(), "more"); !errors.Is(err, session.ErrShutdown) {
		t.Fatalf("Run after Shutdown: %v", err)
	}
}

func TestShutdown_SaveFailureIsReportedAndSessionEndStillFires(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: hi\n")
	st := &memStore{err: errors.New("disk full")}
	hooks := &fakeHooks{}
	s := newSession(t, session.Config{Provider: p, Store: st, Hooks: hooks})
	if _, err := s.Run(context.Background(), "x"); !errors.Is(err, session.ErrSave) {
		t.Fatalf("Run with a failing store: %v", err)
	}
	if err := s.Shutdown(context.Background(), "logout"); !errors.Is(err, session.ErrSave) {
		t.Fatalf("Shutdown with a failing store: %v", err)
	}
	if ends := hooks.of(session.HookSessionEnd); len(ends) != 1 || ends[0].Reason != "logout" {
		t.Fatalf("SessionEnd %+v", ends)
	}
}

func TestUserPromptSubmit_BlocksOrAddsContext(t *testing.T) {
	t.Run("block", func(t *testing.T) {
		p := newProvider(t, "turns:\n  - text: never\n")
		hooks := (&fakeHooks{}).on(session.HookUserPromptSubmit, func(in session.HookInput) session.HookOutcome {
			return session.HookOutcome{Blocked: true, Reason: "no secrets in prompts"}
		})
		s := newSession(t, session.Config{Provider: p, Hooks: hooks})
		_, err := s.Run(context.Background(), "my key is sk-123")
		if !errors.Is(err, session.ErrPromptBlocked) || !strings.Contains(err.Error(), "no secrets in prompts") {
			t.Fatalf("Run error %v", err)
		}
		if len(p.requests()) != 0 || roles(s.Messages()) != "system" {
			t.Fatalf("a blocked prompt reached the model or history: %d requests, roles %s", len(p.requests()), roles(s.Messages()))
		}
	})
	t.Run("context", func(t *testing.T) {
		p := newProvider(t, "turns:\n  - text: ok\n  - text: ok2\n")
		hooks := (&fakeHooks{}).
			on(session.HookUserPromptSubmit, func(in session.HookInput) session.HookOutcome {
				return session.HookOutcome{AdditionalContext: "branch: main (for " + in.Prompt + ")"}
			}).
			on(session.HookSessionStart, func(session.HookInput) session.HookOutcome {
				return session.HookOutcome{AdditionalContext: "open issues: 3"}
			})
		s := newSession(t, session.Config{Provider: p, Hooks: hooks})
		mustRun(t, s, "status?")
		mustRun(t, s, "again?")
		reqs := p.requests()
		first := reqs[0].Messages[len(reqs[0].Messages)-1].Text()
		if first != "status?\n\nopen issues: 3\n\nbranch: main (for status?)" {
			t.Fatalf("first prompt sent %q", first)
		}
		second := reqs[1].Messages[len(reqs[1].Messages)-1].Text()
		if second != "again?\n\nbranch: main (for again?)" {
			t.Fatalf("second prompt sent %q (SessionStart context must be added once)", second)
		}
	})
}

func TestStopHook_BlockMakesTheAgentContinue(t *testing.T) {
	p := newProvider(t, `
turns:
  - when: {lastUserContains: "fix it"}
    text: "I changed the code."
  - when: {lastUserContains: "run the tests"}
    text: "Tests pass."
`)
	hooks := (&fakeHooks{}).on(session.HookStop, func(in session.HookInput) session.HookOutcome {
		if *in.StopHookActive {
			return session.HookOutcome{}
		}
		return session.HookOutcome{Blocked: true, Reason: "run the tests first"}
	})
	s := newSession(t, session.Config{Provider: p, Hooks: hooks})
	if got := mustRun(t, s, "fix it"); got != "Tests pass." {
		t.Fatalf("answer %q", got)
	}
	stops := hooks.of(session.HookStop)
	if len(stops) != 2 || *stops[0].StopHookActive || !*stops[1].StopHookActive ||
		stops[0].LastAssistantMessage != "I changed the code." || stops[1].Response != "Tests pass." {
		t.Fatalf("Stop inputs %+v", stops)
	}
	msgs := s.Messages()
	if !strings.HasPrefix(msgs[3].Text(), session.StopHookFeedbackPrefix) || s.MessageCount() != 1 {
		t.Fatalf("feedback message %q, message count %d", msgs[3].Text(), s.MessageCount())
	}
}

func TestStopHook_AlwaysBlockingHookIsBounded(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: again\n    repeat: true\n")
	hooks := (&fakeHooks{}).on(session.HookStop, func(session.HookInput) session.HookOutcome {
		return session.HookOutcome{Blocked: true, Reason: "keep going"}
	})
	s := newSession(t, session.Config{Provider: p, Hooks: hooks})
	mustRun(t, s, "go")
	if n := len(hooks.of(session.HookStop)); n < 2 || n > 10 {
		t.Fatalf("Stop fired %d times; want a small bounded number", n)
	}
}

// The hook stdin of a scripted run, byte for byte (Claude Code's field names).
func TestHookInputs_Golden(t *testing.T) {
	p := newProvider(t, `
turns:
  - when: {compaction: true}
    text: "summary"
  - toolCalls: [{id: toolu_1, name: Bash, input: {command: "go test ./..."}}]
  - text: "All good."
`)
	hooks := &fakeHooks{}
	tool := &funcTool{name: "Bash", fn: func(context.Context, json.RawMessage) llm.ToolResult { return llm.ToolSuccess("ok") }}
	s := newSession(t, session.Config{Provider: p, Hooks: hooks, Evaluator: allowAll(), Tools: []llm.Tool{tool},
		SessionID: "sess-1", Cwd: "/work/project", TranscriptPath: "/work/project/.robota/logs/sess-1.jsonl",
		PermissionMode: "acceptEdits"})
	mustRun(t, s, "run the tests")
	if err := s.Compact(context.Background(), "keep test names"); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(context.Background(), "prompt_input_exit"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, in := range hooks.inputs {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	golden := filepath.Join("testdata", "hook_inputs.golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("hook inputs differ from %s:\n%s", golden, buf.String())
	}
}
