// Package compattest is the suite a registry's OpenAI-compatible types pass, whichever
// process builds their providers: credentials and endpoints taken from the profile and
// the environment as each type may, options applied on the wire, the Gemma projection,
// and profiles marked NoEnvCredentials sending only their own key. openaicompat runs it
// in process, providerplugin through the provider plugin.
package compattest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// Env returns a getenv over kv pairs.
func Env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// Stream is a one-chunk Chat Completions reply with content.
func Stream(content string) ssetest.Reply {
	chunk, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": "stop"}}})
	return ssetest.Reply{Events: []string{"data: " + string(chunk) + "\n\n", "data: [DONE]\n\n"}}
}

func chat(t *testing.T, p llm.Provider, tools ...string) llm.ChatResponse {
	t.Helper()
	req := llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage("hi")}}
	for _, name := range tools {
		req.Tools = append(req.Tools, llm.ToolSchema{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	resp, err := p.Chat(context.Background(), req, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// Run runs the suite against reg.
func Run(t *testing.T, reg *registry.Registry) {
	t.Run("OpenAIHonoursEnvironment", func(t *testing.T) { testOpenAIEnvironment(t, reg) })
	t.Run("LocalServersNeverSeeOpenAICredentials", func(t *testing.T) { testLocalServers(t, reg) })
	t.Run("Gemini", func(t *testing.T) { testGemini(t, reg) })
	t.Run("GemmaProjection", func(t *testing.T) { testGemma(t, reg) })
	t.Run("ProfileOptions", func(t *testing.T) { testOptions(t, reg) })
	t.Run("NoEnvCredentials", func(t *testing.T) { testNoEnvCredentials(t, reg) })
}

func testOpenAIEnvironment(t *testing.T, reg *registry.Registry) {
	srv := ssetest.NewServer(t, Stream("from an Ollama-style server"))
	p, err := reg.Create(registry.Profile{Type: "openai", Model: "qwen3", Getenv: Env("OPENAI_API_KEY", "sk-1", "OPENAI_BASE_URL", srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "openai" || chat(t, p).Message.Text() != "from an Ollama-style server" || srv.Requests()[0].Header.Get("Authorization") != "Bearer sk-1" {
		t.Fatalf("provider %s, request %v", p.Name(), srv.Requests()[0].Header)
	}
	if _, err := reg.Create(registry.Profile{Type: "openai", Getenv: Env()}); !errors.Is(err, llm.ErrConfiguration) ||
		err.Error() != "openai: no API key: set OPENAI_API_KEY or configure apiKey in the provider profile" {
		t.Fatalf("missing key: %v", err)
	}
}

func testLocalServers(t *testing.T, reg *registry.Registry) {
	for _, typ := range []string{"ollama", "lmstudio", "vllm", "gemma"} {
		t.Run(typ, func(t *testing.T) {
			leaky := Env("OPENAI_API_KEY", "sk-secret", "OPENAI_BASE_URL", "http://127.0.0.1:1/never")
			srv := ssetest.NewServer(t, Stream("ok"))
			p, err := reg.Create(registry.Profile{Type: typ, Model: "local-model", BaseURL: srv.URL, Getenv: leaky})
			if err != nil {
				t.Fatal(err)
			}
			chat(t, p)
			if got := srv.Requests()[0].Header.Get("Authorization"); got != "" {
				t.Fatalf("local server received Authorization %q", got)
			}
		})
	}
	if _, err := reg.Create(registry.Profile{Type: "lmstudio", Getenv: Env()}); !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "model") {
		t.Fatalf("lmstudio without model: %v", err)
	}
}

func testGemini(t *testing.T, reg *registry.Registry) {
	srv := ssetest.NewServer(t, Stream("gemini"))
	p, err := reg.Create(registry.Profile{Type: "gemini", BaseURL: srv.URL, Getenv: Env("GEMINI_API_KEY", "g-key", "OPENAI_API_KEY", "sk-secret")})
	if err != nil {
		t.Fatal(err)
	}
	chat(t, p)
	req := srv.Requests()[0]
	var body map[string]any
	_ = json.Unmarshal(req.Body, &body)
	if req.Header.Get("Authorization") != "Bearer g-key" || body["model"] != "gemini-2.5-flash" {
		t.Fatalf("request %v %s", req.Header, req.Body)
	}
	if _, err := reg.Create(registry.Profile{Type: "gemini", Getenv: Env("OPENAI_API_KEY", "sk")}); !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
}

func testGemma(t *testing.T, reg *registry.Registry) {
	content := `<|channel>thought` + "\n" + `hmm<channel|><|tool_call>call:Read{file_path:<|"|>/a<|"|>}<tool_call|>`
	srv := ssetest.NewServer(t, Stream(content), Stream(content))
	p, err := reg.Create(registry.Profile{Type: "gemma", Model: "gemma-4", BaseURL: srv.URL, Getenv: Env()})
	if err != nil {
		t.Fatal(err)
	}
	resp := chat(t, p, "Read")
	if calls := resp.Message.ToolCalls(); len(calls) != 1 || calls[0].Name != "Read" || resp.Message.Thinking() != "hmm" || resp.Message.Text() != "" {
		t.Fatalf("gemma projection not applied: %+v", resp.Message.Content)
	}
	// The same stream through the generic openai type is left alone.
	p, _ = reg.Create(registry.Profile{Type: "vllm", Model: "gemma-4", BaseURL: srv.URL, Getenv: Env()})
	if resp := chat(t, p, "Read"); resp.Message.Text() != content {
		t.Fatalf("generic profile projected: %+v", resp.Message.Content)
	}
}

func testOptions(t *testing.T, reg *registry.Registry) {
	srv := ssetest.NewServer(t, Stream("ok"))
	p, err := reg.Create(registry.Profile{Type: "openai", Model: "m", APIKey: "k", BaseURL: srv.URL, Getenv: Env(),
		Options: map[string]any{"maxTokensField": "max_tokens", "headers": map[string]any{"X-Title": "robota"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(context.Background(), llm.ChatRequest{MaxTokens: 5, Messages: []llm.Message{llm.NewUserMessage("x")}}, llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if !strings.Contains(string(req.Body), `"max_tokens":5`) || req.Header.Get("X-Title") != "robota" {
		t.Fatalf("options not applied: %s %v", req.Body, req.Header)
	}
	if caps := llm.ProviderCapabilities(p); !caps.FunctionCalling || !caps.Streaming || caps.NativeWebTools.WebSearch.Supported {
		t.Fatalf("capabilities %+v", caps)
	}
	if _, err := reg.Create(registry.Profile{Type: "ollama", Options: map[string]any{"maxTokensField": "tokens"}, Getenv: Env()}); !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "maxTokensField") {
		t.Fatalf("bad maxTokensField: %v", err)
	}
}

// A NoEnvCredentials profile sends only its own key, never a credential or base URL of
// the environment.
func testNoEnvCredentials(t *testing.T, reg *registry.Registry) {
	leaky := Env("GEMINI_API_KEY", "env-gemini", "OPENAI_API_KEY", "env-openai", "OPENAI_BASE_URL", "http://127.0.0.1:1/never")
	for _, typ := range []string{"gemini", "openai"} {
		t.Run(typ, func(t *testing.T) {
			srv := ssetest.NewServer(t, Stream("ok"))
			_, err := reg.Create(registry.Profile{Type: typ, BaseURL: srv.URL, Getenv: leaky, NoEnvCredentials: true})
			if !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "chosen by project settings") {
				t.Fatalf("without a key: %v, want a configuration error about project settings", err)
			}
			p, err := reg.Create(registry.Profile{Type: typ, BaseURL: srv.URL, APIKey: "own-key", Getenv: leaky, NoEnvCredentials: true})
			if err != nil {
				t.Fatal(err)
			}
			chat(t, p)
			req := srv.Requests()[0]
			if got := req.Header.Get("Authorization"); !strings.Contains(got, "own-key") {
				t.Errorf("Authorization = %q, want the profile's own key", got)
			}
			for name, vals := range req.Header {
				for _, v := range vals {
					if strings.Contains(v, "env-") {
						t.Errorf("header %s carries an environment credential: %q", name, v)
					}
				}
			}
		})
	}
	// A type without a required key builds without one and reads nothing either.
	srv := ssetest.NewServer(t, Stream("ok"))
	p, err := reg.Create(registry.Profile{Type: "ollama", BaseURL: srv.URL, Getenv: leaky, NoEnvCredentials: true})
	if err != nil {
		t.Fatal(err)
	}
	chat(t, p)
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("ollama sent Authorization %q", got)
	}
}
