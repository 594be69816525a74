package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func historyRequest() llm.ChatRequest {
	temp := 0.3
	return llm.ChatRequest{
		Model:       "gpt-4.1-mini",
		MaxTokens:   900,
		Temperature: &temp,
		Messages: []llm.Message{
			llm.NewSystemMessage("You are robota."),
			llm.NewUserMessage("List the Go files and read main.go"),
			llm.NewAssistantMessage([]llm.Part{
				llm.ThinkingPart("reasoning is not sent back", ""),
				llm.TextPart("Looking."),
				llm.ToolUsePart(llm.ToolCall{ID: "call_0", Name: "Glob", Input: json.RawMessage(`{"pattern":"*.go"}`)}),
				llm.ToolUsePart(llm.ToolCall{ID: "call_1", Name: "Read"}),
			}, llm.StateComplete),
			llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "call_0", Content: "main.go"}, nil),
			llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "call_1", Content: "Error: file_path is required", IsError: true}, nil),
			llm.NewAssistantMessage(nil, llm.StateComplete), // nothing to send: dropped
			llm.NewUserMessage("Thanks."),
		},
		Tools: []llm.ToolSchema{
			{Name: "Glob", Description: "Find files", InputSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`)},
			{Name: "Read", InputSchema: nil},
		},
	}
}

func TestRequestTranslationGolden(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, func(o *Options) { o.ReasoningEffort = "low" })
	if _, err := p.Chat(context.Background(), historyRequest(), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, srv.Requests()[0].Body, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteString("\n")
	golden := filepath.Join("testdata", "request.golden.json")
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Fatalf("request differs from %s (run with -update after checking):\n%s", golden, pretty.String())
	}
}

func TestProfileOptions(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, func(o *Options) {
		o.MaxTokensField, o.DisableStreamUsage = LegacyMaxTokens, true
		o.Headers = map[string]string{"X-Title": "robota"}
	})
	if _, err := p.Chat(context.Background(), llm.ChatRequest{MaxTokens: 77, Messages: []llm.Message{llm.NewUserMessage("hi")}}, llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	var body map[string]any
	_ = json.Unmarshal(req.Body, &body)
	if body["max_tokens"] != float64(77) || body["max_completion_tokens"] != nil || body["stream_options"] != nil {
		t.Fatalf("body %s", req.Body)
	}
	if req.Header.Get("X-Title") != "robota" {
		t.Fatalf("headers %v", req.Header)
	}
}

func TestEnvironmentAndCredentials(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"), replay(t, "text.sse"))
	env := map[string]string{BaseURLEnv: srv.URL, APIKeyEnv: "env-key", "OPENAI_ORG_ID": "org-leak"}
	p, err := New(Options{Model: "m", Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if p.BaseURL() != srv.URL {
		t.Fatalf("base url %s", p.BaseURL())
	}
	if _, err := p.Chat(context.Background(), userRequest("hi"), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "Bearer env-key" || h.Get("OpenAI-Organization") != "" {
		t.Fatalf("headers %v", h)
	}
	// A local server needs no key.
	local, err := New(Options{Model: "llama3.2", BaseURL: srv.URL, KeyOptional: true, Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := local.Chat(context.Background(), userRequest("hi"), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[1].Header.Get("Authorization"); got != "" {
		t.Fatalf("keyless request sent Authorization %q", got)
	}
	if _, err := New(Options{Getenv: noEnv}); !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), APIKeyEnv) {
		t.Fatalf("missing key: %v", err)
	}
	if p, _ := New(Options{Getenv: noEnv, KeyOptional: true}); p.BaseURL() != DefaultBaseURL {
		t.Fatalf("default base url %s", p.BaseURL())
	}
}

func TestRequestErrors(t *testing.T) {
	p, _ := newTestProvider(t, ssetest.NewServer(t), func(o *Options) { o.Model = "" })
	if _, err := p.Chat(context.Background(), userRequest("hi"), llm.Callbacks{}); !errors.Is(err, llm.ErrConfiguration) {
		t.Fatalf("no model: %v", err)
	}
	req := userRequest("hi")
	req.Model = "m"
	req.NativeWebTools = &llm.NativeWebToolRequest{WebSearch: true}
	if _, err := p.Chat(context.Background(), req, llm.Callbacks{}); !errors.Is(err, llm.ErrConfiguration) {
		t.Fatalf("native web search: %v", err)
	}
	req.NativeWebTools = nil
	req.Tools = []llm.ToolSchema{{Name: "Bad", InputSchema: json.RawMessage(`"x"`)}}
	if _, err := p.Chat(context.Background(), req, llm.Callbacks{}); !errors.Is(err, llm.ErrValidation) {
		t.Fatalf("bad schema: %v", err)
	}
}
