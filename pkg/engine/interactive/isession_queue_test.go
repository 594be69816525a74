package interactive_test

import (
	"errors"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

const echoScript = `
turns:
  - text: "answer one"
    repeat: false
  - text: "answer two"
  - text: "answer three"
  - text: "answer four"
`

// A second prompt while one runs is queued and runs next; a third is refused.
func TestSubmitQueueOfOne(t *testing.T) {
	g := newGated(scriptProvider(t, echoScript))
	s := newTestSession(t, g, Options{})
	sub := s.Subscribe()

	first, err := s.Submit("one")
	if err != nil || first.Queued {
		t.Fatalf("first submit: %+v %v", first, err)
	}
	if got := waitStarted(t, g); got != "one" {
		t.Fatalf("provider asked %q first", got)
	}
	second, err := s.Submit("two")
	if err != nil || !second.Queued {
		t.Fatalf("second submit: %+v %v, want queued", second, err)
	}
	if _, err := s.Submit("three"); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("third submit: %v, want ErrQueueFull", err)
	}
	if _, err := s.Submit("  "); !errors.Is(err, ErrEmptyPrompt) {
		t.Fatalf("empty submit: %v, want ErrEmptyPrompt", err)
	}
	g.release <- struct{}{}
	events := until(t, sub, ends(first.PromptID))
	if end := events[len(events)-1]; end.Type != EventComplete || end.Result.Response != "answer one" {
		t.Fatalf("first prompt ended %s %+v", end.Type, end.Result)
	}
	for _, e := range events {
		if e.PromptID == second.PromptID {
			t.Fatalf("the queued prompt produced %s before the first ended", e.Type)
		}
	}
	// The queued prompt runs next, without another Submit.
	if got := waitStarted(t, g); got != "two" {
		t.Fatalf("provider asked %q second", got)
	}
	// The queue is free again while the second runs.
	third, err := s.Submit("three")
	if err != nil || !third.Queued {
		t.Fatalf("submit after the queue emptied: %+v %v", third, err)
	}
	g.release <- struct{}{}
	more := until(t, sub, ends(second.PromptID))
	if end := more[len(more)-1]; end.Type != EventComplete || end.Result.Response != "answer two" {
		t.Fatalf("second prompt ended %s %+v", end.Type, end.Result)
	}
	waitStarted(t, g)
	g.release <- struct{}{}
	more = append(more, until(t, sub, ends(third.PromptID))...)
	checkSeq(t, append(events, more...))
}

// Abort clears the queue (the queued prompt ends interrupted at once) and interrupts
// the running prompt when the abort completes; the session takes prompts again after.
func TestAbortClearsQueueAndInterrupts(t *testing.T) {
	g := newGated(scriptProvider(t, echoScript))
	s := newTestSession(t, g, Options{})
	sub := s.Subscribe()
	first, _ := s.Submit("one")
	waitStarted(t, g)
	second, _ := s.Submit("two")
	if !s.Abort() {
		t.Fatal("Abort reported nothing to abort")
	}
	events := until(t, sub, ends(first.PromptID))
	var ended []string
	for _, e := range events {
		if e.Type == EventInterrupted {
			ended = append(ended, e.PromptID+":"+e.Result.Reason)
			// The aborted run's error rides along (robota -p reports it); a prompt
			// removed from the queue never ran and has none.
			if aborted := e.PromptID == first.PromptID; aborted != errors.Is(e.Result.Err, session.ErrAborted) {
				t.Fatalf("%s interrupted with error %v", e.PromptID, e.Result.Err)
			}
		}
		if e.PromptID == second.PromptID && e.Type != EventInterrupted {
			t.Fatalf("the cleared prompt produced %s", e.Type)
		}
	}
	want := []string{second.PromptID + ":removed from the queue", first.PromptID + ":aborted"}
	if len(ended) != 2 || ended[0] != want[0] || ended[1] != want[1] {
		t.Fatalf("interrupted events %v, want %v", ended, want)
	}
	checkSeq(t, events)
	if s.IsRunning() || s.Queued() {
		t.Fatal("session still busy after the abort")
	}
	// Usable again.
	third, err := s.Submit("three")
	if err != nil {
		t.Fatal(err)
	}
	if got := waitStarted(t, g); got != "three" {
		t.Fatalf("provider asked %q after the abort", got)
	}
	g.release <- struct{}{}
	if end := until(t, sub, ends(third.PromptID)); end[len(end)-1].Type != EventComplete {
		t.Fatalf("prompt after abort ended %s", end[len(end)-1].Type)
	}
	if s.Abort() {
		t.Fatal("Abort at rest reported something aborted")
	}
}

// CancelQueue removes only the queued prompt.
func TestCancelQueue(t *testing.T) {
	g := newGated(scriptProvider(t, echoScript))
	s := newTestSession(t, g, Options{})
	sub := s.Subscribe()
	first, _ := s.Submit("one")
	waitStarted(t, g)
	if s.CancelQueue() {
		t.Fatal("CancelQueue with nothing queued reported a removal")
	}
	second, _ := s.Submit("two")
	if !s.CancelQueue() {
		t.Fatal("CancelQueue did not remove the queued prompt")
	}
	if evs := until(t, sub, ends(second.PromptID)); evs[len(evs)-1].Type != EventInterrupted {
		t.Fatalf("the cancelled prompt ended %s", evs[len(evs)-1].Type)
	}
	g.release <- struct{}{}
	events := until(t, sub, ends(first.PromptID))
	if end := events[len(events)-1]; end.Type != EventComplete {
		t.Fatalf("running prompt ended %s after CancelQueue", end.Type)
	}
	if s.IsRunning() {
		t.Fatal("the cancelled prompt ran")
	}
}
