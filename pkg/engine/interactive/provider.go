package interactive

import (
	"errors"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// ErrNoProvider means no flag, settings layer or environment variable chose a
// provider. Its message tells the user the three ways to configure one.
var ErrNoProvider = errors.New(`no model provider is configured. Configure one of:
  1. a flag:        robota -p "..." --provider anthropic   (or openai; or --provider script --script FILE, offline)
  2. settings:      "currentProvider" and "providers" in .robota/settings.json or ~/.robota/settings.json
  3. environment:   ANTHROPIC_API_KEY or OPENAI_API_KEY`)

// ProviderChoice is the provider a session uses and why.
type ProviderChoice struct {
	config.ResolvedProvider
	// APIKeySource says where the credential came from ("none", "settings", an env var name).
	APIKeySource string
}

// envProviders are tried in order when neither flags nor settings choose.
var envProviders = []struct{ typ, env string }{
	{"anthropic", "ANTHROPIC_API_KEY"},
	{"openai", "OPENAI_API_KEY"},
}

func chooseProvider(settings *config.Settings, opts Options) (ProviderChoice, error) {
	rp := settings.ActiveProvider()
	if rp.Configured {
		c := ProviderChoice{ResolvedProvider: rp, APIKeySource: "none"}
		if rp.APIKey != "" {
			c.APIKeySource = "settings"
		}
		return c, nil
	}
	for _, ep := range envProviders {
		if key, ok := opts.Env(ep.env); ok && key != "" {
			rp.Type, rp.APIKey, rp.Configured = ep.typ, key, true
			if rp.Timeout == 0 {
				rp.Timeout = config.DefaultProviderTimeout
			}
			return ProviderChoice{ResolvedProvider: rp, APIKeySource: ep.env}, nil
		}
	}
	return ProviderChoice{}, ErrNoProvider
}

// open constructs the chosen provider.
func (c *ProviderChoice) open(opts Options) (llm.Provider, error) {
	switch c.Type {
	case "script":
		path := opts.Script
		if path == "" {
			if s, ok := c.Options["script"].(string); ok {
				path = s
			}
		}
		if path == "" {
			return nil, errors.New(`the script provider needs a script: --script FILE, or "options": {"script": FILE} in its profile`)
		}
		p, err := script.Load(path)
		if err != nil {
			return nil, err
		}
		if c.Model == "" {
			c.Model = "script-model"
		}
		return p, nil
	}
	return nil, fmt.Errorf("provider type %q is not available in this build yet (known: script)", c.Type)
}
