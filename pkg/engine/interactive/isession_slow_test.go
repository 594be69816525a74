package interactive_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

// Through a real session: a subscriber that never reads does not hold the session up,
// and when it finally reads it finds every lifecycle event, in order, and the whole
// answer in its (merged) deltas. A subscriber past its bound is cut off while the
// session and the others go on; a late subscriber replays the prompt.
func TestSlowSubscriberThroughSession(t *testing.T) {
	answer := strings.Repeat("word ", 300)
	p := scriptProvider(t, fmt.Sprintf(`
turns:
  - text: "checking"
    toolCalls: [{id: c1, name: Bash, input: {command: "echo hi"}}]
  - text: %q
    chunkSize: 3
`, answer))
	s := newTestSession(t, p, Options{PermissionMode: "bypassPermissions",
		Interactive: InteractiveOptions{Delivery: DeliveryLimits{SubscriberEvents: 16}}})
	stalled := s.Subscribe()       // never read until the prompt is over
	tiny := SubscribeBounded(s, 2) // cut off early
	fast := s.Subscribe()
	sent, _ := s.Submit("go")
	live := until(t, fast, ends(sent.PromptID))
	checkSeq(t, live)
	if end := live[len(live)-1]; end.Type != EventComplete || end.Result.Response != answer {
		t.Fatalf("prompt ended %s", end.Type)
	}

	// Taken up to the end event: publish offers an event to the subscribers one after
	// the other, so the fast one may see it before it is queued for this one.
	got := until(t, stalled, ends(sent.PromptID))
	checkSeq(t, got)
	// Merged deltas leave gaps in the sequence: fewer events than were published. (The
	// live one may be merged too when the session outruns its reader.)
	if published := int(got[len(got)-1].Seq-got[0].Seq) + 1; len(got) >= published {
		t.Fatalf("the stalled subscriber got %d events of the %d published: nothing was merged", len(got), published)
	}
	lifecycle := func(events []Event) string {
		var out []string
		for _, e := range events {
			if !Mergeable(e.Type) {
				out = append(out, string(e.Type))
			}
		}
		return strings.Join(out, " ")
	}
	text := func(events []Event) string {
		var b strings.Builder
		for _, e := range events {
			if e.Type == EventTextDelta {
				b.WriteString(e.Text)
			}
		}
		return b.String()
	}
	if lifecycle(got) != lifecycle(live) {
		t.Fatalf("lifecycle events differ:\nstalled %s\nlive    %s", lifecycle(got), lifecycle(live))
	}
	if text(got) != text(live) || !strings.Contains(text(got), strings.TrimSpace(answer)) {
		t.Fatalf("the merged text differs from the streamed text:\nstalled %q\nlive    %q", text(got), text(live))
	}
	if _, err := drain(t, tiny); !errors.Is(err, ErrSubscriberTooSlow) {
		t.Fatalf("the subscriber past its bound: %v, want ErrSubscriberTooSlow", err)
	}

	// A late subscriber asks for everything after the first event it missed.
	late, err := s.SubscribeAfter(live[9].Seq)
	if err != nil {
		t.Fatal(err)
	}
	replayed, _ := drain(t, late)
	if len(replayed) == 0 || lifecycle(replayed) != lifecycle(live[10:]) || text(replayed) != text(live[10:]) ||
		replayed[len(replayed)-1].Seq != live[len(live)-1].Seq {
		t.Fatalf("replay after %d: %q", live[9].Seq, types(replayed))
	}
	if s.LastSeq() != live[len(live)-1].Seq {
		t.Fatalf("LastSeq %d, last event %d", s.LastSeq(), live[len(live)-1].Seq)
	}
}

// drain takes every queued event without waiting.
func drain(t *testing.T, sub *Subscription) ([]Event, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Next returns at once when nothing is queued
	var got []Event
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return got, nil
			}
			return got, err
		}
		got = append(got, ev)
	}
}

func types(events []Event) string {
	var b []string
	for _, e := range events {
		s := string(e.Type)
		if e.Text != "" {
			s += "(" + e.Text + ")"
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}
