package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

// A quick turn arrives in one message: the acceptance, the text and the end event,
// whose result carries the context state the turn's context_updates would have
// repeated (they are left out of a message that ends with the end event). What goes
// together depends on timing (the save between the text and the end, or a late first
// text, may outlast the hold-back on a loaded machine, and a message sent before the end
// keeps its update), so every turn must be well formed and one of several ideal.
func TestSubmitSendsATurnInFewMessages(t *testing.T) {
	e := startEngine(t, "", nil)
	// In memory: on a slow disk the fsynced save alone outlasts the hold-back every time.
	id := e.create(memoryProject(t, "turns:\n  - text: \"ok\"\n    usage: {inputTokens: 10, outputTokens: 1}\n    repeat: true\n"), nil).GetSessionId()
	want := []string{"text_delta", "complete"}
	var shapes []string
	for range 8 {
		r := e.submit(id, "hi")
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.accepted.GetPromptId() == "" || r.accepted.GetQueued() {
			t.Fatalf("accepted %v", r.accepted)
		}
		got := kinds(r.events)
		// Context updates appear only where the turn's events were split.
		trimmed := slices.DeleteFunc(slices.Clone(got), func(k string) bool { return k == "context_update" })
		if !slices.Equal(trimmed, want) {
			t.Fatalf("events %v, want %v with context updates at most", got, want)
		}
		if n := len(got); n > 1 && got[n-2] == "context_update" && r.messages == 1 {
			t.Fatalf("events %v in one message: the update before the end event is left out", got)
		}
		for _, ev := range r.events {
			if ev.GetPromptId() != r.accepted.GetPromptId() {
				t.Fatalf("event %s of prompt %q, want %q", kind(ev), ev.GetPromptId(), r.accepted.GetPromptId())
			}
		}
		if st := r.last().GetComplete().GetResult().GetContextState(); st.GetUsedTokens() != 11 {
			t.Fatalf("complete carries context state %v, want the 11 tokens used", st)
		}
		// One message per event at most, and one more when the acceptance's hold-back ran
		// out before the turn's first event (a loaded machine).
		if r.messages > len(got)+1 {
			t.Fatalf("the turn took %d messages for %d events", r.messages, len(got))
		}
		if slices.Equal(got, want) && r.messages == 1 {
			return
		}
		shapes = append(shapes, fmt.Sprintf("%v in %d messages", got, r.messages))
	}
	t.Fatalf("no turn came as %v in one message: %v", want, shapes)
}

// What is held back waits for company only briefly: before a slow model's first text,
// the acceptance and the context update arrive on their own.
func TestSubmitHoldsBackOnlyBriefly(t *testing.T) {
	e := startEngine(t, "", nil)
	id := e.create(project(t, "turns:\n  - text: \"late\"\n    delay: 2s\n"), nil).GetSessionId()
	stream, err := e.client.Submit(testCtx(t), &robotav1.SubmitRequest{SessionId: id, Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	first, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if wait := time.Since(start); wait > time.Second {
		t.Fatalf("the first message waited %v for the text", wait)
	}
	if first.GetAccepted().GetPromptId() == "" {
		t.Fatalf("first message %v: want the acceptance", first)
	}
	// The update usually rides with the acceptance; on a loaded machine it can come after
	// the acceptance's hold-back, and then goes in a message of its own. Either way it
	// comes before the late text, not with it.
	update := first.GetEvents()
	if len(update) == 0 {
		second, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if wait := time.Since(start); wait > time.Second {
			t.Fatalf("the context update waited %v for the text", wait)
		}
		update = second.GetEvents()
	}
	if len(update) != 1 || update[0].GetContextUpdate() == nil {
		t.Fatalf("first message %v, then events %v: want the acceptance and the context update before the text", first, update)
	}
	if r := drainSubmit(stream, nil); r.err != nil || r.text() != "late" || r.last().GetComplete() == nil {
		t.Fatalf("rest of the turn: %v, %q, %v", kinds(r.events), r.text(), r.err)
	}
}

// sentMessages is a Submit stream that keeps what is sent.
type sentMessages struct {
	robotav1.EngineService_SubmitServer
	msgs []*robotav1.SubmitResponse
}

func (s *sentMessages) Send(m *robotav1.SubmitResponse) error {
	s.msgs = append(s.msgs, m)
	return nil
}

func (s *sentMessages) shapes() []string {
	var out []string
	for _, m := range s.msgs {
		var ks []string
		if m.GetAccepted() != nil {
			ks = append(ks, "accepted")
		}
		for _, ev := range m.GetEvents() {
			k := kind(ev)
			if ev.GetContextUpdate() != nil {
				k = fmt.Sprintf("context_update(%d)", ev.GetSequence())
			}
			ks = append(ks, k)
		}
		out = append(out, strings.Join(ks, " "))
	}
	return out
}

// A message carries only its latest context update, where it came, and none when it
// ends with the prompt's end event (whose result carries the state); an update held
// when the message goes out for another reason goes with it.
func TestSubmitBatchPlacesTheLatestContextUpdate(t *testing.T) {
	e := startEngine(t, "", nil)
	id := e.create(memoryProject(t, "turns:\n  - text: \"ok\"\n"), nil).GetSessionId()
	l, err := e.mgr.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	update := func(seq uint64) interactive.Event {
		return interactive.Event{Seq: seq, Type: interactive.EventContextUpdate, PromptID: "p",
			Context: &contextwin.WindowState{UsedTokens: int(seq), MaxTokens: 100}}
	}
	text := interactive.Event{Type: interactive.EventTextDelta, PromptID: "p", Text: "a"}
	tool := interactive.Event{Type: interactive.EventToolStart, PromptID: "p", Tool: &interactive.ToolState{ToolName: "Read", IsRunning: true}}
	done := interactive.Event{Type: interactive.EventComplete, PromptID: "p", Result: &interactive.Result{Response: "a"}}
	for _, tc := range []struct {
		name string
		run  func(b *submitBatch) error
		want []string
	}{
		{"a later update replaces an earlier one, in its own place", func(b *submitBatch) error {
			b.hold(update(1))
			if err := b.add(text); err != nil {
				return err
			}
			b.hold(update(2))
			if err := b.add(tool); err != nil {
				return err
			}
			return b.flush(false)
		}, []string{"accepted text_delta context_update(2) tool_start"}},
		{"the end event leaves the update out and carries its state", func(b *submitBatch) error {
			b.hold(update(3))
			if err := b.add(text); err != nil {
				return err
			}
			b.dropHeld()
			if err := b.add(done); err != nil {
				return err
			}
			return b.flush(false)
		}, []string{"accepted text_delta complete"}},
		{"an update alone goes with the acceptance when time is up", func(b *submitBatch) error {
			b.hold(update(4))
			if err := b.flush(false); err != nil {
				return err
			}
			if err := b.add(text); err != nil {
				return err
			}
			return b.flush(false)
		}, []string{"accepted context_update(4)", "text_delta"}},
		{"an update after a batch's events waits for the next, and the end leaves it out", func(b *submitBatch) error {
			if err := b.add(text); err != nil {
				return err
			}
			b.hold(update(3))
			if err := b.flush(true); err != nil { // the end of a batch
				return err
			}
			b.dropHeld()
			if err := b.add(done); err != nil {
				return err
			}
			return b.flush(false)
		}, []string{"accepted text_delta", "complete"}},
		{"an update after a batch's events goes with the next event", func(b *submitBatch) error {
			if err := b.add(text); err != nil {
				return err
			}
			b.hold(update(5))
			if err := b.flush(true); err != nil {
				return err
			}
			if err := b.add(tool); err != nil {
				return err
			}
			return b.flush(true)
		}, []string{"accepted text_delta", "context_update(5) tool_start"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sent := &sentMessages{}
			b := &submitBatch{stream: sent, live: l, msg: &robotav1.SubmitResponse{Accepted: &robotav1.SubmitAccepted{PromptId: "p"}}}
			if err := tc.run(b); err != nil {
				t.Fatal(err)
			}
			if got := sent.shapes(); !slices.Equal(got, tc.want) {
				t.Fatalf("messages %q, want %q", got, tc.want)
			}
			if last := sent.msgs[len(sent.msgs)-1]; last.GetEvents()[len(last.GetEvents())-1].GetComplete() != nil {
				if st := last.GetEvents()[len(last.GetEvents())-1].GetComplete().GetResult().GetContextState(); st.GetUsedTokens() != 3 {
					t.Fatalf("the end event carries %v, want the held update's state", st)
				}
			}
		})
	}
}
