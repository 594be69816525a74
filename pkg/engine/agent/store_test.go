package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Spec: ConversationStore Streaming State.
func TestConversationStoreStreamingState(t *testing.T) {
	f := llm.Factory{NewID: ids(), Now: fixedClock}
	s := agent.NewConversationStore(f, []llm.Message{f.User("earlier")})
	s.BeginAssistant()
	s.AppendStreaming("Hello, ")
	s.AppendStreaming("world")
	s.AppendToolCall(llm.ToolCall{ID: "call_0", Name: "Read"})
	s.AppendToolCall(llm.ToolCall{ID: "call_0", Name: "Read"}) // duplicate within one message
	s.AppendToolCall(llm.ToolCall{ID: "call_1", Name: "Bash"})
	if s.PendingContent() != "Hello, world" || s.Len() != 1 {
		t.Fatalf("pending %q, len %d: streamed text must stay pending until committed", s.PendingContent(), s.Len())
	}
	m := s.CommitAssistant(llm.StateComplete, &llm.Usage{InputTokens: 1}, nil)
	if m.Text() != "Hello, world" || len(m.ToolCalls()) != 2 || m.State != llm.StateComplete {
		t.Fatalf("committed %+v: text must be kept next to tool calls, duplicates dropped", m)
	}
	if s.PendingContent() != "" || s.Len() != 2 {
		t.Fatalf("after commit: pending %q len %d", s.PendingContent(), s.Len())
	}

	// Always committed: an empty interrupted message is still appended.
	s.BeginAssistant()
	empty := s.CommitAssistant(llm.StateInterrupted, nil, nil)
	if s.Len() != 3 || empty.State != llm.StateInterrupted || len(empty.Content) != 0 {
		t.Fatalf("empty commit: len %d msg %+v", s.Len(), empty)
	}

	// History returns a fresh slice: appending to or reslicing it does not touch the store.
	h := s.History()
	h = append(h[:0], f.User("x"))
	if s.History()[0].Text() == "x" {
		t.Fatal("History exposed the store's slice")
	}
	_ = h
}

// View shares the store's array without letting either side see the other's appends:
// the store's later messages stay out of a view taken before, and appending to a view
// never writes into the store's spare capacity. Run with -race: views are read while
// the store appends.
func TestConversationStoreView(t *testing.T) {
	f := llm.Factory{NewID: ids(), Now: fixedClock}
	s := agent.NewConversationStore(f, []llm.Message{f.User("one")})
	for range 4 { // grow the array so it has spare capacity
		s.Append(f.User("more"))
	}
	v := s.View()
	if len(v) != 5 || v[0].Text() != "one" {
		t.Fatalf("view %d messages, first %q", len(v), v[0].Text())
	}
	w := append(v, f.User("appended to the view"))
	s.Append(f.User("six"))
	if h := s.History(); len(h) != 6 || h[5].Text() != "six" {
		t.Fatalf("store after appending to a view: %d messages, last %q", len(h), h[len(h)-1].Text())
	}
	if w[5].Text() != "appended to the view" {
		t.Fatalf("the view's append shares the store's array: it now reads %q", w[5].Text())
	}
	if len(v) != 5 {
		t.Fatalf("the view grew to %d", len(v))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			s.Append(f.User("concurrent"))
		}
	}()
	for range 100 {
		for _, m := range s.View() {
			_ = m.Text()
		}
	}
	<-done
	if s.Len() != 106 {
		t.Fatalf("store has %d messages, want 106", s.Len())
	}
}

func TestRunRejectsConcurrentRuns(t *testing.T) {
	p := scriptProvider(t, "turns:\n  - {text: a, hang: true}\n")
	a := newAgent(t, agent.Config{Provider: p})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		_, _ = a.Run(ctx, "one", agent.RunOptions{OnTextDelta: func(string) { close(started) }})
		close(done)
	}()
	<-started
	if _, err := a.Run(context.Background(), "two", agent.RunOptions{}); !errors.Is(err, agent.ErrRunInProgress) {
		t.Fatalf("second Run error = %v", err)
	}
	cancel()
	<-done
}

func TestNewRequiresProviderAndUniqueTools(t *testing.T) {
	if _, err := agent.New(agent.Config{}); !errors.Is(err, agent.ErrNoProvider) {
		t.Fatalf("err = %v", err)
	}
	p := scriptProvider(t, "turns:\n  - text: a\n")
	if _, err := agent.New(agent.Config{Provider: p, Tools: []llm.Tool{&echoTool{name: "E"}, &echoTool{name: "E"}}}); err == nil {
		t.Fatal("duplicate tool names accepted")
	}
}
