package providerplugin

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	plugin "github.com/hashicorp/go-plugin"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/compat"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/compattest"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
	"github.com/robota-sdk/robota-go/pkg/providers/openai"
	"github.com/robota-sdk/robota-go/pkg/providers/openai/openaitest"
	"github.com/robota-sdk/robota-go/pkg/providers/openaicompat"
	"github.com/robota-sdk/robota-go/pkg/providers/providertest"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
	"github.com/robota-sdk/robota-go/pkg/providers/retry"
)

// dispense serves impl over an in-memory go-plugin gRPC connection and returns the
// client side's Backend.
func dispense(t *testing.T, impl Backend) Backend {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, PluginSet(impl))
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(Backend)
}

func fixed(b Backend) func(context.Context) (Backend, error) {
	return func(context.Context) (Backend, error) { return b, nil }
}

// noRetry builds the provider as robota-provider does, without retries: the suites
// check one response at a time.
func noRetry(cfg compat.Config) (llm.Provider, error) {
	opts, err := openaicompat.Options(cfg)
	if err != nil {
		return nil, err
	}
	disabled := retry.Disabled()
	opts.Retry = &disabled
	return openai.New(opts)
}

func testConfig(baseURL string) compat.Config {
	return compat.Config{Name: openai.ProviderName, APIKey: "test-key", BaseURL: baseURL, Model: "gpt-4.1",
		MaxTokensField: compat.MaxCompletionTokens}
}

// TestConformance runs the provider conformance suite against the OpenAI provider
// behind the plugin: streaming, tool calls, usage, abort and idle timeout through the
// cancel step, and error mapping.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		Name: openai.ProviderName,
		New: func(t *testing.T, scenarios ...providertest.Scenario) llm.Provider {
			replies := make([]ssetest.Reply, len(scenarios))
			for i, sc := range scenarios {
				replies[i] = openaitest.ScenarioReply(sc)
			}
			srv := ssetest.NewServer(t, replies...)
			return NewProvider(fixed(dispense(t, openaicompat.NewBackendWith(noRetry))), testConfig(srv.URL))
		},
	})
}

// TestCompatibleRegistry runs the OpenAI-compatible types' suite with their providers
// built behind the plugin, as robota builds them.
func TestCompatibleRegistry(t *testing.T) {
	b := dispense(t, openaicompat.NewBackend())
	reg, err := registry.New(registry.Builtins(func(cfg compat.Config) (llm.Provider, error) {
		return NewProvider(fixed(b), cfg), nil
	})...)
	if err != nil {
		t.Fatal(err)
	}
	compattest.Run(t, reg)
}

// capture records what a call streamed.
type capture struct {
	mu             sync.Mutex
	text, thinking []string
	raw            []llm.RawPayloadEvent
	serverToolUses []llm.ServerToolUse
}

func (c *capture) callbacks() llm.Callbacks {
	return llm.Callbacks{
		OnTextDelta:     func(d string) { c.mu.Lock(); c.text = append(c.text, d); c.mu.Unlock() },
		OnThinkingDelta: func(d string) { c.mu.Lock(); c.thinking = append(c.thinking, d); c.mu.Unlock() },
		OnRawPayload:    func(e llm.RawPayloadEvent) { c.mu.Lock(); c.raw = append(c.raw, e); c.mu.Unlock() },
		OnServerToolUse: func(u llm.ServerToolUse) { c.mu.Lock(); c.serverToolUses = append(c.serverToolUses, u); c.mu.Unlock() },
	}
}

// comparable is a call's outcome as the session sees it, minus the message's id and time.
func comparable(t *testing.T, resp llm.ChatResponse, err error, c *capture) string {
	t.Helper()
	resp.Message.ID, resp.Message.CreatedAt = "", time.Time{}
	type errView struct {
		Code        llm.ErrorCode
		Category    llm.ErrorCategory
		Recoverable bool
		Provider    string
		StatusCode  int
		Text        string
	}
	var ev *errView
	if err != nil {
		var le *llm.Error
		if !errors.As(err, &le) {
			t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
		}
		ev = &errView{le.Code, le.Category, le.Recoverable, le.Provider, le.StatusCode, err.Error()}
	}
	raw := make([]llm.RawPayloadEvent, len(c.raw))
	for i, e := range c.raw {
		var v any
		if json.Unmarshal(e.Payload, &v) == nil {
			e.Payload, _ = json.Marshal(v)
		}
		raw[i] = e
	}
	out, mErr := json.MarshalIndent(map[string]any{"response": resp, "error": ev, "text": c.text, "thinking": c.thinking, "raw": raw}, "", " ")
	if mErr != nil {
		t.Fatal(mErr)
	}
	return string(out)
}

// TestRecordedTrafficMatchesInProcess replays the openai provider's recorded traffic
// (testdata/*.sse, and the recorded error documents) to the provider in process and
// behind the plugin: deltas, raw payloads, response (tool calls, usage, stop reason)
// and error (code, category, recoverability, status, words) are the same.
func TestRecordedTrafficMatchesInProcess(t *testing.T) {
	dir := filepath.Join("..", "openai", "testdata")
	type replay struct {
		name  string
		reply func(t *testing.T) ssetest.Reply
	}
	var cases []replay
	sse, err := filepath.Glob(filepath.Join(dir, "*.sse"))
	if err != nil || len(sse) == 0 {
		t.Fatalf("no recorded streams in %s: %v", dir, err)
	}
	for _, path := range sse {
		cases = append(cases, replay{filepath.Base(path), func(t *testing.T) ssetest.Reply {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			return ssetest.Reply{Events: ssetest.Events(string(data))}
		}})
	}
	for name, status := range map[string]int{"rate_limit_429.json": 429, "insufficient_quota_429.json": 429,
		"invalid_key_401.json": http.StatusUnauthorized, "lmstudio_error_404.json": http.StatusNotFound} {
		cases = append(cases, replay{name, func(t *testing.T) ssetest.Reply {
			body, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			return ssetest.Reply{Status: status, Body: string(body), Header: http.Header{"Retry-After": {"7"}}}
		}})
	}
	req := llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage("hi")}, Tools: []llm.ToolSchema{
		{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "Glob", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "Bash", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := func(p llm.Provider) string {
				c := &capture{}
				resp, err := p.Chat(context.Background(), req, c.callbacks())
				return comparable(t, resp, err, c)
			}
			inSrv := ssetest.NewServer(t, tc.reply(t))
			inProc, err := noRetry(testConfig(inSrv.URL))
			if err != nil {
				t.Fatal(err)
			}
			want := run(inProc)
			plugSrv := ssetest.NewServer(t, tc.reply(t))
			got := run(NewProvider(fixed(dispense(t, openaicompat.NewBackendWith(noRetry))), testConfig(plugSrv.URL)))
			if got != want {
				t.Fatalf("behind the plugin:\n%s\nin process:\n%s", got, want)
			}
			if a, b := string(inSrv.Requests()[0].Body), string(plugSrv.Requests()[0].Body); a != b {
				t.Fatalf("request bodies differ:\n%s\n%s", b, a)
			}
		})
	}
}

// stuck is a provider process's backend that streams, then ignores cancellation.
type stuck struct{ release chan struct{} }

func (s stuck) Chat(_ context.Context, _ compat.Config, _ llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	cb.ThinkingDelta("hmm")
	cb.TextDelta("partial")
	<-s.release
	return llm.ChatResponse{}, nil
}

// TestAbortWithAnUnresponsiveProviderProcess: a provider process that does not answer
// the cancel step is left after the grace; the call returns what was streamed, aborted.
func TestAbortWithAnUnresponsiveProviderProcess(t *testing.T) {
	old := abortGrace
	abortGrace = 50 * time.Millisecond
	t.Cleanup(func() { abortGrace = old })
	s := stuck{release: make(chan struct{})}
	t.Cleanup(func() { close(s.release) })
	p := NewProvider(fixed(dispense(t, s)), testConfig("http://unused"))
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := p.Chat(ctx, llm.ChatRequest{}, llm.Callbacks{OnTextDelta: func(string) { cancel() }})
	if err != nil || resp.StopReason != llm.StopReasonAborted || resp.Message.Text() != "partial" ||
		resp.Message.Thinking() != "hmm" || resp.Message.State != llm.StateInterrupted {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

// failing is a backend whose process breaks mid-call.
type failing struct{}

func (failing) Chat(context.Context, compat.Config, llm.ChatRequest, llm.Callbacks) (llm.ChatResponse, error) {
	return llm.ChatResponse{}, errors.New("boom")
}

// TestErrorsKeepTheirClass: an unclassified failure crosses as the in-process
// classification of it; an unreachable backend is the caller's error unchanged.
func TestErrorsKeepTheirClass(t *testing.T) {
	p := NewProvider(fixed(dispense(t, failing{})), testConfig("http://unused"))
	_, err := p.Chat(context.Background(), llm.ChatRequest{}, llm.Callbacks{})
	if llm.CodeOf(err) != llm.FromUnknown(errors.New("boom")).Code || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err %v", err)
	}
	missing := llm.NewError(llm.CodeConfiguration, "robota-provider not found", nil)
	p = NewProvider(func(context.Context) (Backend, error) { return nil, missing }, testConfig("http://unused"))
	if _, err := p.Chat(context.Background(), llm.ChatRequest{}, llm.Callbacks{}); err != missing {
		t.Fatalf("err %v", err)
	}
	if _, err := p.Chat(context.Background(), llm.ChatRequest{NativeWebTools: &llm.NativeWebToolRequest{WebSearch: true}}, llm.Callbacks{}); !errors.Is(err, llm.ErrConfiguration) || err == missing {
		t.Fatalf("native web search: %v", err)
	}
}

// TestRawPayloadsOnlyWhenAsked: a call without a raw-payload callback is not sent them.
func TestRawPayloadsOnlyWhenAsked(t *testing.T) {
	var asked []bool
	var mu sync.Mutex
	b := backendFunc(func(_ context.Context, _ compat.Config, _ llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
		mu.Lock()
		asked = append(asked, cb.OnRawPayload != nil)
		mu.Unlock()
		cb.RawPayload(llm.RawPayloadEvent{Provider: "openai", PayloadKind: llm.PayloadStreamEvent, Payload: json.RawMessage(`{"a":1}`)})
		return llm.ChatResponse{StopReason: llm.StopReasonEndTurn}, nil
	})
	p := NewProvider(fixed(dispense(t, b)), testConfig("http://unused"))
	var got []llm.RawPayloadEvent
	if _, err := p.Chat(context.Background(), llm.ChatRequest{}, llm.Callbacks{OnRawPayload: func(e llm.RawPayloadEvent) { got = append(got, e) }}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(context.Background(), llm.ChatRequest{}, llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || !asked[0] || asked[1] || len(got) != 1 || string(got[0].Payload) != `{"a":1}` {
		t.Fatalf("asked %v, got %+v", asked, got)
	}
}

type backendFunc func(context.Context, compat.Config, llm.ChatRequest, llm.Callbacks) (llm.ChatResponse, error)

func (f backendFunc) Chat(ctx context.Context, cfg compat.Config, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	return f(ctx, cfg, req, cb)
}
