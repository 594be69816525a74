package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/tools/mcp"
)

// HooksPath and MCPPath are the default hooks and MCP server files, relative to the root.
const (
	HooksPath = "hooks/hooks.json"
	MCPPath   = ".mcp.json"
)

// hooks reads hooks/hooks.json and the manifest's hooks. A file (or inline object) that
// is malformed is left out whole, with a problem naming it: half a set of guards is not
// what the author wrote.
func (l *loader) hooks() {
	manifest := filepath.Join(l.p.Root, ManifestPath)
	if path, err := within(l.p.Root, HooksPath); err == nil {
		l.addHooksFile(path)
	} else if !errors.Is(err, ErrNotFound) {
		l.problem(filepath.Join(l.p.Root, HooksPath), err)
	}
	if !present(l.p.Manifest.Hooks) {
		return
	}
	items, err := mixedList(l.p.Manifest.Hooks)
	if err != nil {
		l.problem(manifest, fmt.Errorf("%w: \"hooks\": %w", ErrManifest, err))
		return
	}
	for _, it := range items {
		if it.Inline != nil {
			l.addHooks(manifest, it.Inline)
			continue
		}
		path, err := within(l.p.Root, it.Path)
		if err != nil {
			l.problem(manifest, fmt.Errorf("hooks path %q: %w", it.Path, err))
			continue
		}
		if filepath.Clean(path) == filepath.Join(l.p.Root, filepath.FromSlash(HooksPath)) {
			continue // already read: naming the default file again must not run its hooks twice
		}
		l.addHooksFile(path)
	}
}

func (l *loader) addHooksFile(path string) {
	data, err := agentdef.ReadFileBounded(path)
	if err != nil {
		l.problem(path, fmt.Errorf("%w: %w", ErrComponent, err))
		return
	}
	l.addHooks(path, data)
}

// addHooks reads a hooks document: {"description": ..., "hooks": {event: [groups]}}, or
// the events object itself.
func (l *loader) addHooks(source string, data []byte) {
	var doc map[string]json.RawMessage
	if err := decodeObject(data, &doc); err != nil {
		l.problem(source, fmt.Errorf("%w: hooks: %w", ErrComponent, err))
		return
	}
	events := data
	if inner, ok := doc["hooks"]; ok {
		events = inner
	} else if _, ok := doc["description"]; ok {
		delete(doc, "description")
		events, _ = json.Marshal(doc)
	}
	cfg, err := hook.ParseConfig(events)
	if err != nil {
		l.problem(source, fmt.Errorf("%w: hooks left out: %w", ErrComponent, err))
		return
	}
	env := []string{RootVar + "=" + l.p.Root}
	for ev, groups := range cfg {
		for _, g := range groups {
			for i := range g.Hooks {
				g.Hooks[i].Command = l.expandRoot(g.Hooks[i].Command)
				g.Hooks[i].URL = l.expandRoot(g.Hooks[i].URL)
				g.Hooks[i].Env = env
			}
			l.p.Hooks[ev] = append(l.p.Hooks[ev], g)
		}
	}
}

// mcpServers reads .mcp.json and the manifest's mcpServers; a later server of a name
// replaces an earlier one. A file that is malformed is left out whole.
func (l *loader) mcpServers() {
	manifest := filepath.Join(l.p.Root, ManifestPath)
	byName := map[string]mcp.Server{}
	var order []string
	add := func(source string, data []byte) {
		servers, err := l.parseServers(source, data)
		if err != nil {
			l.problem(source, err)
			return
		}
		for _, s := range servers {
			if _, ok := byName[s.Name]; !ok {
				order = append(order, s.Name)
			}
			byName[s.Name] = s
		}
	}
	addFile := func(path string) {
		data, err := agentdef.ReadFileBounded(path)
		if err != nil {
			l.problem(path, fmt.Errorf("%w: %w", ErrComponent, err))
			return
		}
		add(path, data)
	}
	if path, err := within(l.p.Root, MCPPath); err == nil {
		addFile(path)
	} else if !errors.Is(err, ErrNotFound) {
		l.problem(filepath.Join(l.p.Root, MCPPath), err)
	}
	if present(l.p.Manifest.MCPServers) {
		items, err := mixedList(l.p.Manifest.MCPServers)
		if err != nil {
			l.problem(manifest, fmt.Errorf("%w: \"mcpServers\": %w", ErrManifest, err))
		}
		for _, it := range items {
			switch {
			case it.Inline != nil:
				add(manifest, it.Inline)
			case strings.HasSuffix(it.Path, ".mcpb") || strings.HasSuffix(it.Path, ".dxt"):
				l.problem(manifest, fmt.Errorf("mcpServers %q: MCPB bundles are %w", it.Path, ErrUnsupported))
			default:
				path, err := within(l.p.Root, it.Path)
				if err != nil {
					l.problem(manifest, fmt.Errorf("mcpServers path %q: %w", it.Path, err))
					continue
				}
				if filepath.Clean(path) != filepath.Join(l.p.Root, MCPPath) {
					addFile(path)
				}
			}
		}
	}
	for _, name := range order {
		l.p.MCPServers = append(l.p.MCPServers, byName[name])
	}
}

// parseServers reads {"mcpServers": {...}} or the servers object itself (Claude Code
// accepts both in a plugin), expanding ${CLAUDE_PLUGIN_ROOT} and naming each server
// plugin:<plugin>:<name>.
func (l *loader) parseServers(source string, data []byte) ([]mcp.Server, error) {
	var doc map[string]json.RawMessage
	if err := decodeObject(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: MCP servers: %w", ErrComponent, err)
	}
	if _, wrapped := doc["mcpServers"]; !wrapped {
		data, _ = json.Marshal(map[string]json.RawMessage{"mcpServers": data})
	}
	lookup := func(name string) (string, bool) {
		if name == RootVar {
			return l.p.Root, true
		}
		if l.lookup != nil {
			return l.lookup(name)
		}
		return "", false
	}
	servers, err := mcp.ParseConfig(data, source, lookup)
	if err != nil {
		return nil, fmt.Errorf("%w: MCP servers left out: %w", ErrComponent, err)
	}
	for i := range servers {
		s := &servers[i]
		s.Name = "plugin:" + l.p.Name + ":" + s.Name
		if s.Config.Type == "stdio" {
			env := map[string]string{RootVar: l.p.Root}
			for k, v := range s.Config.Env {
				env[k] = v
			}
			s.Config.Env = env
		}
	}
	return servers, nil
}
