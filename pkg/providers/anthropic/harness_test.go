package anthropic

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

// sleeps records the retry waits of a provider instead of sleeping.
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

// newTestProvider points a provider at srv with a retrying policy that records its waits.
func newTestProvider(t *testing.T, srv *ssetest.Server, mutate func(*Options)) (*Provider, *sleeps) {
	t.Helper()
	rec := &sleeps{}
	policy := retry.Default()
	policy.Sleep, policy.Jitter = rec.sleep, func() float64 { return 0.5 }
	opts := Options{APIKey: "test-key", BaseURL: srv.URL, Retry: &policy, Getenv: noEnv}
	if mutate != nil {
		mutate(&opts)
	}
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p, rec
}

func sse(event string, data any) string {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	return "event: " + event + "\ndata: " + string(b) + "\n\n"
}

type obj = map[string]any

var errorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
	404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 503: "api_error", 529: "overloaded_error",
}

// scenarioReply renders a conformance scenario in the Messages streaming format.
func scenarioReply(sc providertest.Scenario) ssetest.Reply {
	if f := sc.Fail; f != nil && f.Status > 0 {
		h := http.Header{}
		if f.RetryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(int(f.RetryAfter/time.Second)))
		}
		body, _ := json.Marshal(obj{"type": "error", "error": obj{"type": errorTypes[f.Status], "message": f.Message}})
		return ssetest.Reply{Status: f.Status, Header: h, Body: string(body)}
	}
	var u llm.Usage
	if sc.Usage != nil {
		u = *sc.Usage
	}
	ev := []string{sse("message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_conf", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"stop_reason": nil, "usage": obj{
			"input_tokens":                u.InputTokens - u.CacheReadInputTokens - u.CacheCreationInputTokens,
			"cache_read_input_tokens":     u.CacheReadInputTokens,
			"cache_creation_input_tokens": u.CacheCreationInputTokens, "output_tokens": 1}}})}
	index := 0
	delta := func(d obj) string {
		return sse("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": d})
	}
	stop := func() string { return sse("content_block_stop", obj{"type": "content_block_stop", "index": index}) }
	if sc.Thinking != "" {
		ev = append(ev, sse("content_block_start", obj{"type": "content_block_start", "index": index,
			"content_block": obj{"type": "thinking", "thinking": "", "signature": ""}}),
			delta(obj{"type": "thinking_delta", "thinking": sc.Thinking}),
			delta(obj{"type": "signature_delta", "signature": "sig-conformance"}), stop())
		index++
	}
	if len(sc.Text) > 0 {
		ev = append(ev, sse("content_block_start", obj{"type": "content_block_start", "index": index,
			"content_block": obj{"type": "text", "text": ""}}))
		for _, c := range sc.Text {
			ev = append(ev, delta(obj{"type": "text_delta", "text": c}))
		}
		if sc.Stall {
			return ssetest.Reply{Events: ev, Stall: true}
		}
		if f := sc.Fail; f != nil {
			return ssetest.Reply{Events: append(ev, sse("error", obj{"type": "error",
				"error": obj{"type": "overloaded_error", "message": f.Message}}))}
		}
		ev = append(ev, stop())
		index++
	}
	for _, c := range sc.ToolCalls {
		ev = append(ev, sse("content_block_start", obj{"type": "content_block_start", "index": index,
			"content_block": obj{"type": "tool_use", "id": c.ID, "name": c.Name, "input": obj{}}}))
		half := len(c.Input) / 2 // the input arrives split mid-token, as the API does
		ev = append(ev, delta(obj{"type": "input_json_delta", "partial_json": string(c.Input[:half])}),
			delta(obj{"type": "input_json_delta", "partial_json": string(c.Input[half:])}), stop())
		index++
	}
	reason := "end_turn"
	if len(sc.ToolCalls) > 0 {
		reason = "tool_use"
	}
	ev = append(ev, sse("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": reason, "stop_sequence": nil},
		"usage": obj{"output_tokens": u.OutputTokens}}), sse("message_stop", obj{"type": "message_stop"}))
	return ssetest.Reply{Events: ev}
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
