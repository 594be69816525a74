package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// usageScript: the first answer reports `used` tokens of a 1,000-token window; the second
// run is answered "after"; a compaction request is answered with a summary.
func usageScript(used int) string {
	return fmt.Sprintf(`
turns:
  - when: {compaction: true}
    text: "SUMMARY: the user asked about foo."
  - text: "first answer"
    usage: {inputTokens: %d, outputTokens: 0}
  - text: "after"
`, used)
}

// Acceptance 1: auto-compaction at the threshold keeps the system message first, then the
// summary; `false` disables it.
func TestRun_AutoCompactionAtThreshold(t *testing.T) {
	tests := []struct {
		name      string
		threshold session.AutoCompactThreshold
		disable   bool // SetAutoCompactThreshold(disabled) after construction
		used      int
		compacts  bool
	}{
		{name: "default 0.835 reached", used: 835, compacts: true},
		{name: "default 0.835 not reached", used: 834, compacts: false},
		{name: "custom fraction", threshold: session.AutoCompactAt(0.5), used: 500, compacts: true},
		{name: "disabled in config", threshold: session.AutoCompactDisabled, used: 900, compacts: false},
		{name: "disabled after construction", disable: true, used: 900, compacts: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, usageScript(tc.used))
			hooks := &fakeHooks{}
			var compactEvents []session.CompactEvent
			var summaries []string
			s := newSession(t, session.Config{
				Provider: p, ContextWindow: 1000, AutoCompactThreshold: tc.threshold, Hooks: hooks,
				CompactInstructions: "keep file paths",
				Callbacks: session.Callbacks{
					OnCompactEvent: func(e session.CompactEvent) { compactEvents = append(compactEvents, e) },
					OnCompact:      func(s string) { summaries = append(summaries, s) },
				},
			})
			if tc.disable {
				if err := s.SetAutoCompactThreshold(session.AutoCompactDisabled); err != nil {
					t.Fatal(err)
				}
			}
			mustRun(t, s, "tell me about foo")
			if got := mustRun(t, s, "and now?"); got != "after" {
				t.Fatalf("second answer %q", got)
			}
			msgs := s.Messages()
			creqs := p.compactionRequests()
			if !tc.compacts {
				if len(creqs) != 0 || roles(msgs) != "system,user,assistant,user,assistant" {
					t.Fatalf("compacted although it should not: %d compaction calls, roles %s", len(creqs), roles(msgs))
				}
				return
			}
			if len(creqs) != 1 {
				t.Fatalf("%d compaction calls, want 1", len(creqs))
			}
			if got := roles(msgs); got != "system,assistant,user,assistant" {
				t.Fatalf("roles after compaction %s", got)
			}
			if msgs[0].Text() != testSystem {
				t.Fatalf("first message %q, want the original system message", msgs[0].Text())
			}
			if want := session.ContextSummaryPrefix + "\nSUMMARY: the user asked about foo."; msgs[1].Text() != want {
				t.Fatalf("summary message %q, want %q", msgs[1].Text(), want)
			}
			req := creqs[0]
			for _, m := range req.Messages {
				if m.Role == llm.RoleSystem {
					t.Fatal("the system message was sent to be summarized")
				}
			}
			last := req.Messages[len(req.Messages)-1]
			if len(req.Tools) != 0 || last.Role != llm.RoleUser || !strings.Contains(last.Text(), "keep file paths") {
				t.Fatalf("compaction request: %d tools, last %s %q", len(req.Tools), last.Role, last.Text())
			}
			if len(compactEvents) != 1 || compactEvents[0].Trigger != session.TriggerAuto ||
				compactEvents[0].Before.UsedTokens != tc.used || compactEvents[0].After.UsedTokens >= tc.used {
				t.Fatalf("compact events %+v", compactEvents)
			}
			if len(summaries) != 1 || summaries[0] != "SUMMARY: the user asked about foo." {
				t.Fatalf("OnCompact got %q", summaries)
			}
			wantOrder := []session.HookEvent{session.HookSessionStart, session.HookUserPromptSubmit, session.HookStop,
				session.HookPreCompact, session.HookPostCompact, session.HookSessionStart, session.HookUserPromptSubmit, session.HookStop}
			if got := hooks.events(); fmt.Sprint(got) != fmt.Sprint(wantOrder) {
				t.Fatalf("hook order %v, want %v", got, wantOrder)
			}
			pre, post := hooks.of(session.HookPreCompact)[0], hooks.of(session.HookPostCompact)[0]
			if pre.Trigger != "auto" || pre.CustomInstructions != "keep file paths" ||
				post.Trigger != "auto" || post.CompactSummary != "SUMMARY: the user asked about foo." {
				t.Fatalf("PreCompact %+v / PostCompact %+v", pre, post)
			}
			if starts := hooks.of(session.HookSessionStart); starts[1].Source != session.SourceCompact {
				t.Fatalf("SessionStart after compaction has source %q", starts[1].Source)
			}
		})
	}
}

func TestCompact_ManualWithInstructionsIsSaved(t *testing.T) {
	p := newProvider(t, usageScript(10))
	st := &memStore{}
	lg := &recLogger{t: t}
	var events []session.CompactEvent
	s := newSession(t, session.Config{Provider: p, Store: st, Logger: lg,
		Callbacks: session.Callbacks{OnCompactEvent: func(e session.CompactEvent) { events = append(events, e) }}})
	mustRun(t, s, "hello")
	if err := s.Compact(context.Background(), "focus on the API"); err != nil {
		t.Fatal(err)
	}
	req := p.compactionRequests()[0]
	if !strings.Contains(req.Messages[len(req.Messages)-1].Text(), "focus on the API") {
		t.Fatal("manual instructions missing from the compaction prompt")
	}
	if len(events) != 1 || events[0].Trigger != session.TriggerManual {
		t.Fatalf("compact events %+v", events)
	}
	if rec := st.load(t, s.ID()); roles(rec.Messages) != "system,assistant" {
		t.Fatalf("saved roles %s", roles(rec.Messages))
	}
	logged := lg.of("context_compact")
	if len(logged) != 1 || logged[0].data["trigger"] != "manual" || logged[0].data["before"] == nil || logged[0].data["after"] == nil {
		t.Fatalf("context_compact log %+v", logged)
	}
}

// An abort or a failure during compaction leaves history unchanged.
func TestCompact_FailuresLeaveHistoryUnchanged(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		hooks   *fakeHooks
		abort   bool
		wantErr error
	}{
		{
			name:   "PreCompact blocks",
			script: "turns:\n  - text: first\n",
			hooks: (&fakeHooks{}).on(session.HookPreCompact, func(session.HookInput) session.HookOutcome {
				return session.HookOutcome{Blocked: true, Reason: "not now"}
			}),
			wantErr: session.ErrCompactionBlocked,
		},
		{
			name:    "summary call fails",
			script:  "turns:\n  - text: first\n  - when: {compaction: true}\n    error: {message: boom}\n",
			wantErr: llm.ErrProvider,
		},
		{
			name:    "empty summary",
			script:  "turns:\n  - text: first\n  - when: {compaction: true}\n    text: \"   \"\n",
			wantErr: session.ErrCompactionFailed,
		},
		{
			name:    "abort while summarizing",
			script:  "turns:\n  - text: first\n  - when: {compaction: true}\n    text: partial summary\n    hang: true\n",
			abort:   true,
			wantErr: context.Canceled,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, tc.script)
			hooks := tc.hooks
			if hooks == nil {
				hooks = &fakeHooks{}
			}
			lg := &recLogger{t: t}
			s := newSession(t, session.Config{Provider: p, Hooks: hooks, Logger: lg})
			mustRun(t, s, "hello")
			before := s.Messages()
			if tc.abort {
				p.started = make(chan llm.ChatRequest, 1)
				go func() {
					<-p.started
					s.Abort()
				}()
			}
			err := s.Compact(context.Background(), "")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Compact error %v, want %v", err, tc.wantErr)
			}
			after := s.Messages()
			if len(after) != len(before) {
				t.Fatalf("history changed: %s → %s", roles(before), roles(after))
			}
			for i := range before {
				if before[i].ID != after[i].ID {
					t.Fatalf("message %d changed", i)
				}
			}
			if len(hooks.of(session.HookPostCompact)) != 0 {
				t.Fatal("PostCompact fired for a compaction that did not happen")
			}
			if len(lg.of("error")) != 1 {
				t.Fatalf("compaction failure logged %d times", len(lg.of("error")))
			}
			if s.IsRunning() {
				t.Fatal("session still running")
			}
		})
	}
}
