package openaicompat

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/openai"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// Open builds the OpenAI-compatible provider cfg describes. It implements
// registry.OpenCompatible.
func Open(cfg registry.CompatibleConfig) (llm.Provider, error) {
	opts, err := Options(cfg)
	if err != nil {
		return nil, err
	}
	return openai.New(opts)
}

// Options are the openai.Options of cfg (the default retry policy and HTTP client).
func Options(cfg registry.CompatibleConfig) (openai.Options, error) {
	opts := openai.Options{Name: cfg.Name, APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Model: cfg.Model,
		KeyOptional: cfg.KeyOptional, MaxTokensField: openai.MaxTokensField(cfg.MaxTokensField),
		DisableStreamUsage: cfg.DisableStreamUsage, ReasoningEffort: cfg.ReasoningEffort,
		IdleTimeout: cfg.IdleTimeout, Headers: cfg.Headers,
		// The registry has read what the profile may read of the environment.
		Getenv: func(string) string { return "" }}
	switch cfg.Projection {
	case "":
	case registry.ProjectionGemma:
		opts.Projection = openai.GemmaProjection{}
	default:
		return openai.Options{}, llm.NewError(llm.CodeConfiguration, fmt.Sprintf("provider %s: unknown stream projection %q", cfg.Name, cfg.Projection), nil)
	}
	return opts, nil
}

// Registry returns a registry of every built-in type, the OpenAI-compatible ones built
// in this process.
func Registry() *registry.Registry {
	r, err := registry.New(registry.Builtins(Open)...)
	if err != nil {
		panic(err) // the built-in table is static; registry's tests cover it
	}
	return r
}

// Backend makes model calls for OpenAI-compatible configurations in this process: the
// provider process's side of pkg/providers/providerplugin. Each configuration's provider
// is built at its first call and kept.
type Backend struct {
	open      registry.OpenCompatible
	mu        sync.Mutex
	providers map[string]llm.Provider // by the configuration's JSON
}

// NewBackend returns a Backend whose providers Open builds.
func NewBackend() *Backend { return NewBackendWith(Open) }

// NewBackendWith returns a Backend whose providers open builds (tests build them
// without retries).
func NewBackendWith(open registry.OpenCompatible) *Backend {
	return &Backend{open: open, providers: map[string]llm.Provider{}}
}

// Chat makes one model call with cfg's provider.
func (b *Backend) Chat(ctx context.Context, cfg registry.CompatibleConfig, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	p, err := b.provider(cfg)
	if err != nil {
		return llm.ChatResponse{}, err
	}
	return p.Chat(ctx, req, cb)
}

func (b *Backend) provider(cfg registry.CompatibleConfig) (llm.Provider, error) {
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
