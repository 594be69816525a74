package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/robota-sdk/robota-go/internal/atomicfile"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
)

// The files of a plugin directory (~/.robota/plugins for the user, .robota/plugins for a
// project), named as Claude Code names them under ~/.claude/plugins.
const (
	KnownMarketplacesFile = "known_marketplaces.json"
	InstalledFile         = "installed_plugins.json"
	marketplacesDir       = "marketplaces"
	cacheDir              = "cache"
)

// Scopes of an installation.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// Store is one plugin directory: the marketplaces added by command, their clones, the
// installed plugins and their copies.
type Store struct {
	Dir string
	// Scope is ScopeUser or ScopeProject.
	Scope string
	Now   func() time.Time
}

// UserStore is ~/.robota/plugins.
func UserStore(home string) Store {
	return Store{Dir: filepath.Join(home, ".robota", "plugins"), Scope: ScopeUser}
}

// ProjectStore is <cwd>/.robota/plugins.
func ProjectStore(cwd string) Store {
	return Store{Dir: filepath.Join(cwd, ".robota", "plugins"), Scope: ScopeProject}
}

// ClaudeStore is Claude Code's ~/.claude/plugins, read (never written) so marketplaces a
// user added with `claude plugin marketplace add` are known here too.
func ClaudeStore(home string) Store {
	return Store{Dir: filepath.Join(home, ".claude", "plugins"), Scope: ScopeUser}
}

func (s Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// KnownMarketplace is one entry of known_marketplaces.json.
type KnownMarketplace struct {
	Source MarketplaceSource `json:"source"`
	// InstallLocation is the marketplace's directory (a clone for git sources).
	InstallLocation string `json:"installLocation"`
	LastUpdated     string `json:"lastUpdated,omitempty"`
}

// Installation is one installed copy of a plugin (installed_plugins.json, version 2).
type Installation struct {
	Scope        string `json:"scope"`
	ProjectPath  string `json:"projectPath,omitempty"`
	InstallPath  string `json:"installPath"`
	Version      string `json:"version,omitempty"`
	InstalledAt  string `json:"installedAt,omitempty"`
	LastUpdated  string `json:"lastUpdated,omitempty"`
	GitCommitSha string `json:"gitCommitSha,omitempty"`
}

// Installed is installed_plugins.json.
type Installed struct {
	Version int                       `json:"version"`
	Plugins map[string][]Installation `json:"plugins"`
}

// KnownMarketplaces reads known_marketplaces.json (missing: none).
func (s Store) KnownMarketplaces() (map[string]KnownMarketplace, error) {
	out := map[string]KnownMarketplace{}
	err := s.readJSON(KnownMarketplacesFile, &out)
	return out, err
}

// SetKnownMarketplace records (or with a nil entry, removes) a marketplace.
func (s Store) SetKnownMarketplace(name string, km *KnownMarketplace) error {
	known, err := s.KnownMarketplaces()
	if err != nil {
		return err
	}
	if km == nil {
		delete(known, name)
	} else {
		known[name] = *km
	}
	return s.writeJSON(KnownMarketplacesFile, known)
}

// Installed reads installed_plugins.json (missing: none). Claude Code's version 1 (one
// installation per id) is read as version 2.
func (s Store) Installed() (Installed, error) {
	var raw struct {
		Version int                        `json:"version"`
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	out := Installed{Version: 2, Plugins: map[string][]Installation{}}
	if err := s.readJSON(InstalledFile, &raw); err != nil {
		return out, err
	}
	for id, r := range raw.Plugins {
		var list []Installation
		if err := json.Unmarshal(r, &list); err != nil {
			var one Installation
			if err := json.Unmarshal(r, &one); err != nil {
				return out, fmt.Errorf("%s: plugins[%q]: %w", filepath.Join(s.Dir, InstalledFile), id, err)
			}
			list = []Installation{one}
		}
		out.Plugins[id] = list
	}
	return out, nil
}

// SetInstalled records (or with a nil entry, removes) the store's installation of id.
func (s Store) SetInstalled(id string, inst *Installation) error {
	all, err := s.Installed()
	if err != nil {
		return err
	}
	var kept []Installation
	for _, i := range all.Plugins[id] {
		if i.Scope != s.Scope {
			kept = append(kept, i)
		}
	}
	if inst != nil {
		kept = append(kept, *inst)
	}
	if len(kept) == 0 {
		delete(all.Plugins, id)
	} else {
		all.Plugins[id] = kept
	}
	return s.writeJSON(InstalledFile, all)
}

// Installation returns the store's installation of id whose directory exists.
func (s Store) Installation(id string) (Installation, bool) {
	all, err := s.Installed()
	if err != nil {
		return Installation{}, false
	}
	for _, i := range all.Plugins[id] {
		if i.Scope != s.Scope {
			continue
		}
		if st, err := os.Stat(i.InstallPath); err == nil && st.IsDir() {
			return i, true
		}
	}
	return Installation{}, false
}

// MarketplaceDir is where a git marketplace is cloned.
func (s Store) MarketplaceDir(name string) string { return filepath.Join(s.Dir, marketplacesDir, name) }

// CacheDir is where a plugin's copy (or clone) of a version is kept.
func (s Store) CacheDir(marketplace, plugin, version string) string {
	if version == "" {
		version = "unversioned"
	}
	return filepath.Join(s.Dir, cacheDir, marketplace, plugin, safeSegment(version))
}

// safeSegment makes a version usable as one path segment.
func safeSegment(v string) string {
	if ValidName(v) == nil {
		return v
	}
	out := []rune{}
	for _, r := range v {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			r = '_'
		}
		out = append(out, r)
	}
	if s := string(out); s != "." && s != ".." {
		return s
	}
	return "unversioned"
}

func (s Store) readJSON(name string, v any) error {
	path := filepath.Join(s.Dir, name)
	data, err := agentdef.ReadFileBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := decodeObject(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeJSON replaces a registry file atomically (temp file, fsync, rename).
func (s Store) writeJSON(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(s.Dir, name), append(data, '\n'))
}

func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o755) }
