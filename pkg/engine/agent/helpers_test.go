package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// ids returns a deterministic ID generator: id-1, id-2, ...
func ids() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("id-%d", n)
	}
}

func fixedClock() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

func scriptProvider(t testing.TB, yaml string) *script.Provider {
	t.Helper()
	p, err := script.New([]byte(yaml), t.Name()+".yaml")
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	return p
}

// newAgent builds an agent with deterministic IDs and clock.
func newAgent(t testing.TB, cfg agent.Config) *agent.Agent {
	t.Helper()
	if cfg.NewID == nil {
		cfg.NewID = ids()
	}
	if cfg.Now == nil {
		cfg.Now = fixedClock
	}
	if cfg.ConversationID == "" {
		cfg.ConversationID = "conv-1"
	}
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatalf("agent.New: %v", err)
	}
	return a
}

// funcTool is a tool whose behaviour is a closure.
type funcTool struct {
	name string
	fn   func(ctx context.Context, args json.RawMessage) llm.ToolResult
}

func (f funcTool) Schema() llm.ToolSchema {
	return llm.ToolSchema{Name: f.name, Description: f.name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (f funcTool) Execute(ctx context.Context, args json.RawMessage) llm.ToolResult {
	return f.fn(ctx, args)
}

// echoTool returns its arguments and counts executions.
type echoTool struct {
	name  string
	mu    sync.Mutex
	calls int
}

func (e *echoTool) Schema() llm.ToolSchema {
	return llm.ToolSchema{Name: e.name, Description: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (e *echoTool) Execute(_ context.Context, args json.RawMessage) llm.ToolResult {
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	return llm.ToolSuccess(e.name + ":" + string(args))
}

func (e *echoTool) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

// recorder collects replay events and text deltas.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
	deltas []string
}

func (r *recorder) opts() agent.RunOptions {
	return agent.RunOptions{
		OnEvent: func(e agent.Event) {
			r.mu.Lock()
			r.events = append(r.events, e)
			r.mu.Unlock()
		},
		OnTextDelta: func(d string) {
			r.mu.Lock()
			r.deltas = append(r.deltas, d)
			r.mu.Unlock()
		},
	}
}

func (r *recorder) ofType(t agent.EventType) []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, e := range r.events {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// funcProvider is a provider whose Chat is a closure (for failures the script cannot express).
type funcProvider struct {
	mu    sync.Mutex
	reqs  []llm.ChatRequest
	reply func(ctx context.Context, n int, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error)
}

func (f *funcProvider) Name() string { return "func" }

func (f *funcProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	n := len(f.reqs)
	f.mu.Unlock()
	return f.reply(ctx, n, req, cb)
}

func (f *funcProvider) requests() []llm.ChatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.ChatRequest(nil), f.reqs...)
}

func textResponse(text string) llm.ChatResponse {
	return llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart(text)}}, StopReason: llm.StopReasonEndTurn}
}

func toolMessages(h []llm.Message) []llm.ToolResultPart {
	var out []llm.ToolResultPart
	for _, m := range h {
		if r, ok := m.ToolResult(); ok {
			out = append(out, r)
		}
	}
	return out
}

func lastAssistant(t *testing.T, h []llm.Message) llm.Message {
	t.Helper()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleAssistant {
			return h[i]
		}
	}
	t.Fatal("no assistant message in history")
	return llm.Message{}
}

func mustRun(t *testing.T, a *agent.Agent, ctx context.Context, input string, opts agent.RunOptions) agent.Result {
	t.Helper()
	res, err := a.Run(ctx, input, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}
