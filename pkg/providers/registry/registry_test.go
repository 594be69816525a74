package registry

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/transport"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestBuiltinTypes(t *testing.T) {
	want := []string{"anthropic", "gemini", "gemma", "lmstudio", "ollama", "openai", "script", "vllm"}
	if got := Default().Types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("types %v", got)
	}
	if len(List()) != len(want) {
		t.Fatalf("List has %d definitions", len(List()))
	}
	for alias, typ := range map[string]string{"Claude": "anthropic", "GPT": "openai", "openai-compatible": "openai", "lm-studio": "lmstudio", " google ": "gemini"} {
		d, err := Default().Lookup(alias)
		if err != nil || d.Type != typ {
			t.Errorf("Lookup(%q) = %s, %v", alias, d.Type, err)
		}
	}
}

func TestUnknownTypeListsKnownOnes(t *testing.T) {
	_, err := Default().Create(Profile{Type: "mistral"})
	if !errors.Is(err, ErrUnknownType) || !errors.Is(err, llm.ErrConfiguration) {
		t.Fatalf("err %v", err)
	}
	for _, typ := range Default().Types() {
		if !strings.Contains(err.Error(), typ) {
			t.Fatalf("error %q does not list %s", err, typ)
		}
	}
}

func TestNewRejectsBadDefinitions(t *testing.T) {
	f := func(Profile) (llm.Provider, error) { return nil, nil }
	if _, err := New(Definition{Type: "a", New: f}, Definition{Type: "b", Aliases: []string{"A"}, New: f}); err == nil {
		t.Fatal("duplicate alias accepted")
	}
	if _, err := New(Definition{Type: "a"}); err == nil {
		t.Fatal("definition without factory accepted")
	}
}

const anthropicStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"x\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

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

func TestCreateAnthropic(t *testing.T) {
	srv := ssetest.NewServer(t, ssetest.Reply{Events: ssetest.Events(anthropicStream)})
	p, err := Default().Create(Profile{Type: "claude", Getenv: env("ANTHROPIC_API_KEY", "k1", "ANTHROPIC_BASE_URL", srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "anthropic" || chat(t, p).Message.Text() != "hi" {
		t.Fatalf("provider %s", p.Name())
	}
	req := srv.Requests()[0]
	var body map[string]any
	_ = json.Unmarshal(req.Body, &body)
	if req.Header.Get("X-Api-Key") != "k1" || body["model"] != "claude-sonnet-4-6" {
		t.Fatalf("request %v %s", req.Header, req.Body)
	}
	if _, err := Default().Create(Profile{Type: "anthropic", Getenv: env()}); !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
}

func TestCreateScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.yaml")
	if err := os.WriteFile(path, []byte("turns:\n  - text: scripted hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Default().Create(Profile{Type: "script", Options: map[string]any{"path": path}})
	if err != nil {
		t.Fatal(err)
	}
	if chat(t, p).Message.Text() != "scripted hello" {
		t.Fatal("script provider did not replay")
	}
	if _, err := Default().Create(Profile{Type: "script"}); !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "options.path") {
		t.Fatalf("no path: %v", err)
	}
	if _, err := Default().Create(Profile{Type: "script", Options: map[string]any{"path": path + ".missing"}}); !errors.Is(err, llm.ErrConfiguration) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestProfileOptions(t *testing.T) {
	anthropicWeb, err := Default().Create(Profile{Type: "anthropic", APIKey: "k", Getenv: env(),
		Options: map[string]any{"webSearch": map[string]any{"enabled": true, "maxUses": 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if !llm.ProviderCapabilities(anthropicWeb).NativeWebTools.WebSearch.Enabled {
		t.Fatal("options.webSearch.enabled not applied")
	}
	tests := []struct {
		typ     string
		options map[string]any
		want    string
	}{
		{"anthropic", map[string]any{"bogus": 1}, "unknown key options.bogus"},
		{"anthropic", map[string]any{"thinkingBudget": "lots"}, "options.thinkingBudget must be int"},
		{"ollama", map[string]any{"maxTokensField": "tokens"}, "maxTokensField"},
		{"ollama", map[string]any{"bogus": 1}, "unknown key options.bogus"},
		{"script", map[string]any{"path": "x", "extra": true}, "unknown key options.extra"},
	}
	for _, tc := range tests {
		_, err := Default().Create(Profile{Type: tc.typ, APIKey: "k", Options: tc.options, Getenv: env()})
		if !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err %v, want %q", tc.typ, tc.options, err, tc.want)
		}
	}
}

func TestTimeoutBecomesStreamIdleTimeout(t *testing.T) {
	srv := ssetest.NewServer(t, ssetest.Reply{Events: ssetest.Events(anthropicStream)[:3], Stall: true})
	p, err := Default().Create(Profile{Type: "anthropic", APIKey: "k", BaseURL: srv.URL, Timeout: 50 * time.Millisecond,
		Options: map[string]any{}, Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage("hi")}},
		llm.Callbacks{OnTextDelta: func(string) {}})
	if !errors.Is(err, transport.ErrStreamIdle) || resp.Message.Text() != "hi" {
		t.Fatalf("resp %q err %v", resp.Message.Text(), err)
	}
}

func TestModelCatalogue(t *testing.T) {
	r := Default()
	for id, want := range map[string]int{
		"claude-sonnet-4-6":         contextwin.ModelContextWindow("claude-sonnet-4-6"),
		"claude-haiku-4-5-20251001": 200_000,
		"gpt-4.1-mini":              1_047_576,
		"gpt-4o-2024-08-06":         128_000,
		"gemini-2.5-pro":            1_048_576,
	} {
		m, ok := r.ModelInfo(id)
		if !ok || m.ContextWindow != want {
			t.Errorf("ModelInfo(%q) = %+v %v, want window %d", id, m, ok, want)
		}
	}
	if m, ok := r.ModelInfo("gpt-4.1-mini-2025-04-14"); !ok || m.ID != "gpt-4.1-mini" {
		t.Errorf("dated snapshot resolved to %+v", m)
	}
	if _, ok := r.ModelInfo("llama3.2"); ok {
		t.Error("local model found in a hosted catalogue")
	}
	d, _ := r.Lookup("anthropic")
	if len(d.Models) != len(contextwin.ClaudeModels()) {
		t.Errorf("anthropic catalogue has %d models, contextwin %d", len(d.Models), len(contextwin.ClaudeModels()))
	}
}

func TestDetectFromEnvironment(t *testing.T) {
	r := Default()
	if p, ok := r.Detect(env("OPENAI_API_KEY", "sk")); !ok || p.Type != "openai" {
		t.Fatalf("openai key: %+v %v", p, ok)
	}
	if p, ok := r.Detect(env("OPENAI_API_KEY", "sk", "ANTHROPIC_API_KEY", "a")); !ok || p.Type != "anthropic" {
		t.Fatalf("both keys: %+v %v", p, ok)
	}
	if _, ok := r.Detect(env("GEMINI_API_KEY", "g")); ok {
		t.Fatal("gemini is not auto-detected")
	}
	if _, ok := r.Detect(env()); ok {
		t.Fatal("detected a provider in an empty environment")
	}
	d, _ := r.Lookup("ollama")
	if !d.Configured(env()) {
		t.Fatal("a keyless local type must count as configured")
	}
}

// A NoEnvCredentials profile sends only its own key: never the type's key variable, the
// auth token, or a base URL from the environment.
func TestNoEnvCredentialsProfileSendsOnlyItsOwnKey(t *testing.T) {
	leaky := env("ANTHROPIC_API_KEY", "env-anthropic", "ANTHROPIC_AUTH_TOKEN", "env-token", "GEMINI_API_KEY", "env-gemini",
		"OPENAI_API_KEY", "env-openai", "ANTHROPIC_BASE_URL", "http://127.0.0.1:1/never", "OPENAI_BASE_URL", "http://127.0.0.1:1/never")
	for _, c := range []struct {
		typ    string
		reply  ssetest.Reply
		header string
	}{
		{"anthropic", ssetest.Reply{Events: ssetest.Events(anthropicStream)}, "X-Api-Key"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			srv := ssetest.NewServer(t, c.reply)
			_, err := Default().Create(Profile{Type: c.typ, BaseURL: srv.URL, Getenv: leaky, NoEnvCredentials: true})
			if !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "chosen by project settings") {
				t.Fatalf("without a key: %v, want a configuration error about project settings", err)
			}
			p, err := Default().Create(Profile{Type: c.typ, BaseURL: srv.URL, APIKey: "own-key", Getenv: leaky, NoEnvCredentials: true})
			if err != nil {
				t.Fatal(err)
			}
			chat(t, p)
			req := srv.Requests()[0]
			if got := req.Header.Get(c.header); !strings.Contains(got, "own-key") {
				t.Errorf("%s = %q, want the profile's own key", c.header, got)
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
}

// TestResolveModelAliases: Claude Code's tier aliases map to catalogue models for the
// anthropic type; other types do not serve them (the subagent inherits its parent's
// model); model ids pass through.
func TestResolveModelAliases(t *testing.T) {
	r := Default()
	tests := []struct {
		typ, name string
		want      string
		ok        bool
	}{
		{"anthropic", "sonnet", "claude-sonnet-4-6", true},
		{"claude", "Opus", "claude-opus-4-6", true},
		{"anthropic", "haiku", "claude-haiku-4-5", true},
		{"anthropic", "claude-opus-4-5", "claude-opus-4-5", true},
		{"openai", "haiku", "", false},
		{"ollama", "sonnet", "", false},
		{"script", "opus", "", false},
		{"openai", "gpt-4.1-mini", "gpt-4.1-mini", true},
		{"openai", "", "", false},
	}
	for _, tc := range tests {
		d, err := r.Lookup(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := d.ResolveModel(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s.ResolveModel(%q) = %q, %v; want %q, %v", tc.typ, tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// Every alias target is a model the catalogue knows.
	for _, d := range r.Definitions() {
		for alias, id := range d.ModelAliases {
			if _, ok := r.ModelInfo(id); !ok {
				t.Errorf("%s: alias %s maps to unknown model %s", d.Type, alias, id)
			}
		}
	}
}
