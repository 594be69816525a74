package openaicompat

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/compat"
	"github.com/robota-sdk/robota-go/pkg/providers/openai"
)

// Open builds the OpenAI-compatible provider cfg describes. It implements
// registry.OpenCompatible.
func Open(cfg compat.Config) (llm.Provider, error) {
	opts, err := Options(cfg)
	if err != nil {
		return nil, err
	}
	return openai.New(opts)
}

// Options are the openai.Options of cfg (the default retry policy and HTTP client).
func Options(cfg compat.Config) (openai.Options, error) {
	opts := openai.Options{Name: cfg.Name, APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Model: cfg.Model,
		KeyOptional: cfg.KeyOptional, MaxTokensField: openai.MaxTokensField(cfg.MaxTokensField),
		DisableStreamUsage: cfg.DisableStreamUsage, ReasoningEffort: cfg.ReasoningEffort,
		IdleTimeout: cfg.IdleTimeout, Headers: cfg.Headers,
		// The registry has read what the profile may read of the environment.
		Getenv: func(string) string { return "" }}
	switch cfg.Projection {
	case "":
	case compat.ProjectionGemma:
		opts.Projection = openai.GemmaProjection{}
	default:
		return openai.Options{}, llm.NewError(llm.CodeConfiguration, fmt.Sprintf("provider %s: unknown stream projection %q", cfg.Name, cfg.Projection), nil)
	}
	return opts, nil
}

// Backend makes model calls for OpenAI-compatible configurations in this process: the
// provider process's side of pkg/providers/providerplugin. Each configuration's provider
// is built at its first call and kept.
type Backend struct {
	open      func(compat.Config) (llm.Provider, error)
	mu        sync.Mutex
	providers map[string]llm.Provider // by the configuration's JSON
}

// NewBackend returns a Backend whose providers Open builds.
func NewBackend() *Backend { return NewBackendWith(Open) }

// NewBackendWith returns a Backend whose providers open builds (tests build them
// without retries).
func NewBackendWith(open func(compat.Config) (llm.Provider, error)) *Backend {
	return &Backend{open: open, providers: map[string]llm.Provider{}}
}

// Chat makes one model call with cfg's provider.
func (b *Backend) Chat(ctx context.Context, cfg compat.Config, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	p, err := b.provider(cfg)
	if err != nil {
		return llm.ChatResponse{}, err
	}
	return p.Chat(ctx, req, cb)
}

func (b *Backend) provider(cfg compat.Config) (llm.Provider, error) {
	key, err := json.Marshal(cfg)
	if err != nil {
		return nil, llm.NewError(llm.CodeConfiguration, "provider "+cfg.Name, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.providers[string(key)]; ok {
		return p, nil
	}
	p, err := b.open(cfg)
	if err != nil {
		return nil, err
	}
	b.providers[string(key)] = p
	return p, nil
}
