package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// Acceptance 1: a provider error is logged, history is kept, and the next Run works.
func TestRun_ProviderErrorRecovery(t *testing.T) {
	p := newProvider(t, `
turns:
  - chunks: ["Let me ", "check"]
    error: {code: RATE_LIMIT_ERROR, message: "slow down", statusCode: 429}
  - text: "fine now"
`)
	st := &memStore{}
	lg := &recLogger{t: t}
	hooks := &fakeHooks{}
	s := newSession(t, session.Config{Provider: p, Store: st, Logger: lg, Hooks: hooks})
	_, err := s.Run(context.Background(), "first")
	if !errors.Is(err, llm.ErrRateLimit) {
		t.Fatalf("Run error %v, want the provider's rate-limit error", err)
	}
	logged := lg.of("error")
	if len(logged) != 1 || logged[0].data["code"] != string(llm.CodeRateLimit) || !strings.Contains(logged[0].data["error"].(string), "slow down") {
		t.Fatalf("error log %+v", logged)
	}
	fails := hooks.of(session.HookStopFailure)
	if len(fails) != 1 || fails[0].Error != "rate_limit" || !strings.Contains(fails[0].Reason, "slow down") ||
		!strings.Contains(fails[0].ErrorDetails, "slow down") || !strings.HasPrefix(fails[0].LastAssistantMessage, "Let me check") || len(hooks.of(session.HookStop)) != 0 {
		t.Fatalf("StopFailure %+v, Stop %d", fails, len(hooks.of(session.HookStop)))
	}
	if got := roles(s.Messages()); got != "system,user,assistant" {
		t.Fatalf("history after the failure %s", got)
	}
	if !strings.Contains(s.Messages()[2].Text(), "Let me check") {
		t.Fatalf("the streamed text before the failure was lost: %q", s.Messages()[2].Text())
	}
	if rec := st.load(t, s.ID()); len(rec.Messages) != 3 {
		t.Fatalf("saved %d messages after the failure", len(rec.Messages))
	}
	if got := mustRun(t, s, "second"); got != "fine now" {
		t.Fatalf("next run answered %q", got)
	}
	if got := roles(s.Messages()); got != "system,user,assistant,user,assistant" {
		t.Fatalf("history after recovery %s", got)
	}
}

func TestRun_ConcurrentRunIsRefused(t *testing.T) {
	p := newProvider(t, "turns:\n  - chunks: [\"x\"]\n    hang: true\n")
	deltas := make(chan string, 1)
	s := newSession(t, session.Config{Provider: p, Callbacks: session.Callbacks{OnTextDelta: func(d string) { deltas <- d }}})
	done := runAsync(s, "one")
	waitFor(t, deltas, "delta")
	if _, err := s.Run(context.Background(), "two"); !errors.Is(err, session.ErrRunInProgress) {
		t.Fatalf("second Run error %v", err)
	}
	if err := s.InjectMessage(llm.RoleUser, "x"); !errors.Is(err, session.ErrRunInProgress) {
		t.Fatalf("InjectMessage during a run: %v", err)
	}
	if err := s.Compact(context.Background(), ""); !errors.Is(err, session.ErrRunInProgress) {
		t.Fatalf("Compact during a run: %v", err)
	}
	s.Abort()
	waitFor(t, done, "run")
}

func TestNew_RejectsBadConfig(t *testing.T) {
	if _, err := session.New(context.Background(), session.Config{}); !errors.Is(err, session.ErrNoProvider) {
		t.Fatalf("no provider: %v", err)
	}
	p := newProvider(t, "turns:\n  - text: x\n")
	for _, f := range []float64{-0.1, 1.5} {
		_, err := session.New(context.Background(), session.Config{Provider: p, AutoCompactThreshold: session.AutoCompactAt(f)})
		if !errors.Is(err, session.ErrInvalidThreshold) {
			t.Fatalf("threshold %v: %v", f, err)
		}
	}
	dup := []llm.Tool{&funcTool{name: "A"}, &funcTool{name: "A"}}
	if _, err := session.New(context.Background(), session.Config{Provider: p, Tools: dup}); err == nil {
		t.Fatal("duplicate tool names accepted")
	}
}
