// Package compat is what robota's process and its provider process share about an
// OpenAI-compatible provider: the resolved configuration (Config) the registry makes
// from a profile and pkg/providers/openaicompat builds the provider from, wherever it
// runs, and the constants of the OpenAI wire both sides name. It links nothing but llm.
package compat

import (
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// What the OpenAI-compatible types share with pkg/providers/openai. They are repeated
// here so neither the registry nor robota links the OpenAI SDK (robota runs those
// providers in a provider process: issue 29); pkg/providers/openaicompat's tests hold
// the two sides equal.
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

// Config is an OpenAI-compatible provider as its registry profile resolves it: the
// credential and endpoint already read from the environment (when the type may read it),
// the options decoded and checked. Nothing else is read to build the provider, so it can
// be built in another process; it crosses the provider plugin's wire as JSON. It holds
// the API key: never log it.
type Config struct {
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
func (Config) Capabilities() llm.Capabilities {
	return llm.Capabilities{FunctionCalling: true, Streaming: true}
}
