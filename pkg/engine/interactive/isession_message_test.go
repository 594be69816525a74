package interactive_test

import (
	"context"
	"slices"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// allowAll allows every call.
type allowAll struct{}

func (allowAll) Evaluate(context.Context, session.PermissionRequest, session.PermissionMode) session.PermissionDecision {
	return session.PermissionDecision{Behavior: session.BehaviorAllow}
}

// Every message appended to the conversation is a message event, in conversation order,
// after the tool events of its round and before the prompt's end event, whichever
// constructor built the session: robota -p's stream-json prints them.
func TestMessageEventsFollowTheConversation(t *testing.T) {
	const yaml = `
turns:
  - text: "probing"
    toolCalls: [{id: c1, name: Probe, input: {}}]
  - text: "done"
`
	for _, tc := range []struct {
		name string
		make func(t *testing.T) *InteractiveSession
	}{
		{"New", func(t *testing.T) *InteractiveSession {
			return newTestSession(t, scriptProvider(t, yaml), Options{PermissionMode: "bypassPermissions",
				Tools: []llm.Tool{&probeTool{}}})
		}},
		{"NewFromConfig", func(t *testing.T) *InteractiveSession {
			s, err := NewFromConfig(context.Background(), session.Config{Provider: scriptProvider(t, yaml),
				Tools: []llm.Tool{&probeTool{}}, Evaluator: allowAll{}, NewID: safeIDs()}, InteractiveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close(context.Background(), "other") })
			return s
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.make(t)
			sub := s.Subscribe()
			sent, err := s.Submit("go")
			if err != nil {
				t.Fatal(err)
			}
			events := until(t, sub, ends(sent.PromptID))
			var got, order []string
			for _, e := range events {
				switch e.Type {
				case EventMessage:
					if e.PromptID != sent.PromptID {
						t.Fatalf("message event of prompt %q, want %q", e.PromptID, sent.PromptID)
					}
					got = append(got, string(e.Message.Role)+": "+e.Message.Text())
					order = append(order, "message:"+string(e.Message.Role))
				case EventToolEnd:
					order = append(order, "tool_end")
				case EventComplete:
					order = append(order, "complete")
				}
			}
			var want []string
			for _, m := range s.Session().Messages() {
				if m.Role != llm.RoleSystem {
					want = append(want, string(m.Role)+": "+m.Text())
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("message events %q\nconversation   %q", got, want)
			}
			wantOrder := []string{"message:user", "message:assistant", "tool_end", "message:tool", "message:assistant", "complete"}
			if !slices.Equal(order, wantOrder) {
				t.Fatalf("order %q, want %q", order, wantOrder)
			}
		})
	}
}
