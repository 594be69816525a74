package interactive_test

import (
	"errors"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// The events of one prompt, by how it goes: every event carries the prompt's id, the
// sequence increases, and the prompt ends with its one end event.
func TestEventsOfAPrompt(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   string
		maxTurns int
		want     []EventType // in this order, among others
		check    func(t *testing.T, end Event)
	}{
		{name: "thinking then text",
			script: `
turns:
  - thinking: "let me think"
    text: "hello there"
`,
			want: []EventType{EventContextUpdate, EventThinkingDelta, EventTextDelta, EventContextUpdate, EventComplete},
			check: func(t *testing.T, end Event) {
				if end.Result.Response != "hello there" || end.Result.StopReason != agent.StopCompleted || end.Result.Rounds != 1 {
					t.Fatalf("result %+v", end.Result)
				}
			}},
		{name: "tool round",
			script: `
turns:
  - toolCalls: [{id: c1, name: Bash, input: {command: "echo hi"}}]
  - text: "done"
`,
			want: []EventType{EventToolStart, EventToolEnd, EventTextDelta, EventComplete}},
		{name: "provider failure is an error event",
			script: `
turns:
  - text: "partial"
    error: {code: RATE_LIMIT_ERROR, message: "slow down", statusCode: 429}
`,
			want: []EventType{EventTextDelta, EventError},
			check: func(t *testing.T, end Event) {
				var le *llm.Error
				if !errors.As(end.Result.Err, &le) || !strings.Contains(end.Result.Error, "slow down") {
					t.Fatalf("error %v (%q)", end.Result.Err, end.Result.Error)
				}
			}},
		{name: "max turns ends complete with its stop reason",
			script: `
turns:
  - toolCalls: [{id: c1, name: Bash, input: {command: "echo 1"}}]
    repeat: true
  - when: {purpose: final_summary}
    text: "stopped"
`,
			maxTurns: 1,
			want:     []EventType{EventToolEnd, EventComplete},
			check: func(t *testing.T, end Event) {
				if end.Result.StopReason != agent.StopMaxRounds || end.Result.Rounds != 1 {
					t.Fatalf("result %+v", end.Result)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSession(t, scriptProvider(t, tc.script), Options{PermissionMode: "bypassPermissions", MaxTurns: tc.maxTurns})
			sub := s.Subscribe()
			sent, err := s.Submit("go")
			if err != nil {
				t.Fatal(err)
			}
			events := until(t, sub, ends(sent.PromptID))
			checkSeq(t, events)
			rest := tc.want
			for _, e := range events {
				if e.PromptID != sent.PromptID {
					t.Fatalf("%s event has prompt id %q, want %q", e.Type, e.PromptID, sent.PromptID)
				}
				if len(rest) > 0 && e.Type == rest[0] {
					rest = rest[1:]
				}
			}
			if len(rest) > 0 {
				t.Fatalf("missing %v in order; got %q", rest, types(events))
			}
			if tc.check != nil {
				tc.check(t, events[len(events)-1])
			}
		})
	}
}
