package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/robota-sdk/robota-go/pkg/providers/compat"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/transport"
	"github.com/robota-sdk/robota-go/pkg/providers/retry"
)

const (
	// ProviderName is the default Name of the provider.
	ProviderName = "openai"
	// APISurface labels raw payloads.
	APISurface = "chat-completions"
	// DefaultBaseURL is OpenAI's API. It and the names below are compat's, which the
	// registry resolves profiles with without linking this package.
	DefaultBaseURL = compat.OpenAIDefaultBaseURL
	// BaseURLEnv and APIKeyEnv are the environment variables the provider honours.
	BaseURLEnv = compat.OpenAIBaseURLEnv
	APIKeyEnv  = compat.OpenAIAPIKeyEnv
)

// MaxTokensField names the request field that carries the output token limit.
type MaxTokensField string

const (
	// MaxCompletionTokens is OpenAI's current field (required by reasoning models).
	MaxCompletionTokens MaxTokensField = compat.MaxCompletionTokens
	// LegacyMaxTokens is the field older and local OpenAI-compatible servers read.
	LegacyMaxTokens MaxTokensField = compat.LegacyMaxTokens
)

// Options configure a Provider.
type Options struct {
	// Name is what Name() returns and errors carry (default "openai").
	Name string
	// APIKey and BaseURL default to OPENAI_API_KEY and OPENAI_BASE_URL, then to
	// DefaultBaseURL.
	APIKey  string
	BaseURL string
	// KeyOptional lets the provider run without any key (local servers).
	KeyOptional bool
	// Model is used when a request names none; one of the two is required.
	Model string
	// MaxTokensField selects the token-limit field (default MaxCompletionTokens).
	MaxTokensField MaxTokensField
	// DisableStreamUsage omits stream_options.include_usage for servers that reject it.
	DisableStreamUsage bool
	// ReasoningEffort is sent as reasoning_effort when set ("low", "medium", "high").
	ReasoningEffort string
	// Projection rewrites the content stream of model families that put reasoning or tool
	// calls in text (see GemmaProjection); nil passes content through.
	Projection Projection
	// Retry bounds retries of recoverable failures; nil uses retry.Default().
	Retry *retry.Policy
	// IdleTimeout fails a stream that sends nothing for this long (0 = no limit).
	IdleTimeout time.Duration
	// Headers are added to every request.
	Headers map[string]string
	// HTTPClient replaces the default HTTP client.
	HTTPClient *http.Client
	// Getenv reads the environment (default os.Getenv); tests inject it.
	Getenv func(string) string
	// Now is the clock used for Retry-After dates (default time.Now).
	Now func() time.Time
}

// Provider talks to a Chat Completions endpoint. It is safe for concurrent use.
type Provider struct {
	name    string
	chat    openai.ChatCompletionService
	opts    Options
	policy  retry.Policy
	now     func() time.Time
	baseURL string
}

// New builds a provider. It fails with a configuration error when a key is required and
// none is found.
func New(opts Options) (*Provider, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	name := opts.Name
	if name == "" {
		name = ProviderName
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		baseURL = getenv(BaseURLEnv)
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	key := opts.APIKey
	if key == "" {
		key = getenv(APIKeyEnv)
	}
	if key == "" && !opts.KeyOptional {
		return nil, llm.NewError(llm.CodeConfiguration,
			fmt.Sprintf("%s: no API key: set %s or configure apiKey in the provider profile", name, APIKeyEnv), nil)
	}
	// The service is built from these options alone, so no other OPENAI_* variable of the
	// environment leaks into requests.
	reqOpts := []option.RequestOption{option.WithBaseURL(baseURL), option.WithMaxRetries(0), option.WithMiddleware(normalizeErrorBody)}
	if key != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(key))
	}
	httpClient := opts.HTTPClient
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	reqOpts = append(reqOpts, option.WithHTTPClient(httpClient))
	for k, v := range opts.Headers {
		reqOpts = append(reqOpts, option.WithHeader(k, v))
	}
	policy := retry.Default()
	if opts.Retry != nil {
		policy = *opts.Retry
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Provider{name: name, chat: openai.NewChatCompletionService(reqOpts...), opts: opts,
		policy: policy, now: now, baseURL: baseURL}, nil
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return p.name }

// BaseURL returns the endpoint the provider talks to.
func (p *Provider) BaseURL() string { return p.baseURL }

// Capabilities implements llm.CapabilityReporter: custom function tools and streaming;
// no hosted web tools (Chat Completions servers do not document one).
func (p *Provider) Capabilities() llm.Capabilities {
	return llm.Capabilities{FunctionCalling: true, Streaming: true}
}

// Chat implements llm.Provider.
func (p *Provider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	if err := llm.CheckNativeWebTools(p.name, p.Capabilities(), req.NativeWebTools); err != nil {
		return llm.ChatResponse{}, err
	}
	params, err := p.params(req)
	if err != nil {
		return llm.ChatResponse{}, err
	}
	if cb.OnRawPayload != nil {
		if raw, err := json.Marshal(params); err == nil {
			cb.RawPayload(llm.RawPayloadEvent{Provider: p.name, APISurface: APISurface, PayloadKind: llm.PayloadRequest, Payload: raw})
		}
	}
	toolNames := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		toolNames[i] = t.Name
	}
	var sequence int64
	resp, err := retry.Do(ctx, p.policy, func(ctx context.Context, attempt int) (llm.ChatResponse, bool, error) {
		return p.attempt(ctx, params, toolNames, cb, attempt, &sequence)
	})
	if ctx.Err() != nil {
		resp.StopReason = llm.StopReasonAborted
		resp.Message.State = llm.StateInterrupted
		return resp, nil
	}
	return resp, err
}

func (p *Provider) attempt(ctx context.Context, params openai.ChatCompletionNewParams, toolNames []string,
	cb llm.Callbacks, n int, sequence *int64) (llm.ChatResponse, bool, error) {
	sctx, wd := transport.WithWatchdog(ctx, p.opts.IdleTimeout)
	defer wd.Stop()
	acc := newAssembler(p.name, cb, n, sequence)
	if p.opts.Projection != nil {
		acc.projector = p.opts.Projection.Start(toolNames)
	}
	stream := p.chat.NewStreaming(sctx, params)
	defer stream.Close()
	for stream.Next() {
		wd.Touch()
		acc.add(stream.Current())
	}
	err := stream.Err()
	switch {
	case ctx.Err() != nil:
		return acc.partial(), acc.delivered, nil
	case transport.Idle(sctx):
		return acc.partial(), acc.delivered, transport.Network(p.name,
			fmt.Sprintf("no stream activity for %s", p.opts.IdleTimeout), transport.ErrStreamIdle)
	case err != nil:
		return acc.partial(), acc.delivered, p.mapError(err)
	case acc.finish == "":
		return acc.partial(), acc.delivered, transport.Network(p.name, "stream ended before a finish_reason", transport.ErrTruncated)
	}
	return acc.response(), acc.delivered, nil
}
