package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
	"github.com/robota-sdk/robota-go/pkg/providers/providertest"
	"github.com/robota-sdk/robota-go/pkg/providers/retry"
)

func noEnv(string) string { return "" }

type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func newTestProvider(t *testing.T, srv *ssetest.Server, mutate func(*Options)) (*Provider, *sleeps) {
	t.Helper()
	rec := &sleeps{}
	policy := retry.Default()
	policy.Sleep, policy.Jitter = rec.sleep, func() float64 { return 0.5 }
	opts := Options{APIKey: "test-key", BaseURL: srv.URL, Model: "gpt-4.1", Retry: &policy, Getenv: noEnv}
	if mutate != nil {
		mutate(&opts)
	}
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p, rec
}

type obj = map[string]any

func data(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return "data: " + string(b) + "\n\n"
}

func chunk(delta obj, finish any) string {
	return data(obj{"id": "chatcmpl-conf", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-test",
		"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}}})
}

// scenarioReply renders a conformance scenario as chat.completion.chunk events.
func scenarioReply(sc providertest.Scenario) ssetest.Reply {
	if f := sc.Fail; f != nil && f.Status > 0 {
		h := http.Header{}
		if f.RetryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(int(f.RetryAfter/time.Second)))
		}
		body, _ := json.Marshal(obj{"error": obj{"message": f.Message, "type": "error", "param": nil, "code": nil}})
		return ssetest.Reply{Status: f.Status, Header: h, Body: string(body)}
	}
	ev := []string{chunk(obj{"role": "assistant", "content": ""}, nil)}
	if sc.Thinking != "" {
		ev = append(ev, chunk(obj{"reasoning_content": sc.Thinking}, nil))
	}
	for _, c := range sc.Text {
		ev = append(ev, chunk(obj{"content": c}, nil))
	}
	if sc.Stall {
		return ssetest.Reply{Events: ev, Stall: true}
	}
	if f := sc.Fail; f != nil {
		return ssetest.Reply{Events: append(ev, data(obj{"error": obj{"message": f.Message, "type": "server_error"}}))}
	}
	for i, c := range sc.ToolCalls {
		half := len(c.Input) / 2
		ev = append(ev,
			chunk(obj{"tool_calls": []obj{{"index": i, "id": c.ID, "type": "function", "function": obj{"name": c.Name, "arguments": ""}}}}, nil),
			chunk(obj{"tool_calls": []obj{{"index": i, "function": obj{"arguments": string(c.Input[:half])}}}}, nil),
			chunk(obj{"tool_calls": []obj{{"index": i, "function": obj{"arguments": string(c.Input[half:])}}}}, nil))
	}
	finish := "stop"
	if len(sc.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	ev = append(ev, chunk(obj{}, finish))
	if u := sc.Usage; u != nil {
		ev = append(ev, data(obj{"id": "chatcmpl-conf", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-test",
			"choices": []obj{}, "usage": obj{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens,
				"total_tokens": u.InputTokens + u.OutputTokens, "prompt_tokens_details": obj{"cached_tokens": u.CacheReadInputTokens}}}))
	}
	return ssetest.Reply{Events: append(ev, "data: [DONE]\n\n")}
}

var conformanceHarness = providertest.Harness{
	Name: ProviderName,
	New: func(t *testing.T, scenarios ...providertest.Scenario) llm.Provider {
		replies := make([]ssetest.Reply, len(scenarios))
		for i, sc := range scenarios {
			replies[i] = scenarioReply(sc)
		}
		srv := ssetest.NewServer(t, replies...)
		p, _ := newTestProvider(t, srv, func(o *Options) { disabled := retry.Disabled(); o.Retry = &disabled })
		return p
	},
}

func TestConformance(t *testing.T) { providertest.Run(t, conformanceHarness) }
