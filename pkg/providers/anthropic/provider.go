package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/transport"
	"github.com/robota-sdk/robota-go/pkg/providers/retry"
)

const (
	// ProviderName is the default Name of the provider.
	ProviderName = "anthropic"
	// APISurface labels raw payloads.
	APISurface = "anthropic-messages"
	// DefaultModel is used when neither the request nor Options name a model.
	DefaultModel = "claude-sonnet-4-6"
	// DefaultMaxTokens is max_tokens when the request sets none (the API requires one).
	DefaultMaxTokens = 16384
	// BaseURLEnv and APIKeyEnv are the environment variables the provider honours.
	BaseURLEnv   = "ANTHROPIC_BASE_URL"
	APIKeyEnv    = "ANTHROPIC_API_KEY"
	AuthTokenEnv = "ANTHROPIC_AUTH_TOKEN"
)

// Options configure a Provider. The zero value works with ANTHROPIC_API_KEY set.
type Options struct {
	// Name is what Name() returns and errors carry (default "anthropic").
	Name string
	// APIKey and BaseURL default to ANTHROPIC_API_KEY (else ANTHROPIC_AUTH_TOKEN as a bearer
	// token) and ANTHROPIC_BASE_URL.
	APIKey  string
	BaseURL string
	// Model is used when a request names none (default DefaultModel).
	Model string
	// MaxTokens is used when a request sets none (default DefaultMaxTokens).
	MaxTokens int
	// ThinkingBudget > 0 enables extended thinking with that many budget tokens.
	ThinkingBudget int
	// DisablePromptCaching turns off the cache_control breakpoints on the system prompt,
	// the tool list and the last message.
	DisablePromptCaching bool
	// WebSearch and WebFetch enable the hosted tools (see NativeWebTools).
	WebSearch WebSearch
	WebFetch  WebFetch
	// OnServerToolUse observes each completed hosted-tool call (web search/fetch).
	OnServerToolUse func(ServerToolUse)
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

// WebSearch configures the hosted web_search tool.
type WebSearch struct {
	Enabled        bool     `json:"enabled"`
	MaxUses        int      `json:"maxUses,omitempty"`
	AllowedDomains []string `json:"allowedDomains,omitempty"`
	BlockedDomains []string `json:"blockedDomains,omitempty"`
}

// WebFetch configures the hosted web_fetch tool.
type WebFetch struct {
	Enabled        bool     `json:"enabled"`
	MaxUses        int      `json:"maxUses,omitempty"`
	AllowedDomains []string `json:"allowedDomains,omitempty"`
	BlockedDomains []string `json:"blockedDomains,omitempty"`
}

// ServerToolUse is one hosted-tool call the API ran on the model's behalf.
type ServerToolUse struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input,omitempty"`
	Results int             `json:"results"`             // result entries returned to the model
	Error   string          `json:"error,omitempty"`     // the tool's error code, if it failed
	URLs    []string        `json:"urls,omitempty"`      // result URLs, in order
	Query   string          `json:"query,omitempty"`     // web_search query
	Target  string          `json:"targetUrl,omitempty"` // web_fetch URL
}

// Provider talks to the Messages API. It is safe for concurrent use.
type Provider struct {
	name     string
	client   anthropic.Client
	opts     Options
	policy   retry.Policy
	now      func() time.Time
	webMu    sync.RWMutex
	webTools llm.NativeWebToolRequest
}

// New builds a provider. It fails with a configuration error when no credential is found.
func New(opts Options) (*Provider, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	name := opts.Name
	if name == "" {
		name = ProviderName
	}
	reqOpts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0)}
	baseURL := opts.BaseURL
	if baseURL == "" {
		baseURL = getenv(BaseURLEnv)
	}
	if baseURL != "" {
		reqOpts = append(reqOpts, option.WithBaseURL(baseURL))
	}
	switch key, token := opts.APIKey, getenv(AuthTokenEnv); {
	case key != "":
		reqOpts = append(reqOpts, option.WithAPIKey(key))
	case getenv(APIKeyEnv) != "":
		reqOpts = append(reqOpts, option.WithAPIKey(getenv(APIKeyEnv)))
	case token != "":
		reqOpts = append(reqOpts, option.WithAuthToken(token))
	default:
		return nil, llm.NewError(llm.CodeConfiguration,
			fmt.Sprintf("%s: no API key: set %s or configure apiKey in the provider profile", name, APIKeyEnv), nil)
	}
	if opts.HTTPClient != nil {
		reqOpts = append(reqOpts, option.WithHTTPClient(opts.HTTPClient))
	}
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
	p := &Provider{name: name, client: anthropic.NewClient(reqOpts...), opts: opts, policy: policy, now: now}
	p.webTools = llm.NativeWebToolRequest{WebSearch: opts.WebSearch.Enabled, WebFetch: opts.WebFetch.Enabled}
	return p, nil
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return p.name }

// Capabilities implements llm.CapabilityReporter: both hosted web tools are supported;
// they are enabled by Options or ConfigureNativeWebTools.
func (p *Provider) Capabilities() llm.Capabilities {
	p.webMu.RLock()
	web := p.webTools
	p.webMu.RUnlock()
	c := llm.Capabilities{FunctionCalling: true, Streaming: true}
	c.NativeWebTools.WebSearch = llm.NativeToolSupport{Supported: true, Enabled: web.WebSearch}
	c.NativeWebTools.WebFetch = llm.NativeToolSupport{Supported: true, Enabled: web.WebFetch}
	return c
}

// ConfigureNativeWebTools enables or disables the hosted web tools for later calls; session
// assembly uses it without knowing the concrete provider.
func (p *Provider) ConfigureNativeWebTools(enable llm.NativeWebToolRequest) {
	p.webMu.Lock()
	p.webTools = enable
	p.webMu.Unlock()
}

// Chat implements llm.Provider.
func (p *Provider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	caps := p.Capabilities()
	if err := llm.CheckNativeWebTools(p.name, caps, req.NativeWebTools); err != nil {
		return llm.ChatResponse{}, err
	}
	params, err := p.params(req, caps)
	if err != nil {
		return llm.ChatResponse{}, err
	}
	if cb.OnRawPayload != nil {
		if raw, err := json.Marshal(params.MessageNewParams); err == nil {
			cb.RawPayload(llm.RawPayloadEvent{Provider: p.name, APISurface: APISurface, PayloadKind: llm.PayloadRequest, Payload: raw})
		}
	}
	var reqOpts []option.RequestOption
	if params.usesWebFetch {
		reqOpts = append(reqOpts, option.WithHeaderAdd("anthropic-beta", webFetchBeta))
	}
	var sequence int64
	resp, err := retry.Do(ctx, p.policy, func(ctx context.Context, attempt int) (llm.ChatResponse, bool, error) {
		return p.attempt(ctx, params.MessageNewParams, reqOpts, cb, attempt, &sequence)
	})
	if ctx.Err() != nil {
		resp.StopReason = llm.StopReasonAborted
		resp.Message.State = llm.StateInterrupted
		return resp, nil
	}
	return resp, err
}

// attempt makes one streaming call. delivered reports whether a delta reached a callback.
func (p *Provider) attempt(ctx context.Context, params anthropic.MessageNewParams, reqOpts []option.RequestOption,
	cb llm.Callbacks, n int, sequence *int64) (llm.ChatResponse, bool, error) {
	sctx, wd := transport.WithWatchdog(ctx, p.opts.IdleTimeout)
	defer wd.Stop()
	acc := newAssembler(p.name, cb, p.opts.OnServerToolUse, sequence)
	acc.attempt = n
	stream := p.client.Messages.NewStreaming(sctx, params, reqOpts...)
	defer stream.Close()
	for stream.Next() {
		wd.Touch()
		ev := stream.Current()
		acc.add(ev)
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
	case !acc.stopped:
		return acc.partial(), acc.delivered, transport.Network(p.name, "stream ended before message_stop", transport.ErrTruncated)
	}
	return acc.response(), acc.delivered, nil
}
