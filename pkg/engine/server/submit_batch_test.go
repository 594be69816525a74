package server

import (
	"fmt"
	"slices"
	"testing"
	"time"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// A quick turn arrives in two messages: the acceptance with the first context update
// and the text, then the end event, which carries the context state the trailing
// context_update would have repeated. What goes together depends on timing (the save
// between the text and the end, or a late first text, may outlast the hold-back on a
// loaded machine), so every turn must be well formed and one of several must be ideal.
func TestSubmitSendsATurnInFewMessages(t *testing.T) {
	e := startEngine(t, "", nil)
	// In memory: on a slow disk the fsynced save alone outlasts the hold-back every time.
	id := e.create(memoryProject(t, "turns:\n  - text: \"ok\"\n    usage: {inputTokens: 10, outputTokens: 1}\n    repeat: true\n"), nil).GetSessionId()
	want := []string{"context_update", "text_delta", "complete"}
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
		// The update after the text is left out only when the end follows in time.
		trimmed := got
		if len(got) == 4 && got[2] == "context_update" {
			trimmed = []string{got[0], got[1], got[3]}
		}
		if !slices.Equal(trimmed, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		for _, ev := range r.events {
			if ev.GetPromptId() != r.accepted.GetPromptId() {
				t.Fatalf("event %s of prompt %q, want %q", kind(ev), ev.GetPromptId(), r.accepted.GetPromptId())
			}
		}
		if st := r.last().GetComplete().GetResult().GetContextState(); st.GetUsedTokens() != 11 {
			t.Fatalf("complete carries context state %v, want the 11 tokens used", st)
		}
		// One message per event at most, and never one for the acceptance alone.
		if r.messages > len(got) {
			t.Fatalf("the turn took %d messages for %d events", r.messages, len(got))
		}
		if slices.Equal(got, want) && r.messages <= 2 {
			return
		}
		shapes = append(shapes, fmt.Sprintf("%v in %d messages", got, r.messages))
	}
	t.Fatalf("no turn came as %v in two messages: %v", want, shapes)
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
	if first.GetAccepted().GetPromptId() == "" || len(first.GetEvents()) != 1 || first.GetEvents()[0].GetContextUpdate() == nil {
		t.Fatalf("first message %v: want the acceptance and the context update", first)
	}
	if r := drainSubmit(stream, nil); r.err != nil || r.text() != "late" || r.last().GetComplete() == nil {
		t.Fatalf("rest of the turn: %v, %q, %v", kinds(r.events), r.text(), r.err)
	}
}
