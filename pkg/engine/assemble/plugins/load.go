package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/tools/mcp"
)

// RootVar is the variable a plugin's hook commands and MCP server configurations use to
// name the plugin's directory; it is replaced in them and set in their environment.
const RootVar = "CLAUDE_PLUGIN_ROOT"

// Plugin is one loaded plugin and what it contributes to a session.
type Plugin struct {
	// ID is "name@marketplace", or the name of a plugin loaded from a directory.
	ID          string
	Name        string
	Marketplace string
	// Root is the plugin's directory, symbolic links resolved.
	Root     string
	Manifest Manifest
	// Skills are the skills and commands directories (and files), every name in them
	// qualified "<Name>:".
	Skills []skills.Dir
	// Agents are the agent directories (and files), every type qualified "<Name>:".
	Agents []agentdef.Dir
	// Hooks are hooks/hooks.json and the manifest's hooks, ${CLAUDE_PLUGIN_ROOT}
	// replaced in their commands and set in their environment.
	Hooks hook.Config
	// MCPServers are .mcp.json's and the manifest's servers, named
	// "plugin:<Name>:<server>", ${CLAUDE_PLUGIN_ROOT} replaced.
	MCPServers []mcp.Server
}

// loadInput says how a plugin directory was reached.
type loadInput struct {
	dir         string
	id          string // "name@marketplace"; "" for a --plugin-dir
	marketplace string
	// entry, when the plugin comes from a marketplace, stands in for a missing plugin.json
	// and (strict: false) supplies components the manifest does not name.
	entry *Entry
	// lookup expands ${VAR} in MCP server configurations besides CLAUDE_PLUGIN_ROOT.
	lookup func(string) (string, bool)
}

// LoadDir loads the plugin in dir (a --plugin-dir: no marketplace). lookup expands
// ${VAR} in its MCP server configurations (nil: only CLAUDE_PLUGIN_ROOT).
func LoadDir(dir string, lookup func(string) (string, bool)) (*Plugin, []Problem) {
	return load(loadInput{dir: dir, lookup: lookup})
}

// load reads one plugin. It returns nil and a Skipped problem when the plugin cannot
// load at all (no directory, a malformed plugin.json); a component that cannot load is a
// problem and the rest of the plugin loads.
func load(in loadInput) (*Plugin, []Problem) {
	label := in.id
	if label == "" {
		label = in.dir
	}
	root, err := realDir(in.dir)
	if err != nil {
		return nil, []Problem{{Plugin: label, Marketplace: in.marketplace, Path: in.dir, Skipped: true, Err: err}}
	}
	m, err := readManifest(root, in.entry)
	if err != nil {
		return nil, []Problem{{Plugin: label, Marketplace: in.marketplace, Path: filepath.Join(root, ManifestPath), Skipped: true, Err: err}}
	}
	p := &Plugin{ID: in.id, Name: m.Name, Marketplace: in.marketplace, Root: root, Manifest: m, Hooks: hook.Config{}}
	if p.ID == "" {
		p.ID = m.Name
	}
	l := &loader{p: p, lookup: in.lookup}
	l.commands()
	l.paths(m.Agents, "agents", "agents", func(path string) {
		p.Agents = append(p.Agents, agentdef.Dir{Path: path, Source: agentdef.SourcePlugin, Namespace: m.Name, Confine: root})
	})
	l.paths(m.Skills, "skills", "skills", func(path string) {
		p.Skills = append(p.Skills, skills.Dir{Path: path, Kind: skills.KindSkill, Source: skills.SourcePlugin, Namespace: m.Name, Confine: root})
	})
	l.hooks()
	l.mcpServers()
	return p, l.problems
}

// readManifest reads plugin.json; without one, a marketplace entry stands for it (as
// in Claude Code), else the directory's name names the plugin.
func readManifest(root string, entry *Entry) (Manifest, error) {
	data, err := agentdef.ReadFileBounded(filepath.Join(root, filepath.FromSlash(ManifestPath)))
	switch {
	case errors.Is(err, fs.ErrNotExist) && entry != nil:
		return Manifest{Name: entry.Name, Version: entry.Version, Description: entry.Description,
			Author: entry.Author, Components: entry.Components}, nil
	case errors.Is(err, fs.ErrNotExist):
		name := filepath.Base(root)
		if err := ValidName(name); err != nil {
			return Manifest{}, fmt.Errorf("%w: no %s, and the directory's name cannot name the plugin: %w", ErrManifest, ManifestPath, err)
		}
		return Manifest{Name: name}, nil
	case err != nil:
		return Manifest{}, fmt.Errorf("%w: %w", ErrManifest, err)
	}
	m, err := ParseManifest(data)
	if err != nil {
		return Manifest{}, err
	}
	if entry != nil && entry.Strict != nil && !*entry.Strict {
		fill := func(dst *json.RawMessage, src json.RawMessage) {
			if !present(*dst) {
				*dst = src
			}
		}
		fill(&m.Commands, entry.Commands)
		fill(&m.Agents, entry.Agents)
		fill(&m.Skills, entry.Skills)
		fill(&m.Hooks, entry.Hooks)
		fill(&m.MCPServers, entry.MCPServers)
	}
	return m, nil
}

type loader struct {
	p        *Plugin
	lookup   func(string) (string, bool)
	problems []Problem
}

func (l *loader) problem(path string, err error) {
	l.problems = append(l.problems, Problem{Plugin: l.p.ID, Marketplace: l.p.Marketplace, Path: path, Err: err})
}

// paths adds the directories or files a component field names, or, when the manifest
// names none, the default directory (Claude Code: the field replaces the default).
func (l *loader) paths(raw json.RawMessage, field, def string, add func(path string)) {
	if !present(raw) {
		if path, err := within(l.p.Root, def); err == nil {
			add(path)
		} else if !errors.Is(err, ErrNotFound) {
			l.problem(filepath.Join(l.p.Root, def), err)
		}
		return
	}
	list, err := pathList(raw)
	if err != nil {
		l.problem(filepath.Join(l.p.Root, ManifestPath), fmt.Errorf("%w: %q: %w", ErrManifest, field, err))
		return
	}
	for _, rel := range list {
		path, err := within(l.p.Root, rel)
		if err != nil {
			l.problem(filepath.Join(l.p.Root, ManifestPath), fmt.Errorf("%s path %q: %w", field, rel, err))
			continue
		}
		add(path)
	}
}

// commands adds the commands field's files and directories (a directory holding
// SKILL.md is a skill, as Claude Code allows), or commands/.
func (l *loader) commands() {
	m := l.p.Manifest
	add := func(path, name string) {
		kind := skills.KindCommand
		if st, err := os.Stat(filepath.Join(path, skills.SkillFile)); err == nil && st.Mode().IsRegular() {
			kind = skills.KindSkill
		}
		l.p.Skills = append(l.p.Skills, skills.Dir{Path: path, Kind: kind, Source: skills.SourcePlugin, Namespace: m.Name, Name: name, Confine: l.p.Root})
	}
	if !present(m.Commands) {
		l.paths(nil, "commands", "commands", func(path string) { add(path, "") })
		return
	}
	refs, err := commandList(m.Commands)
	if err != nil {
		l.problem(filepath.Join(l.p.Root, ManifestPath), fmt.Errorf("%w: \"commands\": %w", ErrManifest, err))
		return
	}
	for _, r := range refs {
		if r.Inline {
			l.problem(filepath.Join(l.p.Root, ManifestPath), fmt.Errorf("command %q: inline \"content\" is %w; put it in a file", r.Name, ErrUnsupported))
			continue
		}
		path, err := within(l.p.Root, r.Path)
		if err != nil {
			l.problem(filepath.Join(l.p.Root, ManifestPath), fmt.Errorf("commands path %q: %w", r.Path, err))
			continue
		}
		add(path, r.Name)
	}
}

// expandRoot replaces ${CLAUDE_PLUGIN_ROOT} with the plugin's root.
func (l *loader) expandRoot(s string) string {
	return strings.ReplaceAll(s, "${"+RootVar+"}", l.p.Root)
}
