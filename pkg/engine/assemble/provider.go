package assemble

import (
	"errors"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// ErrUnknownProviderType means a provider type (--provider, a profile's type) names no
// provider robota has (registry.ErrUnknownType): front ends that construct sessions
// tell it apart without importing the providers.
var ErrUnknownProviderType error = &registry.UnknownType

// ErrNoProvider means no flag, settings layer or environment variable chose a
// provider. Its message tells the user the three ways to configure one.
var ErrNoProvider = errors.New(`no model provider is configured. Configure one of:
  1. a flag:        robota -p "..." --provider anthropic   (or openai, ollama, ...; --provider script --script FILE runs offline)
  2. settings:      "currentProvider" and "providers" in .robota/settings.json or ~/.robota/settings.json
  3. environment:   ANTHROPIC_API_KEY or OPENAI_API_KEY`)

// ProviderChoice is the provider a session uses and why.
type ProviderChoice struct {
	config.ResolvedProvider
	// APIKeySource says where the credential came from: "none", "settings", or the
	// environment variable's name.
	APIKeySource string
	// ContextWindow is the model's window from the catalogue (0 when unknown).
	ContextWindow int
}

// chooseProvider applies DESIGN.md's order: flags and settings (already merged
// into settings), then the environment's API keys.
func chooseProvider(settings *config.Settings, opts Options) (ProviderChoice, error) {
	reg := registry.Default()
	rp := settings.ActiveProvider()
	c := ProviderChoice{ResolvedProvider: rp, APIKeySource: "none"}
	switch {
	case rp.Configured:
		if rp.APIKey != "" {
			c.APIKeySource = "settings"
		}
	default:
		p, ok := reg.Detect(getenv(opts.Env))
		if !ok {
			return ProviderChoice{}, ErrNoProvider
		}
		// --model (or a settings model) chose the model without a provider: the detected
		// provider runs it, instead of its default overwriting it.
		c.Type, c.BaseURL, c.Configured = p.Type, p.BaseURL, true
		if c.Model == "" {
			c.Model = p.Model
		}
		if rp.Timeout == 0 {
			c.Timeout = config.DefaultProviderTimeout
		}
	}
	def, err := reg.Lookup(c.Type)
	if err != nil {
		return ProviderChoice{}, err
	}
	c.Type = def.Type
	if c.Model, err = resolveModel(def, c.Model); err != nil {
		return ProviderChoice{}, err
	}
	switch {
	case c.NoEnvCredentials:
		// A project file chose the endpoint: the environment's key is never sent there.
		if c.APIKey == "" && def.Credential.Required {
			return ProviderChoice{}, fmt.Errorf("provider %s has no usable API key: %s in %s (a project settings file) points it at %q, and credentials from the environment (%s, $ENV: references) are never sent to an endpoint a project file chose; write apiKey in %s, or set baseURL in user settings (~/.robota/settings.json)",
				def.Type, c.BaseURLKey, c.BaseURLSource.Display, c.BaseURL, def.Credential.EnvVar, c.BaseURLSource.Display)
		}
	case c.APIKeySource == "none" && def.Credential.EnvVar != "":
		if v, ok := opts.Env(def.Credential.EnvVar); ok && v != "" {
			c.APIKeySource = def.Credential.EnvVar
		}
	}
	if m, ok := reg.ModelInfo(c.Model); ok {
		c.ContextWindow = m.ContextWindow
	}
	return c, nil
}

// open constructs the chosen provider through the registry.
func (c *ProviderChoice) open(opts Options) (llm.Provider, error) {
	options := c.Options
	if opts.Script != "" {
		options = map[string]any{}
		for k, v := range c.Options {
			options[k] = v
		}
		options["path"] = opts.Script
	}
	p, err := registry.Default().Create(registry.Profile{
		Type: c.Type, Model: c.Model, APIKey: c.APIKey, BaseURL: c.BaseURL, Timeout: c.Timeout,
		Options: options, Getenv: getenv(opts.Env), NoEnvCredentials: c.NoEnvCredentials,
	})
	if err != nil {
		return nil, err // registry errors already name the provider
	}
	return p, nil
}

func getenv(env config.Env) func(string) string {
	return func(k string) string { v, _ := env(k); return v }
}

// resolveModel turns the chosen model into one of def's model ids: "" and the alias
// "default" are the type's default model; sonnet, opus and haiku go through the type's
// aliases (registry.Definition.ResolveModel). An alias the type does not serve is a
// configuration error: sending "opus" to a server without such a model would only fail
// later, at the first model call.
func resolveModel(def registry.Definition, model string) (string, error) {
	if m := strings.TrimSpace(model); m == "" || strings.EqualFold(m, "default") {
		return def.DefaultModel, nil
	}
	id, ok := def.ResolveModel(model)
	if !ok || id == "" {
		return "", invalid("model %q: provider %s has no model for this alias; name a model id (robota providers lists each type's default)", model, def.Type)
	}
	return id, nil
}
