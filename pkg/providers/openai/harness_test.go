package openai

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
	"github.com/robota-sdk/robota-go/pkg/providers/openai/openaitest"
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

var conformanceHarness = providertest.Harness{
	Name: ProviderName,
	New: func(t *testing.T, scenarios ...providertest.Scenario) llm.Provider {
		replies := make([]ssetest.Reply, len(scenarios))
		for i, sc := range scenarios {
			replies[i] = openaitest.ScenarioReply(sc)
		}
		srv := ssetest.NewServer(t, replies...)
		p, _ := newTestProvider(t, srv, func(o *Options) { disabled := retry.Disabled(); o.Retry = &disabled })
		return p
	},
}

func TestConformance(t *testing.T) { providertest.Run(t, conformanceHarness) }
