// Package interactivetest holds the test helpers that read an InteractiveSession's
// events, shared by the session core's tests and the composition root's (which build
// sessions the core's own tests cannot: assemble imports the core).
package interactivetest

import (
	"context"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

// Wait bounds each wait for an event.
const Wait = 20 * time.Second

// Next takes the next event or fails the test.
func Next(t testing.TB, sub *interactive.Subscription) interactive.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	ev, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("waiting for an event: %v", err)
	}
	return ev
}

// Until takes events until one matches, returning all taken (the match last).
func Until(t testing.TB, sub *interactive.Subscription, match func(interactive.Event) bool) []interactive.Event {
	t.Helper()
	var got []interactive.Event
	for {
		ev := Next(t, sub)
		got = append(got, ev)
		if match(ev) {
			return got
		}
	}
}

// IsType matches events of typ.
func IsType(typ interactive.EventType) func(interactive.Event) bool {
	return func(e interactive.Event) bool { return e.Type == typ }
}

// Ends matches the end event of prompt id.
func Ends(id string) func(interactive.Event) bool {
	return func(e interactive.Event) bool {
		return e.PromptID == id && (e.Type == interactive.EventComplete || e.Type == interactive.EventError || e.Type == interactive.EventInterrupted)
	}
}

// CheckSeq fails unless sequence numbers strictly increase.
func CheckSeq(t testing.TB, events []interactive.Event) {
	t.Helper()
	for i := 1; i < len(events); i++ {
		if events[i].Seq <= events[i-1].Seq {
			t.Fatalf("sequence not increasing at %d: %d after %d (%s after %s)", i, events[i].Seq, events[i-1].Seq, events[i].Type, events[i-1].Type)
		}
	}
}

// SubmitAndWait submits prompt and waits for its end, failing unless it completed; it
// returns the prompt's id.
func SubmitAndWait(t testing.TB, s *interactive.InteractiveSession, prompt string) string {
	t.Helper()
	sub := s.Subscribe()
	defer sub.Close()
	sent, err := s.Submit(prompt)
	if err != nil {
		t.Fatal(err)
	}
	events := Until(t, sub, Ends(sent.PromptID))
	if end := events[len(events)-1]; end.Type != interactive.EventComplete {
		t.Fatalf("%q ended %s %+v", prompt, end.Type, end.Result)
	}
	return sent.PromptID
}
