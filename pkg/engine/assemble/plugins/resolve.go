package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
)

// DeclaredMarketplace is an extraKnownMarketplaces entry of the settings: its source and
// the directory a relative "directory"/"file" path is read against (the project for a
// project settings file).
type DeclaredMarketplace struct {
	Source MarketplaceSource
	// Base resolves a relative path; "" means Options.Cwd.
	Base string
	// Origin names the settings file, for problems.
	Origin string
}

// Options say which plugins a session loads and where from.
type Options struct {
	Cwd, Home string
	// Enabled is the merged enabledPlugins ("name@marketplace": true); false entries and
	// malformed ids are skipped (the latter with a problem).
	Enabled map[string]bool
	// Declared are the settings' extraKnownMarketplaces, by name.
	Declared map[string]DeclaredMarketplace
	// ProjectEnabled names the ids enabled only by the project's own settings files
	// (value: the file): code a cloned repository names runs only after the user's
	// install step, so such a plugin loads only from an installation in the user's own
	// store (or Claude Code's), and nothing is fetched for it.
	ProjectEnabled map[string]string
	// Dirs are plugin directories loaded for this session only (--plugin-dir).
	Dirs []string
	// Lookup expands ${VAR} in MCP server configurations (the settings env, then the
	// process environment).
	Lookup func(string) (string, bool)
	// Fetch clones a git marketplace or plugin that is not cached yet; without it such a
	// plugin is a problem that says how to fetch it.
	Fetch bool
	// Cloner clones git sources (nil: WorkerCloner). FetchTimeout bounds each clone (0:
	// 60 s).
	Cloner       Cloner
	FetchTimeout time.Duration
	Now          func() time.Time
}

// Result is the loaded plugins, in id order, and every problem met.
type Result struct {
	Plugins  []*Plugin
	Problems []Problem
}

// Load loads the enabled plugins and the --plugin-dir ones. Nothing here fails the
// session: a plugin that cannot load is a Skipped problem naming it, the file and why.
// A plugin's id resolves, in order, to: its installation in the project's then the
// user's store (robota plugin install), else its marketplace's entry — a relative
// source read in place, a git source cloned into the user's cache when Fetch is set.
func Load(ctx context.Context, opts Options) Result {
	r := &resolver{opts: opts, user: UserStore(opts.Home), project: ProjectStore(opts.Cwd),
		markets: map[string]*openMarket{}}
	if opts.Cwd == "" {
		r.project = Store{}
	}
	var res Result
	seen := map[string]bool{}
	for _, dir := range opts.Dirs {
		p, problems := LoadDir(dir, opts.Lookup)
		res.Problems = append(res.Problems, problems...)
		if p != nil && !seen[p.Name] {
			seen[p.Name] = true
			res.Plugins = append(res.Plugins, p)
		}
	}
	ids := make([]string, 0, len(opts.Enabled))
	for id, on := range opts.Enabled {
		if on {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		p, problems := r.plugin(ctx, id)
		res.Problems = append(res.Problems, problems...)
		if p == nil {
			continue
		}
		if seen[p.Name] {
			res.Problems = append(res.Problems, Problem{Plugin: id, Path: p.Root, Skipped: true,
				Err: fmt.Errorf("another enabled plugin is named %q already", p.Name)})
			continue
		}
		seen[p.Name] = true
		res.Plugins = append(res.Plugins, p)
	}
	return res
}

type resolver struct {
	opts          Options
	user, project Store
	markets       map[string]*openMarket
}

// openMarket is a marketplace read once per Load.
type openMarket struct {
	root string // the directory relative sources are read against
	m    Marketplace
	err  error
	// problems are the entries left out, reported with the first plugin that asks.
	problems []error
	path     string
}

func (r *resolver) plugin(ctx context.Context, id string) (*Plugin, []Problem) {
	name, mkt, err := SplitID(id)
	if err == nil && mkt == "" {
		err = fmt.Errorf("%w: %q: want name@marketplace", ErrBadID, id)
	}
	if err != nil {
		return nil, []Problem{{Plugin: id, Skipped: true, Err: err}}
	}
	if file, ok := r.opts.ProjectEnabled[id]; ok {
		return r.installedByUser(id, mkt, file)
	}
	om := r.marketplace(ctx, mkt)
	var problems []Problem
	for _, e := range om.problems { // the marketplace's own, once
		problems = append(problems, Problem{Marketplace: mkt, Path: om.path, Err: e})
	}
	om.problems = nil
	if inst, ok := r.installation(id, r.project, r.user); ok {
		var entry *Entry
		if om.err == nil {
			if e, ok := om.m.Find(name); ok {
				entry = &e
			}
		}
		p, ps := load(loadInput{dir: inst.InstallPath, id: id, marketplace: mkt, entry: entry, lookup: r.opts.Lookup})
		return p, append(problems, ps...)
	}
	if om.err != nil {
		return nil, append(problems, Problem{Plugin: id, Marketplace: mkt, Path: om.path, Skipped: true, Err: om.err})
	}
	entry, ok := om.m.Find(name)
	if !ok {
		return nil, append(problems, Problem{Plugin: id, Marketplace: mkt, Path: om.path, Skipped: true,
			Err: fmt.Errorf("%w: marketplace %q has no plugin %q", ErrNotFound, mkt, name)})
	}
	dir, err := r.entryDir(ctx, mkt, om, entry)
	if err != nil {
		return nil, append(problems, Problem{Plugin: id, Marketplace: mkt, Path: om.path, Skipped: true, Err: err})
	}
	p, ps := load(loadInput{dir: dir, id: id, marketplace: mkt, entry: &entry, lookup: r.opts.Lookup})
	return p, append(problems, ps...)
}

// installation finds id installed in one of stores, in order, then in Claude Code's
// store (an installation of the user's, or of this project).
func (r *resolver) installation(id string, stores ...Store) (Installation, bool) {
	for _, st := range stores {
		if st.Dir == "" {
			continue
		}
		if inst, ok := st.Installation(id); ok {
			return inst, true
		}
	}
	if st := ClaudeStore(r.opts.Home); st.Dir != "" {
		return claudeInstallation(st, id, r.opts.Cwd)
	}
	return Installation{}, false
}

// installedByUser loads a plugin the project's settings enable from the user's own
// installation of it; without one it is skipped, saying how to install it.
func (r *resolver) installedByUser(id, mkt, file string) (*Plugin, []Problem) {
	if inst, ok := r.installation(id, r.user); ok {
		return load(loadInput{dir: inst.InstallPath, id: id, marketplace: mkt, lookup: r.opts.Lookup})
	}
	return nil, []Problem{{Plugin: id, Marketplace: mkt, Skipped: true, Err: fmt.Errorf("%w: %s of this project enables it, "+
		"and a repository's settings never fetch or run a plugin by themselves: install it to use it (robota plugin install %s)",
		ErrNotInstalled, file, id)}}
}

// claudeInstallation is Claude Code's installed copy of id that applies to cwd: a user
// installation, or a project or local one of this project.
func claudeInstallation(st Store, id, cwd string) (Installation, bool) {
	all, err := st.Installed()
	if err != nil {
		return Installation{}, false
	}
	for _, i := range all.Plugins[id] {
		if i.Scope != ScopeUser && i.Scope != "" && (i.ProjectPath == "" || i.ProjectPath != cwd) {
			continue
		}
		if st, err := os.Stat(i.InstallPath); err == nil && st.IsDir() {
			return i, true
		}
	}
	return Installation{}, false
}

// entryDir is where a marketplace entry's plugin lies, fetching a git source if asked.
func (r *resolver) entryDir(ctx context.Context, mkt string, om *openMarket, e Entry) (string, error) {
	switch e.Source.Kind {
	case KindPath:
		rel := e.Source.Path
		if pr := om.m.Metadata.PluginRoot; pr != "" && !strings.HasPrefix(rel, "./") && !strings.HasPrefix(rel, "../") {
			rel = filepath.Join(pr, rel)
		}
		dir, err := within(om.root, rel)
		if err != nil {
			return "", fmt.Errorf("source %q: %w", e.Source.Path, err)
		}
		return dir, nil
	case KindGitHub, KindURL, KindGit:
		dir := r.user.CacheDir(mkt, e.Name, firstNonEmpty(e.Source.Ref, e.Version))
		if _, err := os.Stat(dir); err == nil {
			return dir, nil
		}
		_, err := r.clone(ctx, e.Source, dir)
		return dir, err
	default:
		return "", fmt.Errorf("source %s: %w (install the plugin's files and list it with a relative path or a git source)", e.Source, ErrUnsupported)
	}
}

// clone fetches a git source into dir, when Options.Fetch allows.
func (r *resolver) clone(ctx context.Context, src PluginSource, dir string) (string, error) {
	url, err := GitURL(src)
	if err != nil {
		return "", err
	}
	if !r.opts.Fetch {
		return "", fmt.Errorf("%w: %s is not fetched yet; run: robota plugin marketplace update", ErrNotFound, redactURL(url))
	}
	cloner := r.opts.Cloner
	if cloner == nil {
		cloner = WorkerCloner{}
	}
	timeout := r.opts.FetchTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	commit, err := cloner.Clone(ctx, url, src.Ref, dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrFetch, err)
	}
	return commit, nil
}

// marketplace finds and reads a marketplace by name: the settings' declaration first,
// then the user's store, then Claude Code's, then DefaultMarketplaces.
func (r *resolver) marketplace(ctx context.Context, name string) *openMarket {
	if om, ok := r.markets[name]; ok {
		return om
	}
	om := &openMarket{}
	r.markets[name] = om
	root, err := r.marketplaceRoot(ctx, name)
	if err != nil {
		om.err = err
		return om
	}
	om.root, om.path = root, filepath.Join(root, filepath.FromSlash(MarketplacePath))
	om.m, om.problems, om.err = ReadMarketplace(root)
	if om.err == nil && om.m.Name != name {
		// Claude Code keys a marketplace by the name it was added under; a catalogue that
		// calls itself otherwise is still that marketplace, but say so.
		om.problems = append(om.problems, fmt.Errorf("marketplace.json names itself %q, known here as %q", om.m.Name, name))
	}
	return om
}

// ReadMarketplace reads <root>/.claude-plugin/marketplace.json.
func ReadMarketplace(root string) (Marketplace, []error, error) {
	data, err := agentdef.ReadFileBounded(filepath.Join(root, filepath.FromSlash(MarketplacePath)))
	if errors.Is(err, fs.ErrNotExist) {
		return Marketplace{}, nil, fmt.Errorf("%w: no %s in %s", ErrNotFound, MarketplacePath, root)
	}
	if err != nil {
		return Marketplace{}, nil, fmt.Errorf("%w: %w", ErrMarketplace, err)
	}
	return ParseMarketplace(data)
}

func (r *resolver) marketplaceRoot(ctx context.Context, name string) (string, error) {
	if d, ok := r.opts.Declared[name]; ok {
		return r.sourceRoot(ctx, name, d.Source, firstNonEmpty(d.Base, r.opts.Cwd), "")
	}
	for _, st := range []Store{r.user, ClaudeStore(r.opts.Home)} {
		known, err := st.KnownMarketplaces()
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrMarketplace, err)
		}
		if km, ok := known[name]; ok {
			return r.sourceRoot(ctx, name, km.Source, r.opts.Cwd, km.InstallLocation)
		}
	}
	if src, ok := DefaultMarketplaces()[name]; ok {
		return r.sourceRoot(ctx, name, src, r.opts.Cwd, "")
	}
	return "", fmt.Errorf("%w: marketplace %q is not known (add it with robota plugin marketplace add, or in extraKnownMarketplaces)", ErrNotFound, name)
}

// DefaultMarketplaces are known without being added, below every other declaration:
// Claude Code's official marketplace, so the plugins a user enabled from it in Claude
// Code load here too (cloned on first use). The map is built on first use, not in a
// package init: robota pays every init on every command (issue 29).
func DefaultMarketplaces() map[string]MarketplaceSource { return defaultMarketplacesTable.Get() }

// defaultMarketplacesTable is built on first use (internal/lazy).
var defaultMarketplacesTable = &lazy.Value[map[string]MarketplaceSource]{Build: func() map[string]MarketplaceSource {
	return map[string]MarketplaceSource{
		"claude-plugins-official": {Kind: KindGitHub, Repo: "anthropics/claude-plugins-official"},
	}
}}

// sourceRoot is the directory of a marketplace source; a git one is cloned into the user
// store (or read where it was cloned, installLocation) and fetched when missing.
func (r *resolver) sourceRoot(ctx context.Context, name string, src MarketplaceSource, base, installLocation string) (string, error) {
	switch src.Kind {
	case KindDirectory:
		return realDir(abs(base, src.Path, r.opts.Home))
	case KindFile:
		dir := filepath.Dir(abs(base, src.Path, r.opts.Home))
		if filepath.Base(dir) == ".claude-plugin" {
			dir = filepath.Dir(dir)
		}
		return realDir(dir)
	case KindGit, KindGitHub:
		dir := firstNonEmpty(installLocation, r.user.MarketplaceDir(name))
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(MarketplacePath))); err == nil {
			return realDir(dir)
		}
		if _, err := r.clone(ctx, src, dir); err != nil {
			return "", err
		}
		return realDir(dir)
	case KindURL:
		if installLocation != "" { // Claude Code's cached marketplace.json, or its directory
			if st, err := os.Stat(installLocation); err == nil && !st.IsDir() {
				dir := filepath.Dir(installLocation)
				if filepath.Base(dir) == ".claude-plugin" {
					dir = filepath.Dir(dir)
				}
				return realDir(dir)
			}
			return realDir(installLocation)
		}
		return "", fmt.Errorf("marketplace source url (%s): %w; use a git repository or a directory", redactURL(src.URL), ErrUnsupported)
	default:
		return "", fmt.Errorf("marketplace source %q: %w", src.Kind, ErrUnsupported)
	}
}

// abs resolves a path as a user wrote it: ~/ is home, relative is below base.
func abs(base, p, home string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
