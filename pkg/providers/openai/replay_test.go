package openai

import (
	"context"
	"encoding/json"
	"errors"
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

func userRequest(text string, tools ...string) llm.ChatRequest {
	req := llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage(text)}}
	for _, name := range tools {
		req.Tools = append(req.Tools, llm.ToolSchema{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	return req
}

func replay(t *testing.T, transcript string) ssetest.Reply {
	return ssetest.Reply{Events: ssetest.Load(t, transcript)}
}

func jsonFile(t *testing.T, status int, name string, header http.Header) ssetest.Reply {
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return ssetest.Reply{Status: status, Body: string(body), Header: header}
}

func assertCalls(t *testing.T, got []llm.ToolCall, want ...llm.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("calls %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Name != want[i].Name || !providertest.JSONEqual(got[i].Input, want[i].Input) {
			t.Fatalf("call %d = %s %s %s, want %s %s %s", i, got[i].ID, got[i].Name, got[i].Input, want[i].ID, want[i].Name, want[i].Input)
		}
	}
}

func call(id, name, input string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

func TestReplayTextWithUsageChunk(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, nil)
	var c captured
	resp, err := p.Chat(context.Background(), userRequest("hi"), c.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Hello", ", wor", "ld!"}; !reflect.DeepEqual(c.text, want) {
		t.Fatalf("deltas %q", c.text)
	}
	if resp.Message.Text() != "Hello, world!" || resp.StopReason != llm.StopReasonEndTurn {
		t.Fatalf("message %+v", resp)
	}
	if want := (llm.Usage{InputTokens: 1250, OutputTokens: 12, CacheReadInputTokens: 1024}); *resp.Message.Usage != want {
		t.Fatalf("usage %+v", *resp.Message.Usage)
	}
	req := srv.Requests()[0]
	if req.Path != "/chat/completions" || req.Header.Get("Authorization") != "Bearer test-key" {
		t.Fatalf("request %s %v", req.Path, req.Header)
	}
	var body map[string]any
	_ = json.Unmarshal(req.Body, &body)
	if body["stream"] != true || !reflect.DeepEqual(body["stream_options"], map[string]any{"include_usage": true}) || body["model"] != "gpt-4.1" {
		t.Fatalf("body %s", req.Body)
	}
	if len(c.raw) != 1+6 || c.raw[0].PayloadKind != llm.PayloadRequest || c.raw[6].Sequence != 6 {
		t.Fatalf("raw payloads %d", len(c.raw))
	}
}

func TestReplayToolCallWithSplitArguments(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "tool_call_split.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("read", "Read"), llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopReasonToolUse {
		t.Fatalf("stop %s", resp.StopReason)
	}
	assertCalls(t, resp.Message.ToolCalls(), call("call_DdmO9pD3xa9XTPNJ32zg2hcA", "Read", `{"file_path":"/tmp/a.txt"}`))
}

func TestReplayTwoToolCallsInOneChunk(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "two_tools_one_chunk.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("look", "Glob", "Read"), llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	assertCalls(t, resp.Message.ToolCalls(),
		call("call_glob_1", "Glob", `{"pattern":"**/*.go"}`), call("call_read_2", "Read", `{"file_path":"go.mod"}`))
}

func TestReplayToolCallsWithoutIndex(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "tools_without_index.sse"), replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("look", "Read", "Glob"), llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopReasonToolUse {
		t.Fatalf("finish \"stop\" with tool calls must still be tool_use, got %s", resp.StopReason)
	}
	assertCalls(t, resp.Message.ToolCalls(),
		call("call_g1", "Read", `{"file_path":"/a.go"}`), call("call_g2", "Glob", `{"pattern":"*.md"}`))

	// Gemini's thought signature travels back with its call on the next request.
	extras := resp.Message.Metadata[ExtraContentKey].(map[string]json.RawMessage)
	if !providertest.JSONEqual(extras["call_g1"], []byte(`{"google":{"thought_signature":"CtwBAVSoXO4k"}}`)) || extras["call_g2"] != nil {
		t.Fatalf("extra content %s", extras)
	}
	// After a JSON round trip (a session file), the metadata is a plain map.
	b, _ := json.Marshal(resp.Message)
	var stored llm.Message
	_ = json.Unmarshal(b, &stored)
	next := userRequest("go on")
	next.Messages = append([]llm.Message{stored}, llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "call_g1", Content: "package a"}, nil),
		llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "call_g2", Content: "README.md"}, nil))
	if _, err := p.Chat(context.Background(), next, llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				ID           string          `json:"id"`
				ExtraContent json.RawMessage `json:"extra_content"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	m := body.Messages[0]
	if m.Role != "assistant" || len(m.ToolCalls) != 2 || !providertest.JSONEqual(m.ToolCalls[0].ExtraContent, extras["call_g1"]) || m.ToolCalls[1].ExtraContent != nil {
		t.Fatalf("assistant message sent back: %s", srv.Requests()[1].Body)
	}
	if body.Messages[1].ToolCallID != "call_g1" || body.Messages[2].ToolCallID != "call_g2" {
		t.Fatalf("tool messages: %s", srv.Requests()[1].Body)
	}
}

func TestReplayReasoningContentAsThinking(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "reasoning.sse"))
	p, _ := newTestProvider(t, srv, nil)
	var c captured
	resp, err := p.Chat(context.Background(), userRequest("2+2"), c.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"The user asks 2+2. ", "That is 4.", " Answer briefly."}; !reflect.DeepEqual(c.thinking, want) {
		t.Fatalf("thinking deltas %q", c.thinking)
	}
	m := resp.Message
	if m.Thinking() != "The user asks 2+2. That is 4. Answer briefly." || m.Text() != "4" || m.Content[0].Type != llm.PartThinking {
		t.Fatalf("message %+v", m.Content)
	}
}

func TestReplayErrorEventKeepsPartialText(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "error_event.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("hi"), (&captured{}).callbacks())
	if !errors.Is(err, llm.ErrProvider) || !llm.IsRecoverable(err) || !strings.Contains(err.Error(), "server had an error") {
		t.Fatalf("err %v", err)
	}
	if resp.Message.Text() != "Partial ans" || len(srv.Requests()) != 1 {
		t.Fatalf("partial %q after %d requests", resp.Message.Text(), len(srv.Requests()))
	}
}

func TestReplayRateLimitThenSuccess(t *testing.T) {
	srv := ssetest.NewServer(t, jsonFile(t, 429, "rate_limit_429.json", http.Header{"Retry-After": {"2"}}), replay(t, "text.sse"))
	p, rec := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("hi"), (&captured{}).callbacks())
	if err != nil || resp.Message.Text() != "Hello, world!" {
		t.Fatalf("resp %q err %v", resp.Message.Text(), err)
	}
	if waits := rec.get(); !reflect.DeepEqual(waits, []time.Duration{2 * time.Second}) {
		t.Fatalf("waits %v", waits)
	}
}

func TestReplayErrorBodies(t *testing.T) {
	tests := []struct {
		name        string
		reply       ssetest.Reply
		code        llm.ErrorCode
		recoverable bool
		message     string
	}{
		{"insufficient quota is final", jsonFile(t, 429, "insufficient_quota_429.json", nil), llm.CodeRateLimit, false, "exceeded your current quota"},
		{"invalid key", jsonFile(t, 401, "invalid_key_401.json", nil), llm.CodeAuthentication, false, "Incorrect API key"},
		{"LM Studio string error", jsonFile(t, 404, "lmstudio_error_404.json", nil), llm.CodeModelNotAvailable, false, "Please load it first"},
		{"plain text 502", ssetest.Reply{Status: 502, Body: "Bad Gateway", Header: http.Header{"Content-Type": {"text/plain"}}}, llm.CodeProvider, true, "502"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			replies := []ssetest.Reply{tc.reply}
			if tc.recoverable {
				replies = append(replies, tc.reply, tc.reply)
			}
			srv := ssetest.NewServer(t, replies...)
			p, _ := newTestProvider(t, srv, nil)
			_, err := p.Chat(context.Background(), userRequest("hi"), llm.Callbacks{})
			var le *llm.Error
			if !errors.As(err, &le) || le.Code != tc.code || le.Recoverable != tc.recoverable || !strings.Contains(le.Error(), tc.message) {
				t.Fatalf("err %v (%+v)", err, le)
			}
			if len(srv.Requests()) != len(replies) {
				t.Fatalf("%d requests, want %d", len(srv.Requests()), len(replies))
			}
		})
	}
}

func TestReplayDisconnectMidStream(t *testing.T) {
	for _, cut := range []bool{false, true} {
		t.Run(map[bool]string{false: "stream ends early", true: "connection reset"}[cut], func(t *testing.T) {
			srv := ssetest.NewServer(t, ssetest.Reply{Events: ssetest.Load(t, "disconnect.sse"), Cut: cut})
			p, _ := newTestProvider(t, srv, nil)
			resp, err := p.Chat(context.Background(), userRequest("hi", "Read"), (&captured{}).callbacks())
			if !errors.Is(err, llm.ErrNetwork) || !llm.IsRecoverable(err) {
				t.Fatalf("err %v", err)
			}
			if resp.Message.Text() != "The answer is forty" || len(resp.Message.ToolCalls()) != 0 || resp.StopReason != llm.StopReasonAborted {
				t.Fatalf("partial %+v", resp)
			}
			if len(srv.Requests()) != 1 {
				t.Fatal("retried after text was shown")
			}
		})
	}
}

func TestStreamIdleTimeoutBeforeTextIsRetried(t *testing.T) {
	silent := ssetest.Reply{Events: ssetest.Load(t, "text.sse")[:1], Stall: true} // role chunk, then silence
	srv := ssetest.NewServer(t, silent, replay(t, "text.sse"))
	p, rec := newTestProvider(t, srv, func(o *Options) { o.IdleTimeout = 50 * time.Millisecond })
	resp, err := p.Chat(context.Background(), userRequest("hi"), (&captured{}).callbacks())
	if err != nil || resp.Message.Text() != "Hello, world!" || len(rec.get()) != 1 {
		t.Fatalf("resp %q err %v waits %v", resp.Message.Text(), err, rec.get())
	}
}

func TestStreamIdleTimeoutAfterText(t *testing.T) {
	srv := ssetest.NewServer(t, ssetest.Reply{Events: ssetest.Load(t, "text.sse")[:3], Stall: true})
	p, _ := newTestProvider(t, srv, func(o *Options) { o.IdleTimeout = 50 * time.Millisecond })
	resp, err := p.Chat(context.Background(), userRequest("hi"), (&captured{}).callbacks())
	if !errors.Is(err, transport.ErrStreamIdle) || !errors.Is(err, llm.ErrNetwork) || resp.Message.Text() != "Hello, wor" {
		t.Fatalf("resp %q err %v", resp.Message.Text(), err)
	}
}

func TestGemmaProjectionOnTheWire(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "gemma_projection.sse"))
	p, _ := newTestProvider(t, srv, func(o *Options) { o.Projection = GemmaProjection{} })
	var c captured
	resp, err := p.Chat(context.Background(), userRequest("read a.txt", "Read"), c.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.thinking, ""); got != "I need the file." {
		t.Fatalf("thinking %q", got)
	}
	undeclared := `<|tool_call>call:Delete{path:<|"|>/<|"|>}<tool_call|>`
	if got := strings.Join(c.text, ""); got != "Reading it now."+undeclared || resp.Message.Text() != got {
		t.Fatalf("visible text %q / %q", got, resp.Message.Text())
	}
	if resp.StopReason != llm.StopReasonToolUse {
		t.Fatalf("stop %s", resp.StopReason)
	}
	assertCalls(t, resp.Message.ToolCalls(), call("gemma_call_0", "Read", `{"file_path":"/tmp/a.txt","limit":20}`))
}

func TestWithoutProjectionGemmaMarkersStayText(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "gemma_projection.sse"))
	p, _ := newTestProvider(t, srv, nil)
	resp, err := p.Chat(context.Background(), userRequest("read a.txt", "Read"), llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Message.Text(), "<|channel>thought") || len(resp.Message.ToolCalls()) != 0 {
		t.Fatalf("generic openai profile rewrote content: %q", resp.Message.Text())
	}
}
