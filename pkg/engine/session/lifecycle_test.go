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

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
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
	// The prompt is saved before the provider request, the run after Stop, then Shutdown.
	want := "hook:SessionStart hook:UserPromptSubmit store:save hook:Stop store:save log:session_shutdown store:save hook:SessionEnd"
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

// A Run's result covers its Stop-hook continuations: rounds, usage and executed tools add
// up, and one MaxTurns cap holds for all of them.
func TestStopHook_ContinuationsAccumulateAndShareMaxTurns(t *testing.T) {
	script := `
turns:
  - when: {lastUserContains: "fix it"}
    toolCalls: [{id: call_0, name: T}]
    usage: {inputTokens: 100, outputTokens: 10}
  - when: {lastToolResultContains: "ran T", lastUserContains: "fix it"}
    text: "I changed the code."
    usage: {inputTokens: 200, outputTokens: 20}
  - when: {lastUserContains: "run the tests"}
    toolCalls: [{id: call_1, name: T}]
    usage: {inputTokens: 300, outputTokens: 30}
  - when: {lastToolResultContains: "ran T", lastUserContains: "run the tests"}
    text: "Tests pass."
    usage: {inputTokens: 400, outputTokens: 40}
  - when: {purpose: final_summary}
    text: "Out of turns."
    usage: {inputTokens: 500, outputTokens: 50}
`
	blockOnce := func() *fakeHooks {
		return (&fakeHooks{}).on(session.HookStop, func(in session.HookInput) session.HookOutcome {
			if *in.StopHookActive {
				return session.HookOutcome{}
			}
			return session.HookOutcome{Blocked: true, Reason: "run the tests first"}
		})
	}
	tests := []struct {
		name       string
		maxTurns   int
		answer     string
		rounds     int
		stop       agent.StopReason
		input      int
		tools      int
		stopHooks  int
		modelCalls int
	}{
		// 2 rounds, then the hook's continuation: 2 more.
		{"no cap", 0, "Tests pass.", 4, agent.StopCompleted, 1000, 2, 2, 4},
		// The continuation gets the 1 round left, then the forced summary (not a round).
		{"cap spans continuations", 3, "Out of turns.", 3, agent.StopMaxRounds, 1100, 2, 2, 4},
		// The cap is spent when the hook blocks: no continuation, the answer so far.
		{"cap spent before the hook", 2, "I changed the code.", 2, agent.StopMaxRounds, 300, 1, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, script)
			hooks := blockOnce()
			s := newSession(t, session.Config{Provider: p, Hooks: hooks, MaxTurns: tt.maxTurns, Evaluator: allowAll(),
				Tools: []llm.Tool{&funcTool{name: "T"}}})
			if got := mustRun(t, s, "fix it"); got != tt.answer {
				t.Fatalf("answer %q, want %q", got, tt.answer)
			}
			res := s.LastResult()
			if res.Rounds != tt.rounds || res.StopReason != tt.stop || res.Usage.InputTokens != tt.input ||
				res.Usage.OutputTokens != tt.input/10 || len(res.ToolsExecuted) != tt.tools {
				t.Fatalf("result rounds %d stop %s usage %+v tools %v; want %d %s %d in, %d tools",
					res.Rounds, res.StopReason, res.Usage, res.ToolsExecuted, tt.rounds, tt.stop, tt.input, tt.tools)
			}
			if n := len(hooks.of(session.HookStop)); n != tt.stopHooks {
				t.Fatalf("Stop fired %d times, want %d", n, tt.stopHooks)
			}
			if n := len(p.requests()); n != tt.modelCalls {
				t.Fatalf("%d model calls, want %d", n, tt.modelCalls)
			}
		})
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
