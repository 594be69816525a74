package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/anthropic"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// Builtins returns the built-in provider definitions, in registry order. open builds the
// OpenAI-compatible types' providers from their resolved configuration (in this process,
// or in a provider process); nil leaves those types listed but unable to build.
func Builtins(open OpenCompatible) []Definition {
	defs := []Definition{{
		Type:         "anthropic",
		Aliases:      []string{"claude"},
		Description:  "Anthropic Messages API (ANTHROPIC_BASE_URL honoured)",
		DefaultModel: anthropic.DefaultModel,
		Credential:   Credential{EnvVar: anthropic.APIKeyEnv, Required: true},
		Models:       claudeModels(),
		// The newest model of each tier in contextwin.ClaudeModels.
		ModelAliases:         map[string]string{"sonnet": "claude-sonnet-4-6", "opus": "claude-opus-4-6", "haiku": "claude-haiku-4-5"},
		ThinkingBudgetOption: "thinkingBudget",
		BetaHeader:           "anthropic-beta",
		AutoDetect:           true,
		New:                  newAnthropic,
	}}
	defs = append(defs, compatibleDefinitions(open)...)
	return append(defs, Definition{
		Type:         "script",
		Description:  "Offline replay of a YAML/JSON script of model turns (options.path)",
		DefaultModel: "script-model",
		New:          newScript,
	})
}

// claudeModels turns the context-window catalogue into registry models, newest first.
func claudeModels() []Model {
	models := contextwin.ClaudeModels()
	out := make([]Model, 0, len(models))
	for _, m := range models {
		out = append(out, Model{ID: m.ID, Name: m.Name, ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out
}

// Published limits of the hosted models the OpenAI-compatible definitions default to.
var (
	openAIModels = []Model{
		{ID: "gpt-5", Name: "GPT-5", ContextWindow: 400_000, MaxOutput: 128_000},
		{ID: "gpt-5-mini", Name: "GPT-5 mini", ContextWindow: 400_000, MaxOutput: 128_000},
		{ID: "gpt-4.1", Name: "GPT-4.1", ContextWindow: 1_047_576, MaxOutput: 32_768},
		{ID: "gpt-4.1-mini", Name: "GPT-4.1 mini", ContextWindow: 1_047_576, MaxOutput: 32_768},
		{ID: "gpt-4o", Name: "GPT-4o", ContextWindow: 128_000, MaxOutput: 16_384},
		{ID: "gpt-4o-mini", Name: "GPT-4o mini", ContextWindow: 128_000, MaxOutput: 16_384},
		{ID: "o3", Name: "o3", ContextWindow: 200_000, MaxOutput: 100_000},
		{ID: "o4-mini", Name: "o4-mini", ContextWindow: 200_000, MaxOutput: 100_000},
	}
	geminiModels = []Model{
		{ID: "gemini-2.5-pro", Name: "Gemini 2.5 Pro", ContextWindow: 1_048_576, MaxOutput: 65_536},
		{ID: "gemini-2.5-flash", Name: "Gemini 2.5 Flash", ContextWindow: 1_048_576, MaxOutput: 65_536},
	}
)

// anthropicOptions are the profile options of the anthropic type.
type anthropicOptions struct {
	MaxTokens            int                  `json:"maxTokens"`
	ThinkingBudget       int                  `json:"thinkingBudget"`
	DisablePromptCaching bool                 `json:"disablePromptCaching"`
	WebSearch            *anthropic.WebSearch `json:"webSearch"`
	WebFetch             *anthropic.WebFetch  `json:"webFetch"`
	Headers              map[string]string    `json:"headers"`
}

func newAnthropic(p Profile) (llm.Provider, error) {
	var o anthropicOptions
	if err := decodeOptions(p, &o); err != nil {
		return nil, err
	}
	opts := anthropic.Options{Name: p.Type, APIKey: p.APIKey, BaseURL: p.BaseURL, Model: p.Model,
		MaxTokens: o.MaxTokens, ThinkingBudget: o.ThinkingBudget, DisablePromptCaching: o.DisablePromptCaching,
		IdleTimeout: p.Timeout, Headers: o.Headers, Getenv: p.getenv}
	if o.WebSearch != nil {
		opts.WebSearch = *o.WebSearch
	}
	if o.WebFetch != nil {
		opts.WebFetch = *o.WebFetch
	}
	return anthropic.New(opts)
}

type scriptOptions struct {
	Path     string `json:"path"`
	TurnList string `json:"turnList"`
}

func newScript(p Profile) (llm.Provider, error) {
	var o scriptOptions
	if err := decodeOptions(p, &o); err != nil {
		return nil, err
	}
	if o.Path == "" {
		return nil, llm.NewError(llm.CodeConfiguration, "provider script needs options.path (the script file to replay)", nil)
	}
	var opts []script.Option
	if o.TurnList != "" {
		opts = append(opts, script.WithTurnList(o.TurnList))
	}
	prov, err := script.Load(o.Path, opts...)
	if err != nil {
		return nil, llm.NewError(llm.CodeConfiguration, "provider script", err)
	}
	return prov, nil
}

// decodeOptions decodes the profile's options bag into dst, rejecting unknown keys.
func decodeOptions(p Profile, dst any) error {
	if len(p.Options) == 0 {
		return nil
	}
	raw, err := json.Marshal(p.Options)
	if err != nil {
		return llm.NewError(llm.CodeConfiguration, fmt.Sprintf("provider %s: options are not JSON-like", p.Type), err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		msg := err.Error()
		var typeErr *json.UnmarshalTypeError
		if key, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			msg = "unknown key options." + strings.Trim(key, `"`)
		} else if errors.As(err, &typeErr) {
			msg = fmt.Sprintf("options.%s must be %s, not %s", typeErr.Field, typeErr.Type, typeErr.Value)
		}
		return llm.NewError(llm.CodeConfiguration, fmt.Sprintf("provider %s: %s", p.Type, msg), err)
	}
	return nil
}
