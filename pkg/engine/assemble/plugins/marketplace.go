package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MarketplacePath is where a marketplace's catalogue lies, relative to its root.
const MarketplacePath = ".claude-plugin/marketplace.json"

// Marketplace is .claude-plugin/marketplace.json.
type Marketplace struct {
	Name     string  `json:"name"`
	Owner    *Author `json:"owner,omitempty"`
	Plugins  []Entry `json:"plugins"`
	Metadata struct {
		// PluginRoot is prepended to relative plugin sources ("./plugins" lets an entry
		// say "formatter" for "./plugins/formatter").
		PluginRoot  string `json:"pluginRoot,omitempty"`
		Version     string `json:"version,omitempty"`
		Description string `json:"description,omitempty"`
	} `json:"metadata"`
}

// Entry is one plugin a marketplace offers.
type Entry struct {
	Name        string       `json:"name"`
	Source      PluginSource `json:"source"`
	Description string       `json:"description,omitempty"`
	Version     string       `json:"version,omitempty"`
	Author      *Author      `json:"author,omitempty"`
	Category    string       `json:"category,omitempty"`
	Keywords    []string     `json:"keywords,omitempty"`
	Tags        []string     `json:"tags,omitempty"`
	// Strict false lets the entry stand for a missing plugin.json.
	Strict *bool `json:"strict,omitempty"`
	Components
}

// Find returns the entry named name.
func (m Marketplace) Find(name string) (Entry, bool) {
	for _, e := range m.Plugins {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Source kinds of a plugin entry and of a known marketplace (Claude Code's names).
const (
	KindPath      = "path"      // plugin: a path relative to the marketplace root
	KindGitHub    = "github"    // {repo: "owner/name", ref}
	KindURL       = "url"       // plugin: a git URL; marketplace: a URL of marketplace.json
	KindGit       = "git"       // {url, ref}
	KindDirectory = "directory" // marketplace: a local directory
	KindFile      = "file"      // marketplace: a local marketplace.json
	KindNPM       = "npm"
	KindPip       = "pip"
)

// PluginSource is where a marketplace entry's plugin lies: a relative path ("./x"),
// or an object {"source": "github"|"url"|"git"|"npm"|"pip", ...}.
type PluginSource struct {
	Kind string `json:"source"`
	// Path is the relative path of KindPath.
	Path string `json:"path,omitempty"`
	Repo string `json:"repo,omitempty"`
	URL  string `json:"url,omitempty"`
	Ref  string `json:"ref,omitempty"`
	// Package names an npm or pip package (not supported; kept for messages).
	Package string `json:"package,omitempty"`
}

func (s *PluginSource) UnmarshalJSON(b []byte) error {
	var p string
	if json.Unmarshal(b, &p) == nil {
		if p == "" {
			return errors.New("empty source path")
		}
		*s = PluginSource{Kind: KindPath, Path: p}
		return nil
	}
	type plain PluginSource
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New("source: want a relative path or an object with \"source\"")
	}
	*s = PluginSource(v)
	return s.check()
}

func (s PluginSource) check() error {
	switch s.Kind {
	case KindGitHub:
		if strings.Count(s.Repo, "/") != 1 || strings.HasPrefix(s.Repo, "/") || strings.HasSuffix(s.Repo, "/") {
			return fmt.Errorf("source github: repo %q is not owner/name", s.Repo)
		}
	case KindURL, KindGit:
		if s.URL == "" {
			return fmt.Errorf("source %s: missing url", s.Kind)
		}
	case KindPath, KindDirectory, KindFile:
		if s.Path == "" {
			return fmt.Errorf("source %s: missing path", s.Kind)
		}
	case KindNPM, KindPip:
	case "":
		return errors.New(`source: missing "source" kind`)
	default:
		return fmt.Errorf("source: unknown kind %q", s.Kind)
	}
	return nil
}

// String is the source as a user would write it.
func (s PluginSource) String() string {
	switch s.Kind {
	case KindPath, KindDirectory, KindFile:
		return s.Path
	case KindGitHub:
		return "github:" + s.Repo + refSuffix(s.Ref)
	case KindURL, KindGit:
		return s.URL + refSuffix(s.Ref)
	default:
		return s.Kind + ":" + s.Package
	}
}

func refSuffix(ref string) string {
	if ref == "" {
		return ""
	}
	return "#" + ref
}

// ParseMarketplace reads a marketplace.json. The marketplace's name is required and
// must be a ValidName. An entry that is malformed (no valid name, a bad source, a name
// given twice) is left out and reported in problems; the others are kept.
func ParseMarketplace(data []byte) (Marketplace, []error, error) {
	var raw struct {
		Name     string            `json:"name"`
		Owner    json.RawMessage   `json:"owner"`
		Plugins  []json.RawMessage `json:"plugins"`
		Metadata json.RawMessage   `json:"metadata"`
	}
	if err := decodeObject(data, &raw); err != nil {
		return Marketplace{}, nil, fmt.Errorf("%w: %w", ErrMarketplace, err)
	}
	if raw.Name == "" {
		return Marketplace{}, nil, fmt.Errorf("%w: missing required \"name\"", ErrMarketplace)
	}
	if err := ValidName(raw.Name); err != nil {
		return Marketplace{}, nil, fmt.Errorf("%w: %w", ErrMarketplace, err)
	}
	m := Marketplace{Name: raw.Name}
	if present(raw.Owner) {
		var a Author
		if err := json.Unmarshal(raw.Owner, &a); err == nil {
			m.Owner = &a
		}
	}
	if present(raw.Metadata) {
		if err := json.Unmarshal(raw.Metadata, &m.Metadata); err != nil {
			return Marketplace{}, nil, fmt.Errorf("%w: metadata: %w", ErrMarketplace, err)
		}
	}
	var problems []error
	seen := map[string]bool{}
	for i, r := range raw.Plugins {
		var e Entry
		if err := json.Unmarshal(r, &e); err != nil {
			problems = append(problems, fmt.Errorf("%w: plugins[%d]: %w", ErrMarketplace, i, err))
			continue
		}
		if err := ValidName(e.Name); err != nil {
			problems = append(problems, fmt.Errorf("%w: plugins[%d]: %w", ErrMarketplace, i, err))
			continue
		}
		if e.Source.Kind == "" {
			problems = append(problems, fmt.Errorf("%w: plugins[%d] (%s): missing \"source\"", ErrMarketplace, i, e.Name))
			continue
		}
		if seen[e.Name] {
			problems = append(problems, fmt.Errorf("%w: plugins[%d]: %q is listed twice; the first is used", ErrMarketplace, i, e.Name))
			continue
		}
		seen[e.Name] = true
		m.Plugins = append(m.Plugins, e)
	}
	return m, problems, nil
}

// MarketplaceSource is where a known marketplace comes from: the "source" of a settings
// extraKnownMarketplaces entry, or of a marketplace added by command.
type MarketplaceSource = PluginSource

// ParseMarketplaceSource reads a {"source": "directory"|"file"|"git"|"github"|"url", ...}
// object.
func ParseMarketplaceSource(data []byte) (MarketplaceSource, error) {
	var s MarketplaceSource
	if err := decodeObject(data, &s); err != nil {
		return MarketplaceSource{}, err
	}
	return s, nil
}
