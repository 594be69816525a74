package session_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// Usage And Context Refresh: one estimate before the send, one reconciliation with
// provider usage after the response.
func TestRun_RefreshesContextTwice(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: answer\n    usage: {inputTokens: 1234, outputTokens: 56}\n")
	var states []contextwin.WindowState
	s := newSession(t, session.Config{Provider: p, ContextWindow: 10_000,
		Callbacks: session.Callbacks{OnContextUpdate: func(st contextwin.WindowState) { states = append(states, st) }}})
	prompt := "a question of some length"
	mustRun(t, s, prompt)
	if len(states) != 2 {
		t.Fatalf("%d context updates, want 2", len(states))
	}
	pending := []llm.Message{llm.NewSystemMessage(testSystem), llm.NewUserMessage(prompt)}
	if want := contextwin.EstimateSerializedTokens(pending); states[0].UsedTokens != want || states[0].MaxTokens != 10_000 {
		t.Fatalf("pre-send state %+v, want the serialized estimate %d", states[0], want)
	}
	if states[1].UsedTokens != 1290 || states[1].UsedPercentage != 12.9 {
		t.Fatalf("post-response state %+v, want the provider's 1,290 tokens", states[1])
	}
	if got := s.ContextState(); got != states[1] {
		t.Fatalf("ContextState %+v, want %+v", got, states[1])
	}
}

func TestContextWindowTracker_ShouldAutoCompact(t *testing.T) {
	withUsage := func(in int) []llm.Message {
		m := llm.NewAssistantMessage([]llm.Part{llm.TextPart("x")}, llm.StateComplete)
		m.Usage = &llm.Usage{InputTokens: in}
		return []llm.Message{llm.NewUserMessage("q"), m}
	}
	tests := []struct {
		threshold session.AutoCompactThreshold
		used      int
		want      bool
	}{
		{session.AutoCompactThreshold{}, 835, true},
		{session.AutoCompactThreshold{}, 834, false},
		{session.AutoCompactAt(0.5), 500, true},
		{session.AutoCompactAt(1), 999, false},
		{session.AutoCompactDisabled, 1000, false},
	}
	for _, tc := range tests {
		tr := session.NewContextWindowTracker(1000, tc.threshold)
		tr.UpdateFromHistory(withUsage(tc.used), 0)
		if got := tr.ShouldAutoCompact(); got != tc.want {
			t.Fatalf("threshold %+v used %d: %v, want %v", tc.threshold, tc.used, got, tc.want)
		}
	}
}

func TestAutoCompactThreshold_JSON(t *testing.T) {
	for in, want := range map[string]session.AutoCompactThreshold{
		"false": session.AutoCompactDisabled, "0.5": session.AutoCompactAt(0.5), "null": {}, "true": {},
	} {
		var got session.AutoCompactThreshold
		if err := json.Unmarshal([]byte(in), &got); err != nil || got != want {
			t.Fatalf("%s → %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"1.5", "0", "-1", `"x"`} {
		var got session.AutoCompactThreshold
		if err := json.Unmarshal([]byte(bad), &got); !errors.Is(err, session.ErrInvalidThreshold) {
			t.Fatalf("%s accepted: %+v, %v", bad, got, err)
		}
	}
	for th, want := range map[session.AutoCompactThreshold]string{
		session.AutoCompactDisabled: "false", {}: "0.835", session.AutoCompactAt(0.7): "0.7",
	} {
		if b, _ := json.Marshal(th); string(b) != want {
			t.Fatalf("%+v marshals to %s, want %s", th, b, want)
		}
	}
}
