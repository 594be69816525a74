package providerplugin

import (
	"context"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/compat"
)

// Provider is the llm.Provider of one configuration whose calls a Backend makes.
type Provider struct {
	backend func(context.Context) (Backend, error)
	cfg     compat.Config
}

// NewProvider returns the provider cfg describes, its calls made by the Backend that
// backend returns for each call (a provider process started on first use, say).
func NewProvider(backend func(context.Context) (Backend, error), cfg compat.Config) *Provider {
	return &Provider{backend: backend, cfg: cfg}
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return p.cfg.Name }

// Capabilities implements llm.CapabilityReporter, as the provider does in process.
func (p *Provider) Capabilities() llm.Capabilities { return p.cfg.Capabilities() }

// Chat implements llm.Provider. A backend that cannot be had fails the call with its
// error (an *llm.Error says what to install or what broke).
func (p *Provider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	// Checked here as the provider checks it in process, before any process is started.
	if err := llm.CheckNativeWebTools(p.cfg.Name, p.Capabilities(), req.NativeWebTools); err != nil {
		return llm.ChatResponse{}, err
	}
	b, err := p.backend(ctx)
	if err != nil && ctx.Err() != nil { // aborted while the process started: as a provider aborts
		return llm.ChatResponse{Message: llm.NewAssistantMessage(nil, llm.StateInterrupted), StopReason: llm.StopReasonAborted}, nil
	}
	if err != nil {
		return llm.ChatResponse{}, err
	}
	return b.Chat(ctx, p.cfg, req, cb)
}
