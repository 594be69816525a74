package registry

import (
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/compat"
)

// OpenCompatible builds the provider of a resolved OpenAI-compatible profile.
type OpenCompatible func(compat.Config) (llm.Provider, error)

// compatible describes one OpenAI-compatible server family.
type compatible struct {
	def         Definition
	keyOptional bool
	maxTokens   string // "" = compat.MaxCompletionTokens
	projection  string
	// useOpenAIEnv lets the provider read OPENAI_API_KEY / OPENAI_BASE_URL (OpenAI only).
	useOpenAIEnv bool
}

// compatibleTypes are the OpenAI-compatible types, in registry order.
var compatibleTypes = []compatible{
	{def: Definition{Type: "openai", Aliases: []string{"gpt", "openai-compatible"},
		Description:  "OpenAI Chat Completions, or any compatible server via OPENAI_BASE_URL",
		DefaultModel: "gpt-4.1", DefaultBaseURL: compat.OpenAIDefaultBaseURL,
		Credential: Credential{EnvVar: compat.OpenAIAPIKeyEnv, Required: true}, Models: openAIModels, AutoDetect: true},
		useOpenAIEnv: true},
	{def: Definition{Type: "ollama", Description: "Ollama's OpenAI-compatible endpoint",
		DefaultModel: "llama3.2", DefaultBaseURL: "http://localhost:11434/v1"},
		keyOptional: true, maxTokens: compat.LegacyMaxTokens},
	{def: Definition{Type: "lmstudio", Aliases: []string{"lm-studio"}, Description: "LM Studio's OpenAI-compatible server (set the model)",
		DefaultBaseURL: "http://localhost:1234/v1"},
		keyOptional: true, maxTokens: compat.LegacyMaxTokens},
	{def: Definition{Type: "vllm", Description: "vLLM's OpenAI-compatible server (set the model)",
		DefaultBaseURL: "http://localhost:8000/v1"},
		keyOptional: true},
	{def: Definition{Type: "gemini", Aliases: []string{"google"}, Description: "Gemini through its OpenAI-compatible endpoint",
		DefaultModel: "gemini-2.5-flash", DefaultBaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/",
		Credential: Credential{EnvVar: "GEMINI_API_KEY", Required: true}, Models: geminiModels},
		maxTokens: compat.LegacyMaxTokens},
	{def: Definition{Type: "gemma", Description: "Gemma-family models on an OpenAI-compatible local server, with Gemma stream projection (set the model)",
		DefaultBaseURL: "http://localhost:1234/v1"},
		keyOptional: true, maxTokens: compat.LegacyMaxTokens, projection: compat.ProjectionGemma},
}

// NewBuiltin returns a registry of the built-in types (Builtins(open)).
func NewBuiltin(open OpenCompatible) *Registry {
	r, err := New(Builtins(open)...)
	if err != nil {
		panic(err) // the built-in table is static; a test covers it
	}
	return r
}

// compatibleDefinitions are the OpenAI-compatible types whose providers open builds.
func compatibleDefinitions(open OpenCompatible) []Definition {
	defs := make([]Definition, 0, len(compatibleTypes))
	for _, c := range compatibleTypes {
		c := c
		c.def.New = func(p Profile) (llm.Provider, error) {
			cfg, err := resolveCompatible(c, p)
			if err != nil {
				return nil, err
			}
			if open == nil {
				return nil, llm.NewError(llm.CodeConfiguration, fmt.Sprintf(
					"provider %s: this program cannot run OpenAI-compatible providers", p.Type), nil)
			}
			return open(cfg)
		}
		defs = append(defs, c.def)
	}
	return defs
}

// compatibleOptions are the profile options of the OpenAI-compatible types.
type compatibleOptions struct {
	MaxTokensField     string            `json:"maxTokensField"`
	DisableStreamUsage bool              `json:"disableStreamUsage"`
	ReasoningEffort    string            `json:"reasoningEffort"`
	Headers            map[string]string `json:"headers"`
}

// resolveCompatible checks p's options and reads what the type may read of the
// environment, failing as the provider itself would (same codes, same messages).
func resolveCompatible(c compatible, p Profile) (compat.Config, error) {
	var o compatibleOptions
	if err := decodeOptions(p, &o); err != nil {
		return compat.Config{}, err
	}
	cfg := compat.Config{Name: p.Type, APIKey: p.APIKey, BaseURL: p.BaseURL, Model: p.Model,
		KeyOptional: c.keyOptional, MaxTokensField: c.maxTokens, DisableStreamUsage: o.DisableStreamUsage,
		ReasoningEffort: o.ReasoningEffort, Projection: c.projection, IdleTimeout: p.Timeout, Headers: o.Headers}
	if cfg.MaxTokensField == "" {
		cfg.MaxTokensField = compat.MaxCompletionTokens
	}
	switch o.MaxTokensField {
	case "":
	case compat.MaxCompletionTokens, compat.LegacyMaxTokens:
		cfg.MaxTokensField = o.MaxTokensField
	default:
		return compat.Config{}, llm.NewError(llm.CodeConfiguration, fmt.Sprintf(
			"provider %s: options.maxTokensField must be %q or %q, not %q", p.Type, compat.MaxCompletionTokens, compat.LegacyMaxTokens, o.MaxTokensField), nil)
	}
	keyEnv := c.def.Credential.EnvVar
	if c.useOpenAIEnv {
		if cfg.BaseURL == "" {
			cfg.BaseURL = p.getenv(compat.OpenAIBaseURLEnv)
		}
		if cfg.BaseURL == "" {
			cfg.BaseURL = compat.OpenAIDefaultBaseURL
		}
	} else if cfg.BaseURL == "" {
		cfg.BaseURL = c.def.DefaultBaseURL
	}
	if cfg.APIKey == "" && keyEnv != "" {
		cfg.APIKey = p.getenv(keyEnv)
	}
	if cfg.APIKey == "" && !cfg.KeyOptional {
		return compat.Config{}, llm.NewError(llm.CodeConfiguration, fmt.Sprintf(
			"%s: no API key: set %s or configure apiKey in the provider profile", p.Type, keyEnv), nil)
	}
	return cfg, nil
}
