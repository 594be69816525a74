package assemble

import (
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// Provider injection (Options.LLM): a Go embedder hands over a ready llm.Provider, as the
// spec's InteractiveSession({ cwd, provider }) and createQuery({ provider }) take one.
// Settings, context, tools, permissions, hooks and the store are still assembled from
// Cwd; only the choice and construction of the provider are skipped.

// providerChoice describes the provider: the injected one, else the one the flags,
// settings and environment choose.
func providerChoice(settings *config.Settings, opts Options) (ProviderChoice, error) {
	if opts.LLM == nil {
		return chooseProvider(settings, opts)
	}
	c := ProviderChoice{APIKeySource: "none"}
	c.Type, c.Configured = opts.LLM.Name(), true
	c.Model = opts.Model
	if rp := settings.ActiveProvider(); c.Model == "" && rp.Configured && rp.Type == c.Type {
		c.Model = rp.Model // the settings' model for this provider type
	}
	if m, ok := registry.Default().ModelInfo(c.Model); ok {
		c.ContextWindow = m.ContextWindow
	}
	return c, nil
}

// openProvider returns the injected provider, else opens the chosen one.
func openProvider(c *ProviderChoice, opts Options) (llm.Provider, error) {
	if opts.LLM != nil {
		return opts.LLM, nil
	}
	return c.open(opts)
}

// withTools adds an embedder's tools to the built-in ones. A name used twice is a
// configuration error: the model could not tell the two apart.
func withTools(builtins, extra []llm.Tool) ([]llm.Tool, error) {
	if len(extra) == 0 {
		return builtins, nil
	}
	seen := map[string]bool{}
	for _, t := range builtins {
		seen[t.Schema().Name] = true
	}
	out := append([]llm.Tool(nil), builtins...)
	for _, t := range extra {
		name := t.Schema().Name
		if name == "" || seen[name] {
			return nil, invalid("Options.Tools: tool name %q is empty or already taken", name)
		}
		seen[name] = true
		out = append(out, t)
	}
	return out, nil
}
