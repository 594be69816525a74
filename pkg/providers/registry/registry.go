package registry

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/internal/sentinel"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ErrUnknownType is wrapped by the error Lookup and Create return for an unknown type.
var ErrUnknownType error = &UnknownType

// UnknownType is the value ErrUnknownType points to, so that a package re-exporting it
// does it without init code (internal/sentinel). Compare errors with ErrUnknownType.
var UnknownType = sentinel.New("unknown provider type")

// Profile is a provider profile as settings resolve it (after $ENV substitution).
type Profile struct {
	Type    string `json:"type"`
	Model   string `json:"model,omitempty"`
	APIKey  string `json:"apiKey,omitempty"`
	BaseURL string `json:"baseURL,omitempty"`
	// Timeout is the provider idle timeout; the provider fails a stream silent this long.
	Timeout time.Duration `json:"-"`
	// Options is the provider-owned options bag; its keys are decoded by the definition.
	Options map[string]any `json:"options,omitempty"`
	// Getenv reads the environment for credentials and endpoints (nil = os.Getenv).
	Getenv func(string) string `json:"-"`
	// NoEnvCredentials forbids reading the environment at all: BaseURL was chosen by a
	// party that must not receive the user's credentials (a project settings file), so
	// only APIKey is sent. Create fails when the type requires a key and APIKey is empty.
	NoEnvCredentials bool `json:"-"`
}

func (p Profile) getenv(key string) string {
	if p.NoEnvCredentials {
		return ""
	}
	if p.Getenv != nil {
		return p.Getenv(key)
	}
	return os.Getenv(key)
}

// Credential says what a provider type needs to authenticate.
type Credential struct {
	// EnvVar is where the key is read from when the profile sets none ("" = none).
	EnvVar string `json:"envVar,omitempty"`
	// Required is false for local servers that accept any key.
	Required bool `json:"required"`
}

// Model is one entry of a provider's model catalogue.
type Model struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	ContextWindow int    `json:"contextWindow"`
	MaxOutput     int    `json:"maxOutput"`
}

// Definition describes one provider type.
type Definition struct {
	Type           string     `json:"type"`
	Aliases        []string   `json:"aliases,omitempty"`
	Description    string     `json:"description"`
	DefaultModel   string     `json:"defaultModel,omitempty"`
	DefaultBaseURL string     `json:"defaultBaseURL,omitempty"`
	Credential     Credential `json:"credential"`
	Models         []Model    `json:"models,omitempty"`
	// ModelAliases maps the model aliases agent definitions and Agent calls use (sonnet,
	// opus, haiku; see ModelAliasNames) to this type's model ids. Keys are lower case.
	ModelAliases map[string]string `json:"modelAliases,omitempty"`
	// ThinkingBudgetOption is the profile option that takes a thinking budget in tokens
	// (--max-thinking-tokens); empty when the type takes none.
	ThinkingBudgetOption string `json:"thinkingBudgetOption,omitempty"`
	// BetaHeader is the request header that names beta features (--betas), set through
	// the profile's "headers" option; empty when the type has none.
	BetaHeader string `json:"betaHeader,omitempty"`
	// AutoDetect marks types chosen from the environment when no provider is configured
	// (their credential variable is set), in registry order.
	AutoDetect bool `json:"autoDetect,omitempty"`
	// New builds the provider; Create has already filled Model with DefaultModel.
	New func(Profile) (llm.Provider, error) `json:"-"`
}

// ModelAliasNames are the model aliases Claude Code's agent files and Agent calls use.
// A type that has no model for one of them does not serve it (ResolveModel says so), so
// the subagent inherits its parent's model instead of sending "haiku" to a server that
// has no such model.
var ModelAliasNames = []string{"sonnet", "opus", "haiku"}

// ResolveModel turns name into a model id of this type: an alias through ModelAliases
// (case-insensitive), false for an alias the type does not serve, and any other name
// unchanged (a model id). It implements agentdef.ModelResolver.
func (d Definition) ResolveModel(name string) (string, bool) {
	key := strings.ToLower(strings.TrimSpace(name))
	if id, ok := d.ModelAliases[key]; ok && id != "" {
		return id, true
	}
	for _, a := range ModelAliasNames {
		if key == a {
			return "", false
		}
	}
	return strings.TrimSpace(name), key != ""
}

// Configured reports whether the environment holds what the type needs to run.
func (d Definition) Configured(getenv func(string) string) bool {
	if !d.Credential.Required {
		return true
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return d.Credential.EnvVar != "" && getenv(d.Credential.EnvVar) != ""
}

// Registry holds definitions by type and alias.
type Registry struct {
	defs  []Definition
	index map[string]int
}

// New builds a registry; definitions keep their order (it decides auto-detection).
func New(defs ...Definition) (*Registry, error) {
	r := &Registry{index: map[string]int{}}
	for _, d := range defs {
		if d.Type == "" || d.New == nil {
			return nil, fmt.Errorf("registry: definition %q needs a type and a factory", d.Type)
		}
		for _, name := range append([]string{d.Type}, d.Aliases...) {
			key := strings.ToLower(name)
			if _, dup := r.index[key]; dup {
				return nil, fmt.Errorf("registry: provider name %q is defined twice", name)
			}
			r.index[key] = len(r.defs)
		}
		r.defs = append(r.defs, d)
	}
	return r, nil
}

// Definitions returns every definition in registry order.
func (r *Registry) Definitions() []Definition { return append([]Definition(nil), r.defs...) }

// Types returns the type names, sorted.
func (r *Registry) Types() []string {
	out := make([]string, len(r.defs))
	for i, d := range r.defs {
		out[i] = d.Type
	}
	sort.Strings(out)
	return out
}

// Lookup finds a definition by type or alias.
func (r *Registry) Lookup(name string) (Definition, error) {
	if i, ok := r.index[strings.ToLower(strings.TrimSpace(name))]; ok {
		return r.defs[i], nil
	}
	return Definition{}, llm.NewError(llm.CodeConfiguration,
		fmt.Sprintf("unknown provider type %q (known types: %s)", name, strings.Join(r.Types(), ", ")), ErrUnknownType)
}

// Create builds the provider of profile p.
func (r *Registry) Create(p Profile) (llm.Provider, error) {
	d, err := r.Lookup(p.Type)
	if err != nil {
		return nil, err
	}
	p.Type = d.Type
	if p.NoEnvCredentials && p.APIKey == "" && d.Credential.Required {
		return nil, llm.NewError(llm.CodeConfiguration, fmt.Sprintf(
			"provider %s: no API key: the profile's baseURL %s was chosen by project settings, so credentials from the environment are not sent to it; write apiKey in that profile",
			d.Type, p.BaseURL), nil)
	}
	if p.Model == "" {
		p.Model = d.DefaultModel
	}
	if p.Model == "" {
		return nil, llm.NewError(llm.CodeConfiguration,
			fmt.Sprintf("provider %s has no default model: set \"model\" in the provider profile or pass --model", d.Type), nil)
	}
	return d.New(p)
}

// Detect returns a profile for the first auto-detectable type whose credential variable
// is set, for runs with no configured provider.
func (r *Registry) Detect(getenv func(string) string) (Profile, bool) {
	for _, d := range r.defs {
		if d.AutoDetect && d.Credential.EnvVar != "" && d.Configured(getenv) {
			return Profile{Type: d.Type, Getenv: getenv}, true
		}
	}
	return Profile{}, false
}

// ModelInfo finds id in every catalogue: an exact id, else the longest catalogue id that
// id extends with "-" (a dated snapshot of a known model).
func (r *Registry) ModelInfo(id string) (Model, bool) {
	var best Model
	found := false
	for _, d := range r.defs {
		for _, m := range d.Models {
			if m.ID == id {
				return m, true
			}
			if strings.HasPrefix(id, m.ID+"-") && len(m.ID) > len(best.ID) {
				best, found = m, true
			}
		}
	}
	return best, found
}

// defaultRegistry is the registry a program's main installed with SetDefault; until
// then Default returns builtinRegistry, built on first use rather than in an init
// (robota's main installs its own anyway).
var (
	defaultRegistry atomic.Pointer[Registry]
	builtinRegistry = &lazy.Value[*Registry]{Build: func() *Registry { return NewBuiltin(nil) }}
)

// Default returns the registry of this program's provider types: the one SetDefault
// installed, else the built-in types with the OpenAI-compatible ones unable to build
// (robota runs them in a provider process, robota-engine in process: each main says which).
func Default() *Registry {
	if r := defaultRegistry.Load(); r != nil {
		return r
	}
	return builtinRegistry.Get()
}

// SetDefault makes r the registry Default returns (nil: the built-in one again). A
// program's main calls it once, before any session starts; tests call it from TestMain.
func SetDefault(r *Registry) { defaultRegistry.Store(r) }

// List returns the definitions of the default registry (for `robota providers`).
func List() []Definition { return Default().Definitions() }
