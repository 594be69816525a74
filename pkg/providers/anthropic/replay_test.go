package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/transport"
	"github.com/robota-sdk/robota-go/pkg/providers/providertest"
	"github.com/robota-sdk/robota-go/pkg/providers/retry"
)

type captured struct {
	text     []string
	thinking []string
	raw      []llm.RawPayloadEvent
}

func (c *captured) callbacks() llm.Callbacks {
	return llm.Callbacks{
		OnTextDelta:     func(d string) { c.text = append(c.text, d) },
		OnThinkingDelta: func(d string) { c.thinking = append(c.thinking, d) },
		OnRawPayload:    func(e llm.RawPayloadEvent) { c.raw = append(c.raw, e) },
	}
}

func userRequest(text string) llm.ChatRequest {
	return llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage(text)}}
}

func replay(t *testing.T, transcript string) ssetest.Reply {
	return ssetest.Reply{Events: ssetest.Load(t, transcript)}
}

func jsonFile(t *testing.T, status int, name string, header http.Header) ssetest.Reply {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return ssetest.Reply{Status: status, Body: string(data), Header: header}
}

func TestReplayText(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, nil)
	var c captured
	resp, err := p.Chat(context.Background(), userRequest("hi"), c.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Hello", ", wor", "ld!"}; !reflect.DeepEqual(c.text, want) {
		t.Fatalf("deltas %q, want %q", c.text, want)
	}
	m := resp.Message
	if m.Text() != "Hello, world!" || resp.StopReason != llm.StopReasonEndTurn || m.State != llm.StateComplete {
		t.Fatalf("message %+v stop %s", m, resp.StopReason)
	}
	if *m.Usage != (llm.Usage{InputTokens: 25, OutputTokens: 12}) {
		t.Fatalf("usage %+v", *m.Usage)
	}
	if m.Metadata["providerMessageId"] != "msg_01TextA1" || m.Metadata["model"] != "claude-sonnet-4-6" {
		t.Fatalf("metadata %v", m.Metadata)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != "test-key" || req.Header.Get("Anthropic-Version") == "" {
		t.Fatalf("request %s headers %v", req.Path, req.Header)
	}
	var body map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["stream"] != true || body["model"] != DefaultModel || body["max_tokens"] != float64(DefaultMaxTokens) {
		t.Fatalf("request body %s", req.Body)
	}
}

func TestReplayToolUseWithSplitJSONInput(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "tool_use.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("read /tmp/a.txt"), llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if resp.StopReason != llm.StopReasonToolUse || len(calls) != 1 {
		t.Fatalf("stop %s calls %+v", resp.StopReason, calls)
	}
	c := calls[0]
	if c.ID != "toolu_01A09q90qw90lq917835lq9" || c.Name != "Read" ||
		!providertest.JSONEqual(c.Input, []byte(`{"file_path":"/tmp/a.txt","limit":20}`)) {
		t.Fatalf("call %s %s %s", c.ID, c.Name, c.Input)
	}
	if resp.Message.Text() != "I'll read the file." || resp.Message.Content[0].Type != llm.PartText {
		t.Fatalf("content %+v", resp.Message.Content)
	}
}

func TestReplayParallelToolUse(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "parallel_tools.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("status"), llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "toolu_01Glob" || calls[1].ID != "toolu_02Status" {
		t.Fatalf("calls %+v", calls)
	}
	if !providertest.JSONEqual(calls[0].Input, []byte(`{"pattern":"**/*.go"}`)) || string(calls[1].Input) != "{}" {
		t.Fatalf("inputs %s %s", calls[0].Input, calls[1].Input)
	}
}

func TestReplayThinkingWithSignature(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "thinking.sse"))
	p, _ := newTestProvider(t, srv, func(o *Options) { o.ThinkingBudget = 2048 })
	var c captured
	resp, err := p.Chat(context.Background(), userRequest("27*453?"), c.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.thinking, "") != "The user wants 27 * 453. 27 * 453 = 12231." {
		t.Fatalf("thinking deltas %q", c.thinking)
	}
	parts := resp.Message.Content
	if len(parts) != 3 || parts[0].Type != llm.PartThinking || parts[0].Signature != "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" ||
		parts[1].Type != llm.PartThinking || parts[1].Text != "" || !strings.HasPrefix(parts[1].Signature, "EmwKAhgB") ||
		parts[2].Text != "27 * 453 = 12,231." {
		t.Fatalf("parts %+v", parts)
	}
	var body struct {
		Thinking  map[string]any `json:"thinking"`
		MaxTokens int            `json:"max_tokens"`
	}
	_ = json.Unmarshal(srv.Requests()[0].Body, &body)
	if body.Thinking["type"] != "enabled" || body.Thinking["budget_tokens"] != float64(2048) || body.MaxTokens <= 2048 {
		t.Fatalf("thinking request %+v", body)
	}
}

func TestReplayUsageWithCacheTokens(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "usage_cache.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("again"), llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 12 + 1500 + 20000, OutputTokens: 57, CacheCreationInputTokens: 1500, CacheReadInputTokens: 20000}
	if *resp.Message.Usage != want {
		t.Fatalf("usage %+v, want %+v", *resp.Message.Usage, want)
	}
}

func TestReplayErrorEventKeepsPartialTextAndIsNotRetried(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "error_event.sse"))
	p, _ := newTestProvider(t, srv, nil)
	var c captured
	resp, err := p.Chat(context.Background(), userRequest("hi"), c.callbacks())
	if !errors.Is(err, llm.ErrProvider) || !llm.IsRecoverable(err) || !strings.Contains(err.Error(), "Overloaded") {
		t.Fatalf("err %v", err)
	}
	if resp.Message.Text() != "Partial ans" || strings.Join(c.text, "") != "Partial ans" {
		t.Fatalf("partial %q", resp.Message.Text())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests: a stream that showed text must not be retried", n)
	}
}

func TestReplayErrorEventBeforeTextIsRetried(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "error_before_text.sse"), replay(t, "text.sse"))
	p, rec := newTestProvider(t, srv, nil)
	var c captured
	resp, err := p.Chat(context.Background(), userRequest("hi"), c.callbacks())
	if err != nil || resp.Message.Text() != "Hello, world!" {
		t.Fatalf("resp %q err %v", resp.Message.Text(), err)
	}
	if waits := rec.get(); len(waits) != 1 || waits[0] != 375*time.Millisecond {
		t.Fatalf("waits %v, want one jittered backoff of 375ms", waits)
	}
	// Raw payloads of both attempts form one ordered sequence.
	attempts := map[any]bool{}
	for i, e := range c.raw[1:] {
		if e.Sequence != int64(i+1) {
			t.Fatalf("payload %d has sequence %d", i, e.Sequence)
		}
		attempts[e.Metadata["attempt"]] = true
	}
	if !attempts[1] || !attempts[2] {
		t.Fatalf("attempt metadata %v", attempts)
	}
}

func TestReplayRateLimitThenSuccessHonoursRetryAfter(t *testing.T) {
	h := http.Header{"Retry-After": {"7"}}
	srv := ssetest.NewServer(t, jsonFile(t, 429, "rate_limit_429.json", h), replay(t, "text.sse"))
	p, rec := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("hi"), (&captured{}).callbacks())
	if err != nil || resp.Message.Text() != "Hello, world!" {
		t.Fatalf("resp %q err %v", resp.Message.Text(), err)
	}
	if waits := rec.get(); len(waits) != 1 || waits[0] != 7*time.Second {
		t.Fatalf("waits %v, want the server's 7s", waits)
	}
	if len(srv.Requests()) != 2 {
		t.Fatalf("%d requests", len(srv.Requests()))
	}
}

func TestReplayRateLimitExhaustsAttempts(t *testing.T) {
	h := http.Header{"Retry-After": {"1"}}
	r := jsonFile(t, 429, "rate_limit_429.json", h)
	srv := ssetest.NewServer(t, r, r, r)
	p, rec := newTestProvider(t, srv, nil)
	_, err := p.Chat(context.Background(), userRequest("hi"), llm.Callbacks{})
	var le *llm.Error
	if !errors.As(err, &le) || le.Code != llm.CodeRateLimit || le.StatusCode != 429 || !strings.Contains(le.Message, "rate limit") {
		t.Fatalf("err %v", err)
	}
	if len(srv.Requests()) != 3 || len(rec.get()) != 2 {
		t.Fatalf("requests %d waits %v", len(srv.Requests()), rec.get())
	}
}

func TestReplayOverloaded529IsRetried(t *testing.T) {
	srv := ssetest.NewServer(t, jsonFile(t, 529, "overloaded_529.json", nil), replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, nil)
	if _, err := p.Chat(context.Background(), userRequest("hi"), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
}

func TestReplayAuthenticationIsNotRetried(t *testing.T) {
	srv := ssetest.NewServer(t, jsonFile(t, 401, "authentication_401.json", nil))
	p, _ := newTestProvider(t, srv, nil)
	_, err := p.Chat(context.Background(), userRequest("hi"), llm.Callbacks{})
	if !errors.Is(err, llm.ErrAuthentication) || llm.IsRecoverable(err) || !strings.Contains(err.Error(), "invalid x-api-key") {
		t.Fatalf("err %v", err)
	}
}

func TestReplayDisconnectMidStreamKeepsPartialText(t *testing.T) {
	for _, cut := range []bool{false, true} {
		name := map[bool]string{false: "stream ends early", true: "connection reset"}[cut]
		t.Run(name, func(t *testing.T) {
			srv := ssetest.NewServer(t, ssetest.Reply{Events: ssetest.Load(t, "disconnect.sse"), Cut: cut})
			p, _ := newTestProvider(t, srv, nil)
			var c captured
			resp, err := p.Chat(context.Background(), userRequest("hi"), c.callbacks())
			if !errors.Is(err, llm.ErrNetwork) || !llm.IsRecoverable(err) {
				t.Fatalf("err %v, want a network error", err)
			}
			if resp.Message.Text() != "The answer is forty" || resp.StopReason != llm.StopReasonAborted {
				t.Fatalf("partial %q stop %s", resp.Message.Text(), resp.StopReason)
			}
			if len(resp.Message.ToolCalls()) != 0 {
				t.Fatalf("an unfinished tool call was returned: %+v", resp.Message.ToolCalls())
			}
			if len(srv.Requests()) != 1 {
				t.Fatal("a stream that showed text was retried")
			}
		})
	}
}

func TestDisconnectBeforeAnyTextIsRetried(t *testing.T) {
	first := ssetest.Load(t, "text.sse")[:1] // message_start only, then the connection drops
	srv := ssetest.NewServer(t, ssetest.Reply{Events: first, Cut: true}, replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("hi"), (&captured{}).callbacks())
	if err != nil || resp.Message.Text() != "Hello, world!" {
		t.Fatalf("resp %q err %v", resp.Message.Text(), err)
	}
}

func TestStreamIdleTimeout(t *testing.T) {
	events := ssetest.Load(t, "disconnect.sse")[:3] // start, text block, first delta; then silence
	srv := ssetest.NewServer(t, ssetest.Reply{Events: events, Stall: true})
	p, _ := newTestProvider(t, srv, func(o *Options) { o.IdleTimeout = 50 * time.Millisecond })
	resp, err := p.Chat(context.Background(), userRequest("hi"), (&captured{}).callbacks())
	if !errors.Is(err, llm.ErrNetwork) || !errors.Is(err, transport.ErrStreamIdle) {
		t.Fatalf("err %v", err)
	}
	if resp.Message.Text() != "The answer is" {
		t.Fatalf("partial %q", resp.Message.Text())
	}
}

func TestRawPayloads(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, nil)
	var c captured
	if _, err := p.Chat(context.Background(), userRequest("hi"), c.callbacks()); err != nil {
		t.Fatal(err)
	}
	// request + 8 events (the ping is consumed by the SDK)
	if len(c.raw) != 9 || c.raw[0].PayloadKind != llm.PayloadRequest {
		t.Fatalf("%d raw payloads", len(c.raw))
	}
	for i, e := range c.raw[1:] {
		if e.PayloadKind != llm.PayloadStreamEvent || e.Sequence != int64(i+1) || e.APISurface != APISurface || !json.Valid(e.Payload) {
			t.Fatalf("payload %d: %+v", i, e)
		}
	}
	var ev struct{ Type string }
	_ = json.Unmarshal(c.raw[len(c.raw)-1].Payload, &ev)
	if ev.Type != "message_stop" {
		t.Fatalf("last payload %s", c.raw[len(c.raw)-1].Payload)
	}
}

func TestWebSearchReportedToCaller(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "web_search.sse"))
	var uses []ServerToolUse
	p, _ := newTestProvider(t, srv, func(o *Options) {
		o.WebSearch = WebSearch{Enabled: true, MaxUses: 3, AllowedDomains: []string{"go.dev"}}
		o.OnServerToolUse = func(u ServerToolUse) { uses = append(uses, u) }
	})
	if caps := llm.ProviderCapabilities(p); !caps.NativeWebTools.WebSearch.Enabled || caps.NativeWebTools.WebFetch.Enabled {
		t.Fatalf("capabilities %+v", caps)
	}
	req := userRequest("what's new in go 1.26?")
	req.NativeWebTools = &llm.NativeWebToolRequest{WebSearch: true}
	// The per-call callback hears of the search as it starts: before the answer's text and
	// before the result block completes the Options hook's report.
	var order []string
	var calls []llm.ServerToolUse
	cb := llm.Callbacks{
		OnTextDelta: func(d string) { order = append(order, "text") },
		OnServerToolUse: func(u llm.ServerToolUse) {
			order = append(order, fmt.Sprintf("server_tool(%d options reports)", len(uses)))
			calls = append(calls, u)
		},
	}
	resp, err := p.Chat(context.Background(), req, cb)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "Go 1.26 was released in February 2026." || len(resp.Message.ToolCalls()) != 0 {
		t.Fatalf("message %+v", resp.Message.Content)
	}
	if len(calls) != 1 || calls[0].ID != "srvtoolu_014hJH82Qum7Td6UV8gDXThB" || calls[0].Name != "web_search" {
		t.Fatalf("callback calls %+v", calls)
	}
	var input map[string]any
	if err := json.Unmarshal(calls[0].Input, &input); err != nil || !reflect.DeepEqual(input, map[string]any{"query": "go 1.26 release notes"}) {
		t.Fatalf("callback input %s (%v)", calls[0].Input, err)
	}
	if want := []string{"server_tool(0 options reports)", "text", "text"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("callback order %q, want %q", order, want)
	}
	if len(uses) != 1 || uses[0].Name != "web_search" || uses[0].Query != "go 1.26 release notes" || uses[0].Results != 2 ||
		!reflect.DeepEqual(uses[0].URLs, []string{"https://go.dev/doc/go1.26", "https://go.dev/blog/go1.26"}) {
		t.Fatalf("server tool use %+v", uses)
	}
	if resp.Message.Metadata["webSearchRequests"] != 1 || len(resp.Message.Metadata["serverToolUse"].([]ServerToolUse)) != 1 {
		t.Fatalf("metadata %v", resp.Message.Metadata)
	}
	var body struct {
		Tools []map[string]any `json:"tools"`
	}
	_ = json.Unmarshal(srv.Requests()[0].Body, &body)
	if len(body.Tools) != 1 || body.Tools[0]["type"] != "web_search_20250305" || body.Tools[0]["max_uses"] != float64(3) {
		t.Fatalf("tools %v", body.Tools)
	}
}

// A stream that fails after a hosted search ran is not retried: the retry would run (and
// bill) the search again and report it twice.
func TestWebSearchThenErrorIsNotRetried(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "web_search_then_error.sse"), replay(t, "web_search.sse"))
	p, _ := newTestProvider(t, srv, func(o *Options) { o.WebSearch = WebSearch{Enabled: true} })
	var reported []string
	_, err := p.Chat(context.Background(), userRequest("what's new in go 1.26?"), llm.Callbacks{
		OnServerToolUse: func(u llm.ServerToolUse) { reported = append(reported, u.ID) },
	})
	if !errors.Is(err, llm.ErrProvider) || !strings.Contains(err.Error(), "Overloaded") {
		t.Fatalf("err %v, want the overloaded error", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests: a stream that ran a hosted tool must not be retried", n)
	}
	if len(reported) != 1 {
		t.Fatalf("server tool reported %d times, want once", len(reported))
	}
}

func TestNativeWebToolsFailBeforeTransportWhenDisabled(t *testing.T) {
	srv := ssetest.NewServer(t)
	p, _ := newTestProvider(t, srv, nil)
	req := userRequest("search")
	req.NativeWebTools = &llm.NativeWebToolRequest{WebSearch: true}
	if _, err := p.Chat(context.Background(), req, llm.Callbacks{}); !errors.Is(err, llm.ErrConfiguration) {
		t.Fatalf("err %v", err)
	}
	p.ConfigureNativeWebTools(llm.NativeWebToolRequest{WebFetch: true})
	if !llm.ProviderCapabilities(p).NativeWebTools.WebFetch.Enabled {
		t.Fatal("ConfigureNativeWebTools did not enable web fetch")
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a rejected request reached the server")
	}
}

func TestEnvironment(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"), replay(t, "text.sse"))
	env := map[string]string{BaseURLEnv: srv.URL, APIKeyEnv: "env-key"}
	p, err := New(Options{Getenv: func(k string) string { return env[k] }, Retry: &retry.Policy{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(context.Background(), userRequest("hi"), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("X-Api-Key"); got != "env-key" {
		t.Fatalf("api key header %q", got)
	}
	env = map[string]string{BaseURLEnv: srv.URL, AuthTokenEnv: "tok"}
	p, err = New(Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(context.Background(), userRequest("hi"), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[1].Header.Get("Authorization"); got != "Bearer tok" {
		t.Fatalf("authorization header %q", got)
	}
	if _, err := New(Options{Getenv: noEnv}); !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), APIKeyEnv) {
		t.Fatalf("missing key: %v", err)
	}
}
