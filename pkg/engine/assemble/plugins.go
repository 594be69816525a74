package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/plugins"
	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/tools/mcp"
)

// PluginStatus is how one plugin of the session loaded (system/init plugins).
type PluginStatus struct {
	// ID is "name@marketplace", or the name of a --plugin-dir plugin.
	ID   string
	Name string
	// Path is the plugin's directory ("" when it was not found).
	Path string
	// Status is "loaded" or "failed"; Error says why a failed one did not load.
	Status string
	Error  string
}

// loadPlugins loads the enabled plugins (settings enabledPlugins, marketplaces from
// extraKnownMarketplaces and the plugin stores) and Options.PluginDirs. Nothing here
// fails the assembly: a plugin that cannot load, or a part of one, is a warning naming
// the plugin, the file and the problem, and the session goes on without it.
func (a *Assembled) loadPlugins(ctx context.Context, settings *config.Settings, opts Options) {
	po, warnings := pluginOptions(settings, opts.Cwd, opts.Home)
	a.Warnings = append(a.Warnings, warnings...)
	// A marketplace or plugin not fetched yet is cloned now, each within 30 s: a session
	// without network starts late by at most that for each repository it lacks.
	po.Dirs, po.Fetch, po.FetchTimeout = opts.PluginDirs, true, 30*time.Second
	if len(po.Enabled) == 0 && len(po.Dirs) == 0 {
		return
	}
	res := plugins.Load(ctx, po)
	a.plugins = res.Plugins
	failed := map[string]string{}
	for _, p := range res.Problems {
		a.Warnings = append(a.Warnings, p.Error())
		if p.Skipped {
			failed[p.Plugin] = p.Err.Error()
		}
	}
	for _, p := range res.Plugins {
		a.Plugins = append(a.Plugins, PluginStatus{ID: p.ID, Name: p.Name, Path: p.Root, Status: "loaded"})
	}
	for id, why := range failed {
		a.Plugins = append(a.Plugins, PluginStatus{ID: id, Status: "failed", Error: why})
	}
	slices.SortFunc(a.Plugins, func(x, y PluginStatus) int { return cmpString(x.ID, y.ID) })
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// PluginOptions reads the settings of a project (every layer, as a session would) and
// returns the plugin loader's options: enabledPlugins and extraKnownMarketplaces, with
// warnings about entries that cannot be read. The plugin commands (robota plugin ...)
// use it to see the marketplaces and plugins a session would.
func PluginOptions(cwd, home string) (plugins.Options, []string, error) {
	settings, err := loadSettings(Options{Cwd: cwd, Home: home, Env: config.OSEnv})
	if err != nil {
		return plugins.Options{}, nil, err
	}
	po, warnings := pluginOptions(settings, cwd, home)
	return po, warnings, nil
}

func pluginOptions(settings *config.Settings, cwd, home string) (plugins.Options, []string) {
	var warnings []string
	enabled := map[string]bool{}
	if raw, ok := settings.Extra["enabledPlugins"]; ok {
		if err := json.Unmarshal(raw, &enabled); err != nil {
			warnings = append(warnings, fmt.Sprintf("enabledPlugins in %s: %v", origin(settings, "enabledPlugins"), err))
		}
	}
	declared := map[string]plugins.DeclaredMarketplace{}
	if raw, ok := settings.Extra["extraKnownMarketplaces"]; ok {
		var byName map[string]struct {
			Source json.RawMessage `json:"source"`
		}
		if err := json.Unmarshal(raw, &byName); err != nil {
			warnings = append(warnings, fmt.Sprintf("extraKnownMarketplaces in %s: want an object of marketplace names: %v",
				origin(settings, "extraKnownMarketplaces"), err))
		}
		for name, d := range byName {
			key := "extraKnownMarketplaces." + name
			src, err := plugins.ParseMarketplaceSource(d.Source)
			if err == nil {
				err = plugins.ValidName(name)
			}
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s.source in %s: %v", key, origin(settings, key), err))
				continue
			}
			from, _ := settings.Origin(key)
			declared[name] = plugins.DeclaredMarketplace{Source: src, Base: from.Root, Origin: from.Display}
		}
	}
	projectEnabled := map[string]string{}
	for id, on := range enabled {
		if src, ok := settings.Origin(fmt.Sprintf("enabledPlugins[%q]", id)); on && ok && projectFile(src) {
			projectEnabled[id] = src.Display
		}
	}
	return plugins.Options{Cwd: cwd, Home: home, Enabled: enabled, Declared: declared, ProjectEnabled: projectEnabled,
		Lookup: lookupWithSettings(settings.Env)}, warnings
}

// projectFile reports a settings file of the project (committed or local): what a cloned
// repository can bring.
func projectFile(src config.Source) bool {
	return src.Name == "projectSettings" || src.Name == "localSettings"
}

// origin names the settings file a key came from.
func origin(settings *config.Settings, key string) string {
	if src, ok := settings.Origin(key); ok && src.Display != "" {
		return src.Display
	}
	return "settings"
}

// pluginSkillDirs are the loaded plugins' skills and commands directories, below the
// project's and user's own.
func (a *Assembled) pluginSkillDirs() []skills.Dir {
	var out []skills.Dir
	for _, p := range a.plugins {
		out = append(out, p.Skills...)
	}
	return out
}

// pluginAgentDirs are the loaded plugins' agent directories.
func (a *Assembled) pluginAgentDirs() []agentdef.Dir {
	var out []agentdef.Dir
	for _, p := range a.plugins {
		out = append(out, p.Agents...)
	}
	return out
}

// pluginHooks are the loaded plugins' hooks, which run next to the settings' hooks.
func (a *Assembled) pluginHooks() hook.Config {
	var cs []hook.Config
	for _, p := range a.plugins {
		cs = append(cs, p.Hooks)
	}
	return hook.Merge(cs...)
}

// withPluginServers adds the plugins' MCP servers (named plugin:<plugin>:<server>, so no
// name of the user's servers is taken).
func (a *Assembled) withPluginServers(servers []mcp.Server) []mcp.Server {
	for _, p := range a.plugins {
		servers = append(servers, p.MCPServers...)
	}
	return servers
}
