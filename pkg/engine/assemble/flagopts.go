package assemble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// What the Claude Code flags --tools, --settings and --session-id drive in the assembly.

// offeredBuiltins keeps the built-in tools named in names (all of them when names is nil)
// and returns the names no built-in tool has: Claude Code's tool set is larger than
// robota's, so a client naming one of its tools still gets the others.
func offeredBuiltins(tools []llm.Tool, names []string) (kept []llm.Tool, unknown []string) {
	if names == nil {
		return tools, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, t := range tools {
		if name := t.Schema().Name; want[name] {
			kept = append(kept, t)
			delete(want, name)
		}
	}
	for _, n := range names { // in the order given
		if want[n] {
			unknown = append(unknown, n)
			delete(want, n)
		}
	}
	return kept, unknown
}

// flagSettings reads --settings: a JSON object given inline (it starts with "{"), else
// the path of a settings file, relative to cwd.
func flagSettings(v, cwd string) (config.LayerData, error) {
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		return config.LayerData{Source: config.Source{Display: "--settings"}, Data: []byte(v)}, nil
	}
	path := v
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return config.LayerData{}, invalid("--settings %s: %w", v, err)
	}
	return config.LayerData{Source: config.Source{Path: path, Display: v}, Data: data}, nil
}

// newSessionID refuses --session-id naming a session the store already has: the new
// session would overwrite it.
func newSessionID(ctx context.Context, st *store.FileStore, id string) error {
	_, err := st.Load(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err == nil || errors.Is(err, store.ErrCorrupt):
		return invalid("--session-id %s: a session with this id already exists in %s (resume it with --resume %s)", id, st.Dir(), id)
	}
	return err
}

// withThinkingBudget sets --max-thinking-tokens as the provider type's thinking budget
// option, over the profile's; it returns a warning when the type takes none.
func (c *ProviderChoice) withThinkingBudget(tokens int, injected bool) string {
	def, err := registry.Default().Lookup(c.Type)
	if injected || err != nil || def.ThinkingBudgetOption == "" {
		return fmt.Sprintf("--max-thinking-tokens has no effect: provider %s takes no thinking budget", c.Type)
	}
	options := make(map[string]any, len(c.Options)+1)
	for k, v := range c.Options {
		options[k] = v
	}
	options[def.ThinkingBudgetOption] = tokens
	c.Options = options
	return ""
}

// withBetas adds --betas to the provider type's beta header (through the "headers"
// option, after the profile's own betas); it returns a warning when the type has none.
func (c *ProviderChoice) withBetas(betas []string, injected bool) string {
	def, err := registry.Default().Lookup(c.Type)
	if injected || err != nil || def.BetaHeader == "" {
		return fmt.Sprintf("--betas has no effect: provider %s takes no beta header", c.Type)
	}
	headers := map[string]any{}
	if old, ok := c.Options["headers"].(map[string]any); ok {
		for k, v := range old {
			headers[k] = v
		}
	} else if old, ok := c.Options["headers"].(map[string]string); ok {
		for k, v := range old {
			headers[k] = v
		}
	}
	value := strings.Join(betas, ",")
	if prev, ok := headers[def.BetaHeader].(string); ok && prev != "" {
		value = prev + "," + value
	}
	headers[def.BetaHeader] = value
	options := make(map[string]any, len(c.Options)+1)
	for k, v := range c.Options {
		options[k] = v
	}
	options["headers"] = headers
	c.Options = options
	return ""
}
