package registry

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/compat"
)

// recorder is an OpenCompatible that keeps the configurations it is given.
type recorder struct{ got []compat.Config }

func (r *recorder) open(cfg compat.Config) (llm.Provider, error) {
	r.got = append(r.got, cfg)
	return nil, nil
}

// TestCompatibleConfigResolution: the registry reads what each OpenAI-compatible type may
// read of the environment, and nothing else, into the configuration the provider is built
// from (in this process or another).
func TestCompatibleConfigResolution(t *testing.T) {
	leaky := env("OPENAI_API_KEY", "sk-env", "OPENAI_BASE_URL", "http://env.example/v1", "GEMINI_API_KEY", "g-env")
	tests := []struct {
		name string
		p    Profile
		want compat.Config
	}{
		{"openai reads its variables", Profile{Type: "gpt", Getenv: leaky},
			compat.Config{Name: "openai", APIKey: "sk-env", BaseURL: "http://env.example/v1", Model: "gpt-4.1", MaxTokensField: compat.MaxCompletionTokens}},
		{"openai profile values win", Profile{Type: "openai", Model: "o3", APIKey: "own", BaseURL: "http://own/v1", Timeout: time.Second, Getenv: leaky,
			Options: map[string]any{"reasoningEffort": "high", "disableStreamUsage": true, "maxTokensField": "max_tokens", "headers": map[string]any{"X-T": "v"}}},
			compat.Config{Name: "openai", APIKey: "own", BaseURL: "http://own/v1", Model: "o3", MaxTokensField: compat.LegacyMaxTokens,
				DisableStreamUsage: true, ReasoningEffort: "high", IdleTimeout: time.Second, Headers: map[string]string{"X-T": "v"}}},
		{"openai default endpoint", Profile{Type: "openai", Getenv: env("OPENAI_API_KEY", "k")},
			compat.Config{Name: "openai", APIKey: "k", BaseURL: compat.OpenAIDefaultBaseURL, Model: "gpt-4.1", MaxTokensField: compat.MaxCompletionTokens}},
		{"ollama never sees OpenAI's variables", Profile{Type: "ollama", Getenv: leaky},
			compat.Config{Name: "ollama", BaseURL: "http://localhost:11434/v1", Model: "llama3.2", KeyOptional: true, MaxTokensField: compat.LegacyMaxTokens}},
		{"gemini reads its own key", Profile{Type: "google", Getenv: leaky},
			compat.Config{Name: "gemini", APIKey: "g-env", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", Model: "gemini-2.5-flash", MaxTokensField: compat.LegacyMaxTokens}},
		{"gemma projects", Profile{Type: "gemma", Model: "g4", Getenv: leaky},
			compat.Config{Name: "gemma", BaseURL: "http://localhost:1234/v1", Model: "g4", KeyOptional: true, MaxTokensField: compat.LegacyMaxTokens, Projection: compat.ProjectionGemma}},
		{"project-chosen endpoint reads nothing", Profile{Type: "openai", APIKey: "own", BaseURL: "http://p/v1", Getenv: leaky, NoEnvCredentials: true},
			compat.Config{Name: "openai", APIKey: "own", BaseURL: "http://p/v1", Model: "gpt-4.1", MaxTokensField: compat.MaxCompletionTokens}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			r, err := New(Builtins(rec.open)...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Create(tt.p); err != nil {
				t.Fatal(err)
			}
			if len(rec.got) != 1 || !reflect.DeepEqual(rec.got[0], tt.want) {
				t.Fatalf("config %+v\nwant   %+v", rec.got, tt.want)
			}
		})
	}
}

// TestCompatibleFailuresBeforeTheProvider: a missing key or a bad option fails Create
// without building anything, and a program without an opener says it cannot run the type.
func TestCompatibleFailuresBeforeTheProvider(t *testing.T) {
	rec := &recorder{}
	r, err := New(Builtins(rec.open)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    Profile
		want string
	}{
		{Profile{Type: "openai", Getenv: env()}, "openai: no API key: set OPENAI_API_KEY or configure apiKey in the provider profile"},
		{Profile{Type: "gemini", Getenv: env("OPENAI_API_KEY", "sk")}, "gemini: no API key: set GEMINI_API_KEY or configure apiKey in the provider profile"},
		{Profile{Type: "vllm", Model: "m", Options: map[string]any{"maxTokensField": "x"}, Getenv: env()}, `provider vllm: options.maxTokensField must be "max_completion_tokens" or "max_tokens", not "x"`},
		{Profile{Type: "ollama", Options: map[string]any{"nope": 1}, Getenv: env()}, "provider ollama: unknown key options.nope"},
	} {
		if _, err := r.Create(tc.p); !errors.Is(err, llm.ErrConfiguration) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.p.Type, err, tc.want)
		}
	}
	if len(rec.got) != 0 {
		t.Fatalf("opened %+v", rec.got)
	}
	bare, err := New(Builtins(nil)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Create(Profile{Type: "ollama", Getenv: env()}); !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "cannot run OpenAI-compatible providers") {
		t.Fatalf("no opener: %v", err)
	}
}

// TestSetDefault: a program's main installs the registry Default returns.
func TestSetDefault(t *testing.T) {
	old := Default()
	t.Cleanup(func() { SetDefault(old) })
	r, err := New(Definition{Type: "only", New: func(Profile) (llm.Provider, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	SetDefault(r)
	if got := Default().Types(); !reflect.DeepEqual(got, []string{"only"}) || len(List()) != 1 {
		t.Fatalf("types %v", got)
	}
	SetDefault(nil)
	if got, want := Default().Types(), NewBuiltin(nil).Types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after SetDefault(nil): types %v, want the built-in %v", got, want)
	}
}
