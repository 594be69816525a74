package interactive_test

import (
	"errors"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// SetModel switches the model from the next prompt on, keeping the conversation; while a
// prompt runs it is refused.
func TestSetModelBetweenPrompts(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - text: "first"
  - when: {model: second-model, lastUserContains: "again"}
    text: "second, after first"
  - when: {lastUserContains: "slow"}
    text: "slow answer"
    hang: true
`)
	s := newTestSession(t, p, Options{})
	sub := s.Subscribe()
	sent, _ := s.Submit("hello")
	until(t, sub, ends(sent.PromptID))
	if id, err := s.SetModel("second-model"); err != nil || id != "second-model" {
		t.Fatalf("SetModel = %q, %v", id, err)
	}
	sent, _ = s.Submit("again")
	evs := until(t, sub, ends(sent.PromptID))
	if last := evs[len(evs)-1]; last.Type != EventComplete || last.Result.Response != "second, after first" {
		t.Fatalf("after SetModel the prompt ended %s %+v", last.Type, last.Result)
	}
	if n := len(s.Session().Messages()); n < 4 {
		t.Fatalf("the conversation was not kept: %d messages", n)
	}
	sent, _ = s.Submit("slow")
	until(t, sub, func(ev Event) bool { return ev.Type == EventTextDelta && ev.PromptID == sent.PromptID })
	if _, err := s.SetModel("third-model"); !errors.Is(err, session.ErrRunInProgress) {
		t.Fatalf("SetModel during a prompt = %v, want ErrRunInProgress", err)
	}
	s.Abort()
	until(t, sub, ends(sent.PromptID))
}
