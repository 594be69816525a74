package session_test

import (
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// A tool hook's "continue": false (StopRun) ends the run once the batch is recorded:
// no further model call, no Stop hooks, the reason on the tool's end event; the next
// Run goes on normally.
func TestHookStopRunEndsTheRun(t *testing.T) {
	for _, ev := range []session.HookEvent{session.HookPreToolUse, session.HookPostToolUse} {
		t.Run(string(ev), func(t *testing.T) {
			p := newProvider(t, `
turns:
  - when: {lastUserContains: "first"}
    text: "Reading."
    toolCalls: [{id: r1, name: Read, input: {file_path: a.txt}}]
  - text: "must not be asked"
  - when: {lastUserContains: "second"}
    text: "second answer"
`)
			hooks := (&fakeHooks{}).on(ev, func(in session.HookInput) session.HookOutcome {
				if in.ToolName != "Read" {
					return session.HookOutcome{}
				}
				out := session.HookOutcome{StopRun: "policy stop"}
				if ev == session.HookPreToolUse {
					out.Blocked, out.Reason = true, "policy stop"
				}
				return out
			})
			tool := &funcTool{name: "Read"}
			var ends []session.ToolExecutionEvent
			s := newSession(t, session.Config{Provider: p, Tools: []llm.Tool{tool}, Evaluator: allowAll(), Hooks: hooks,
				Callbacks: session.Callbacks{OnToolExecution: func(e session.ToolExecutionEvent) {
					if e.Type == session.ToolEnd {
						ends = append(ends, e)
					}
				}}})
			if got := mustRun(t, s, "first"); got != "Reading." {
				t.Fatalf("answer %q", got)
			}
			if sr := s.LastResult().StopReason; sr != agent.StopHookStopped {
				t.Fatalf("stop reason %q", sr)
			}
			if n := len(hooks.of(session.HookStop)); n != 0 {
				t.Fatalf("Stop hooks ran %d times", n)
			}
			if ran := len(tool.calls); (ev == session.HookPreToolUse) != (ran == 0) {
				t.Fatalf("the tool ran %d times", ran)
			}
			if len(ends) != 1 || !strings.Contains(ends[0].Message, "Stopped by hook: policy stop") {
				t.Fatalf("tool end events %+v", ends)
			}
			if got := roles(s.Messages()); got != "system,user,assistant,tool" {
				t.Fatalf("history %s", got)
			}
			if got := mustRun(t, s, "second"); got != "second answer" {
				t.Fatalf("next run answered %q", got)
			}
		})
	}
}
