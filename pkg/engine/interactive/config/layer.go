package config

import (
	"path/filepath"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Source says where a setting came from.
type Source struct {
	// Layer is the precedence rank: 1..6 for the settings files (see Layers),
	// LayerFlagSettings for --settings, LayerCommandLine for overrides. Higher wins.
	Layer int
	// Name is Claude Code's name for the scope: userSettings, projectSettings,
	// localSettings or cliArg.
	Name string
	// Path is the absolute file path; empty for command-line overrides.
	Path string
	// Display is how messages name the file: `~/.claude/settings.json`,
	// `.robota/settings.local.json`, `command line`.
	Display string
	// Root is the directory a settings-relative `/path` permission rule is anchored to:
	// the directory holding the file's `.robota/` or `.claude/` folder (the project
	// directory for project layers, the home directory for user layers).
	Root string
}

// Scope names, as Claude Code spells them in permission decision reasons.
const (
	ScopeUser    = "userSettings"
	ScopeProject = "projectSettings"
	ScopeLocal   = "localSettings"
	ScopeCLI     = "cliArg"
	// ScopeFlag is the --settings layer (Claude Code's flagSettings).
	ScopeFlag = "flagSettings"
)

// LayerFlagSettings is the rank of Loader.Extra (--settings): above the six files.
const LayerFlagSettings = 7

// LayerCommandLine is the rank of Overrides: above every file and --settings.
const LayerCommandLine = 8

// SourceNames are the names --setting-sources accepts, each with the scope of its files.
func SourceNames() map[string]string { return sourceNamesTable.Get() }

// sourceNamesTable is built on first use (internal/lazy).
var sourceNamesTable = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{"user": ScopeUser, "project": ScopeProject, "local": ScopeLocal}
}}

// layerSpec is one row of the spec's precedence table.
type layerSpec struct {
	user  bool // relative to the home directory, else to the project directory
	rel   string
	scope string
}

// layerSpecs is the spec's table, lowest priority first:
//
//	1 ~/.robota/settings.json        User global
//	2 ~/.claude/settings.json        User global (Claude Code compatible)
//	3 .robota/settings.json          Project
//	4 .robota/settings.local.json    Project (local)
//	5 .claude/settings.json          Project (Claude Code compatible)
//	6 .claude/settings.local.json    Project (local, Claude Code compatible)
var layerSpecs = []layerSpec{
	{true, ".robota/settings.json", ScopeUser},
	{true, ".claude/settings.json", ScopeUser},
	{false, ".robota/settings.json", ScopeProject},
	{false, ".robota/settings.local.json", ScopeLocal},
	{false, ".claude/settings.json", ScopeProject},
	{false, ".claude/settings.local.json", ScopeLocal},
}

// Layers returns the six settings files for a home and a project directory, lowest
// priority first. A layer whose base directory is empty is left out (no home known).
func Layers(home, projectDir string) []Source {
	var out []Source
	for i, spec := range layerSpecs {
		base, display := projectDir, spec.rel
		if spec.user {
			base, display = home, "~/"+spec.rel
		}
		if base == "" {
			continue
		}
		out = append(out, Source{
			Layer:   i + 1,
			Name:    spec.scope,
			Path:    filepath.Join(base, filepath.FromSlash(spec.rel)),
			Display: display,
			Root:    base,
		})
	}
	return out
}

// commandLineSource is the Source of Overrides.
func commandLineSource(projectDir string) Source {
	return Source{Layer: LayerCommandLine, Name: ScopeCLI, Display: commandLineDisplay, Root: projectDir}
}

const commandLineDisplay = "command line"
