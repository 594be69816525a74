package server

import (
	"testing"
	"time"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// A quick turn arrives in two messages: the acceptance with the first context update
// and the text, then the end event, which carries the context state the trailing
// context_update would have repeated.
func TestSubmitSendsATurnInFewMessages(t *testing.T) {
	e := startEngine(t, "", nil)
	id := e.create(project(t, "turns:\n  - text: \"ok\"\n    usage: {inputTokens: 10, outputTokens: 1}\n    repeat: true\n"), nil).GetSessionId()
	for range 3 {
		r := e.submit(id, "hi")
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.accepted.GetPromptId() == "" || r.accepted.GetQueued() {
			t.Fatalf("accepted %v", r.accepted)
		}
		got := kinds(r.events)
		want := []string{"context_update", "text_delta", "complete"}
		if len(got) != len(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("events %v, want %v", got, want)
			}
		}
		for _, ev := range r.events {
			if ev.GetPromptId() != r.accepted.GetPromptId() {
				t.Fatalf("event %s of prompt %q, want %q", kind(ev), ev.GetPromptId(), r.accepted.GetPromptId())
			}
		}
		if st := r.last().GetComplete().GetResult().GetContextState(); st.GetUsedTokens() != 11 {
			t.Fatalf("complete carries context state %v, want the 11 tokens used", st)
		}
		// The save between the text and the end may outlast the hold-back on a loaded
		// machine; the acceptance and the first update never go alone.
		if r.messages > 3 {
			t.Fatalf("the turn took %d messages", r.messages)
		}
	}
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
