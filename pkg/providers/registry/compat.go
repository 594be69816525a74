package registry

import (
	"fmt"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// What the OpenAI-compatible types share with pkg/providers/openai. They are repeated
// here so the registry links no OpenAI SDK (robota runs those providers in a provider
// process: issue 29); pkg/providers/openaicompat's tests hold the two sides equal.
const (
	// OpenAIDefaultBaseURL is OpenAI's API.
	OpenAIDefaultBaseURL = "https://api.openai.com/v1/"
	// OpenAIAPIKeyEnv and OpenAIBaseURLEnv are the variables the openai type honours.
	OpenAIAPIKeyEnv  = "OPENAI_API_KEY"
	OpenAIBaseURLEnv = "OPENAI_BASE_URL"
	// MaxCompletionTokens and LegacyMaxTokens are the request fields that can carry the
	// output token limit (options.maxTokensField).
	MaxCompletionTokens = "max_completion_tokens"
	LegacyMaxTokens     = "max_tokens"
	// ProjectionGemma selects the Gemma stream projection.
	ProjectionGemma = "gemma"
)

// CompatibleConfig is an OpenAI-compatible provider as its profile resolves it: the
// credential and endpoint already read from the environment (when the type may read it),
// the options decoded and checked. Nothing else is read to build the provider, so it can
// be built in another process; it crosses the provider plugin's wire as JSON. It holds
// the API key: never log it.
type CompatibleConfig struct {
	// Name is the provider's name (the profile type): what errors carry.
	Name    string `json:"name"`
	APIKey  string `json:"apiKey,omitempty"`
	BaseURL string `json:"baseURL"`
	Model   string `json:"model"`
	// KeyOptional lets the provider run without a key (local servers).
	KeyOptional bool `json:"keyOptional,omitempty"`
	// MaxTokensField is MaxCompletionTokens or LegacyMaxTokens.
	MaxTokensField     string `json:"maxTokensField"`
	DisableStreamUsage bool   `json:"disableStreamUsage,omitempty"`
	ReasoningEffort    string `json:"reasoningEffort,omitempty"`
	// Projection is "" or ProjectionGemma.
	Projection string `json:"projection,omitempty"`
	// IdleTimeout fails a stream silent this long (0 = no limit).
	IdleTimeout time.Duration     `json:"idleTimeout,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
}

// Capabilities are the OpenAI-compatible providers' capabilities, whichever process
// runs them: custom function tools and streaming; no hosted web tools (Chat Completions
// servers document none).
func (CompatibleConfig) Capabilities() llm.Capabilities {
	return llm.Capabilities{FunctionCalling: true, Streaming: true}
}

// OpenCompatible builds the provider of a resolved OpenAI-compatible profile.
type OpenCompatible func(CompatibleConfig) (llm.Provider, error)

// compatible describes one OpenAI-compatible server family.
type compatible struct {
	def         Definition
	keyOptional bool
	maxTokens   string // "" = MaxCompletionTokens
	projection  string
	// useOpenAIEnv lets the provider read OPENAI_API_KEY / OPENAI_BASE_URL (OpenAI only).
	useOpenAIEnv bool
}

// compatibleTypes are the OpenAI-compatible types, in registry order.
var compatibleTypes = []compatible{
	{def: Definition{Type: "openai", Aliases: []string{"gpt", "openai-compatible"},
		Description:  "OpenAI Chat Completions, or any compatible server via OPENAI_BASE_URL",
		DefaultModel: "gpt-4.1", DefaultBaseURL: OpenAIDefaultBaseURL,
		Credential: Credential{EnvVar: OpenAIAPIKeyEnv, Required: true}, Models: openAIModels, AutoDetect: true},
		useOpenAIEnv: true},
	{def: Definition{Type: "ollama", Description: "Ollama's OpenAI-compatible endpoint",
		DefaultModel: "llama3.2", DefaultBaseURL: "http://localhost:11434/v1"},
		keyOptional: true, maxTokens: LegacyMaxTokens},
	{def: Definition{Type: "lmstudio", Aliases: []string{"lm-studio"}, Description: "LM Studio's OpenAI-compatible server (set the model)",
		DefaultBaseURL: "http://localhost:1234/v1"},
		keyOptional: true, maxTokens: LegacyMaxTokens},
	{def: Definition{Type: "vllm", Description: "vLLM's OpenAI-compatible server (set the model)",
		DefaultBaseURL: "http://localhost:8000/v1"},
		keyOptional: true},
	{def: Definition{Type: "gemini", Aliases: []string{"google"}, Description: "Gemini through its OpenAI-compatible endpoint",
		DefaultModel: "gemini-2.5-flash", DefaultBaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/",
		Credential: Credential{EnvVar: "GEMINI_API_KEY", Required: true}, Models: geminiModels},
		maxTokens: LegacyMaxTokens},
	{def: Definition{Type: "gemma", Description: "Gemma-family models on an OpenAI-compatible local server, with Gemma stream projection (set the model)",
		DefaultBaseURL: "http://localhost:1234/v1"},
		keyOptional: true, maxTokens: LegacyMaxTokens, projection: ProjectionGemma},
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
func resolveCompatible(c compatible, p Profile) (CompatibleConfig, error) {
	var o compatibleOptions
	if err := decodeOptions(p, &o); err != nil {
		return CompatibleConfig{}, err
	}
	cfg := CompatibleConfig{Name: p.Type, APIKey: p.APIKey, BaseURL: p.BaseURL, Model: p.Model,
		KeyOptional: c.keyOptional, MaxTokensField: c.maxTokens, DisableStreamUsage: o.DisableStreamUsage,
		ReasoningEffort: o.ReasoningEffort, Projection: c.projection, IdleTimeout: p.Timeout, Headers: o.Headers}
	if cfg.MaxTokensField == "" {
		cfg.MaxTokensField = MaxCompletionTokens
	}
	switch o.MaxTokensField {
	case "":
	case MaxCompletionTokens, LegacyMaxTokens:
		cfg.MaxTokensField = o.MaxTokensField
	default:
		return CompatibleConfig{}, llm.NewError(llm.CodeConfiguration, fmt.Sprintf(
			"provider %s: options.maxTokensField must be %q or %q, not %q", p.Type, MaxCompletionTokens, LegacyMaxTokens, o.MaxTokensField), nil)
	}
	keyEnv := c.def.Credential.EnvVar
	if c.useOpenAIEnv {
		if cfg.BaseURL == "" {
			cfg.BaseURL = p.getenv(OpenAIBaseURLEnv)
		}
		if cfg.BaseURL == "" {
			cfg.BaseURL = OpenAIDefaultBaseURL
		}
	} else if cfg.BaseURL == "" {
		cfg.BaseURL = c.def.DefaultBaseURL
	}
	if cfg.APIKey == "" && keyEnv != "" {
		cfg.APIKey = p.getenv(keyEnv)
	}
	if cfg.APIKey == "" && !cfg.KeyOptional {
		return CompatibleConfig{}, llm.NewError(llm.CodeConfiguration, fmt.Sprintf(
			"%s: no API key: set %s or configure apiKey in the provider profile", p.Type, keyEnv), nil)
	}
	return cfg, nil
}
