package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// checkedProvider calls check before every provider request.
type checkedProvider struct {
	llm.Provider
	check func(req llm.ChatRequest)
}

func (c checkedProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	c.check(req)
	return c.Provider.Chat(ctx, req, cb)
}

// Issue 10 §2 / DESIGN.md decision 8: before every provider request, the store holds every
// message the request carries: the prompt, and each completed tool round (the assistant
// message and its tool results). A kill at any instant loses at most the round in flight.
func TestSession_EveryCompletedRoundIsStoredBeforeTheNextRequest(t *testing.T) {
	const rounds = 5
	var b strings.Builder
	b.WriteString("turns:\n")
	for i := range rounds {
		fmt.Fprintf(&b, "  - toolCalls: [{id: call_%d, name: Read, input: {file_path: f%d}}, {id: call_%db, name: Read, input: {file_path: g%d}}]\n", i, i, i, i)
	}
	b.WriteString("  - text: done\n")
	st := &memStore{}
	checked := 0
	var failures []string
	p := checkedProvider{Provider: newProvider(t, b.String()), check: func(req llm.ChatRequest) {
		checked++
		rec := st.load(t, "s1")
		var want []string
		for _, m := range req.Messages {
			want = append(want, fmt.Sprintf("%s:%s", m.Role, m.ID))
		}
		var got []string
		for _, m := range rec.Messages {
			got = append(got, fmt.Sprintf("%s:%s", m.Role, m.ID))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			failures = append(failures, fmt.Sprintf("request %d carries %v, the store holds %v", checked, want, got))
		}
	}}
	s := newSession(t, session.Config{Provider: p, Tools: []llm.Tool{&funcTool{name: "Read"}}, Evaluator: allowAll(),
		Store: st, SessionID: "s1", SystemMessage: testSystem})
	if got := mustRun(t, s, "go"); got != "done" {
		t.Fatalf("answer %q", got)
	}
	if checked != rounds+1 {
		t.Fatalf("%d provider requests, want %d", checked, rounds+1)
	}
	for _, f := range failures {
		t.Error(f)
	}
	// Each save appended only what was new: the journal holds every message once.
	raw := string(st.store().Journal("s1"))
	if n := strings.Count(raw, `{"k":"m",`); n != len(s.Messages()) {
		t.Errorf("the journal has %d message lines for %d messages", n, len(s.Messages()))
	}
}

// A save that fails mid-run (a full disk) does not stop the run; the save at its end
// tries again and the run reports the failure as ErrSave.
func TestSession_FailedRoundSaveIsRetriedAndReported(t *testing.T) {
	st := &memStore{err: errors.New("no space left on device")}
	p := newProvider(t, "turns:\n  - toolCalls: [{id: c1, name: Read, input: {}}]\n  - text: done\n")
	s := newSession(t, session.Config{Provider: p, Tools: []llm.Tool{&funcTool{name: "Read"}}, Evaluator: allowAll(), Store: st, SessionID: "s1"})
	_, err := s.Run(context.Background(), "go")
	if !errors.Is(err, session.ErrSave) || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("Run = %v, want ErrSave naming the cause", err)
	}
	st.mu.Lock()
	st.err = nil
	st.mu.Unlock()
	if err := s.Shutdown(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if got := roles(st.load(t, "s1").Messages); got != "system,user,assistant,tool,assistant" {
		t.Errorf("after the disk recovered: %s", got)
	}
}
