package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// OnRunEnd sees how a Run that reached the model ended, just before its save: an event
// entry it adds is in the record saved by that Run (one save, not two). A Run refused
// before the model is asked does not call it.
func TestSession_OnRunEndBeforeSave(t *testing.T) {
	for _, tc := range []struct {
		name      string
		yaml      string
		wantStop  agent.StopReason
		wantError bool
	}{
		{"completed", "turns:\n  - text: ok\n    usage: {inputTokens: 5, outputTokens: 2}\n", agent.StopCompleted, false},
		{"provider failure", "turns:\n  - text: part\n    error: {code: PROVIDER_ERROR, message: boom}\n", agent.StopProviderError, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &memStore{}
			var s *session.Session
			var seen []agent.Result
			s = newSession(t, session.Config{Provider: newProvider(t, tc.yaml), Store: st,
				Callbacks: session.Callbacks{OnRunEnd: func(r agent.Result) {
					seen = append(seen, r)
					data, _ := json.Marshal(map[string]string{"stop": string(r.StopReason)})
					if err := s.AddHistoryEntry(session.HistoryEntry{Category: session.CategoryEvent, Type: "run-end", Data: data}); err != nil {
						t.Errorf("AddHistoryEntry: %v", err)
					}
				}}})
			_, err := s.Run(context.Background(), "hi")
			if (err != nil) != tc.wantError {
				t.Fatalf("Run: %v", err)
			}
			if len(seen) != 1 || seen[0].StopReason != tc.wantStop {
				t.Fatalf("OnRunEnd saw %+v", seen)
			}
			rec := st.load(t, s.ID())
			found := false
			for _, raw := range rec.History {
				var e session.HistoryEntry
				_ = json.Unmarshal(raw, &e)
				found = found || e.Type == "run-end"
			}
			if !found || st.saves != 1 {
				t.Fatalf("saved %d times; run-end entry in the record: %v", st.saves, found)
			}
		})
	}
	// Blocked before the model: no OnRunEnd, and LastResult describes this Run (zero), not
	// the one before.
	calls := 0
	hooks := &fakeHooks{answers: map[session.HookEvent]func(session.HookInput) session.HookOutcome{
		session.HookUserPromptSubmit: func(in session.HookInput) session.HookOutcome {
			return session.HookOutcome{Blocked: in.Prompt == "block me", Reason: "no"}
		}}}
	s := newSession(t, session.Config{Provider: newProvider(t, "turns:\n  - text: ok\n"), Hooks: hooks,
		Callbacks: session.Callbacks{OnRunEnd: func(agent.Result) { calls++ }}})
	mustRun(t, s, "hi")
	if calls != 1 || s.LastResult().Rounds != 1 {
		t.Fatalf("first run: OnRunEnd %d, last %+v", calls, s.LastResult())
	}
	if _, err := s.Run(context.Background(), "block me"); !errors.Is(err, session.ErrPromptBlocked) || calls != 1 || s.LastResult().Rounds != 0 {
		t.Fatalf("blocked run: err %v, OnRunEnd calls %d, last %+v", err, calls, s.LastResult())
	}
}
