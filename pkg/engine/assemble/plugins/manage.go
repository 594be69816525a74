package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Settings scopes enabledPlugins is written to, as Claude Code's --scope.
const ScopeLocal = "local"

// SettingsPath is the settings file a scope's enabledPlugins is written to: the user's
// ~/.robota/settings.json, the project's .robota/settings.json, or the project's
// .robota/settings.local.json (local, not committed).
func SettingsPath(scope, cwd, home string) (string, error) {
	switch scope {
	case ScopeUser, "":
		return filepath.Join(home, ".robota", "settings.json"), nil
	case ScopeProject:
		return filepath.Join(cwd, ".robota", "settings.json"), nil
	case ScopeLocal:
		return filepath.Join(cwd, ".robota", "settings.local.json"), nil
	}
	return "", fmt.Errorf("scope %q: want user, project or local", scope)
}

// SetEnabled writes enabledPlugins[id] = on into the settings file at path (nil on
// removes the entry), keeping every other key. A file that is not a JSON object is an
// error and is left as it is.
func SetEnabled(path, id string, on *bool) error {
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := decodeObject(data, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	enabled := map[string]json.RawMessage{}
	if raw, ok := doc["enabledPlugins"]; ok && present(raw) {
		if err := json.Unmarshal(raw, &enabled); err != nil {
			return fmt.Errorf("%s: enabledPlugins: %w", path, err)
		}
	}
	if on == nil {
		delete(enabled, id)
	} else {
		enabled[id], _ = json.Marshal(*on)
	}
	doc["enabledPlugins"], _ = json.Marshal(enabled)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(out, '\n'))
}

// githubRepo is owner/repo, optionally #ref.
var githubRepo = lazy.NewRegexp(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(#.+)?$`)

// ParseSourceArg reads what `robota plugin marketplace add` is given: a local directory
// or marketplace.json (relative to cwd, or ~/), a git URL (https://..., git@..., file://,
// anything ending in .git; #ref picks a branch or tag), or GitHub's owner/repo[#ref].
func ParseSourceArg(arg, cwd, home string) (MarketplaceSource, error) {
	local := abs(cwd, arg, home)
	if st, err := os.Stat(local); err == nil && !strings.Contains(arg, "://") {
		if st.IsDir() {
			return MarketplaceSource{Kind: KindDirectory, Path: local}, nil
		}
		if strings.HasSuffix(local, ".json") {
			return MarketplaceSource{Kind: KindFile, Path: local}, nil
		}
		return MarketplaceSource{}, fmt.Errorf("%s: want a directory or a marketplace.json file", local)
	}
	url, ref, _ := strings.Cut(arg, "#")
	switch {
	case strings.HasPrefix(arg, "./"), strings.HasPrefix(arg, "../"), strings.HasPrefix(arg, "/"), strings.HasPrefix(arg, "~"):
		return MarketplaceSource{}, fmt.Errorf("%w: %s", ErrNotFound, local)
	case strings.HasSuffix(url, ".json") && strings.Contains(url, "://"):
		return MarketplaceSource{}, fmt.Errorf("%s: a marketplace served as a JSON URL is %w; give its git repository", arg, ErrUnsupported)
	case strings.Contains(url, "://") || strings.HasPrefix(url, "git@") || strings.HasSuffix(url, ".git"):
		return MarketplaceSource{Kind: KindGit, URL: url, Ref: ref}, nil
	case githubRepo.MatchString(arg):
		return MarketplaceSource{Kind: KindGitHub, Repo: url, Ref: ref}, nil
	}
	return MarketplaceSource{}, fmt.Errorf("%q is not a directory, a git URL or owner/repo", arg)
}

// Manager carries out the plugin commands (robota plugin ...) over the user's and the
// project's stores. Opts give the directories, the settings' declared marketplaces and
// the cloner; Fetch is implied.
type Manager struct {
	Opts Options
}

func (m Manager) resolver() *resolver {
	o := m.Opts
	o.Fetch = true
	r := &resolver{opts: o, user: UserStore(o.Home), project: ProjectStore(o.Cwd), markets: map[string]*openMarket{}}
	r.user.Now, r.project.Now = o.Now, o.Now
	return r
}

// Store returns the store of a scope (local installs go to the project's store).
func (m Manager) Store(scope string) Store {
	if scope == ScopeProject || scope == ScopeLocal {
		s := ProjectStore(m.Opts.Cwd)
		s.Now = m.Opts.Now
		return s
	}
	s := UserStore(m.Opts.Home)
	s.Now = m.Opts.Now
	return s
}

// AddMarketplace records a marketplace in the user's store, cloning a git one into
// ~/.robota/plugins/marketplaces/<name>; the name is the one its marketplace.json gives.
func (m Manager) AddMarketplace(ctx context.Context, src MarketplaceSource) (string, error) {
	r := m.resolver()
	var root string
	switch src.Kind {
	case KindDirectory, KindFile:
		var err error
		if root, err = r.sourceRoot(ctx, "", src, m.Opts.Cwd, ""); err != nil {
			return "", err
		}
	case KindGit, KindGitHub:
		tmp, err := os.MkdirTemp(r.user.Dir, ".add-*")
		if err != nil {
			if err = os.MkdirAll(r.user.Dir, 0o755); err == nil {
				tmp, err = os.MkdirTemp(r.user.Dir, ".add-*")
			}
			if err != nil {
				return "", err
			}
		}
		defer os.RemoveAll(tmp)
		if _, err := r.clone(ctx, src, filepath.Join(tmp, "repo")); err != nil {
			return "", err
		}
		root = filepath.Join(tmp, "repo")
	default:
		return "", fmt.Errorf("marketplace source %q: %w", src.Kind, ErrUnsupported)
	}
	mk, _, err := ReadMarketplace(root)
	if err != nil {
		return "", err
	}
	known, err := r.user.KnownMarketplaces()
	if err != nil {
		return "", err
	}
	if _, dup := known[mk.Name]; dup {
		return "", fmt.Errorf("marketplace %q is already known; remove it first, or update it", mk.Name)
	}
	if src.Kind == KindGit || src.Kind == KindGitHub {
		dest := r.user.MarketplaceDir(mk.Name)
		if err := os.RemoveAll(dest); err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return "", err
		}
		if err := os.Rename(root, dest); err != nil {
			return "", err
		}
		root = dest
	}
	return mk.Name, r.user.SetKnownMarketplace(mk.Name, &KnownMarketplace{Source: src, InstallLocation: root,
		LastUpdated: r.user.now().UTC().Format("2006-01-02T15:04:05.000Z")})
}

// RemoveMarketplace forgets a marketplace added by command and deletes its clone.
func (m Manager) RemoveMarketplace(name string) error {
	st := m.Store(ScopeUser)
	known, err := st.KnownMarketplaces()
	if err != nil {
		return err
	}
	if _, ok := known[name]; !ok {
		return fmt.Errorf("%w: marketplace %q was not added with robota plugin marketplace add", ErrNotFound, name)
	}
	if err := ValidName(name); err == nil {
		_ = os.RemoveAll(st.MarketplaceDir(name))
	}
	return st.SetKnownMarketplace(name, nil)
}

// UpdateMarketplace fetches a git marketplace again (a fresh clone replaces the old one)
// and checks that it still reads; a local one is only read.
func (m Manager) UpdateMarketplace(ctx context.Context, name string) error {
	r := m.resolver()
	src, loc, err := r.known(name)
	if err != nil {
		return err
	}
	if src.Kind == KindGit || src.Kind == KindGitHub {
		dir := firstNonEmpty(loc, r.user.MarketplaceDir(name))
		if _, err := r.clone(ctx, src, dir); err != nil {
			return err
		}
	}
	om := r.marketplace(ctx, name)
	if om.err == nil && loc != "" {
		st := r.user
		if known, kerr := st.KnownMarketplaces(); kerr == nil {
			if km, ok := known[name]; ok {
				km.LastUpdated = st.now().UTC().Format("2006-01-02T15:04:05.000Z")
				_ = st.SetKnownMarketplace(name, &km)
			}
		}
	}
	return om.err
}

// known is a marketplace's source and install location: declared in the settings, else
// added by command.
func (r *resolver) known(name string) (MarketplaceSource, string, error) {
	if d, ok := r.opts.Declared[name]; ok {
		return d.Source, "", nil
	}
	known, err := r.user.KnownMarketplaces()
	if err != nil {
		return MarketplaceSource{}, "", err
	}
	if km, ok := known[name]; ok {
		return km.Source, km.InstallLocation, nil
	}
	return MarketplaceSource{}, "", fmt.Errorf("%w: marketplace %q is not known", ErrNotFound, name)
}

// Install copies a marketplace's plugin into the scope's store (cache/<marketplace>/
// <plugin>/<version>), records it in installed_plugins.json and enables it in the
// scope's settings file. A plugin that does not load is not installed; the problems of
// one that loads in part are returned.
func (m Manager) Install(ctx context.Context, id, scope string) (Installation, []Problem, error) {
	name, mkt, err := SplitID(id)
	if err == nil && mkt == "" {
		err = fmt.Errorf("%w: %q: want name@marketplace", ErrBadID, id)
	}
	if err != nil {
		return Installation{}, nil, err
	}
	settings, err := SettingsPath(scope, m.Opts.Cwd, m.Opts.Home)
	if err != nil {
		return Installation{}, nil, err
	}
	r := m.resolver()
	om := r.marketplace(ctx, mkt)
	if om.err != nil {
		return Installation{}, nil, om.err
	}
	entry, ok := om.m.Find(name)
	if !ok {
		return Installation{}, nil, fmt.Errorf("%w: marketplace %q has no plugin %q", ErrNotFound, mkt, name)
	}
	src, err := r.entryDir(ctx, mkt, om, entry)
	if err != nil {
		return Installation{}, nil, err
	}
	p, problems := load(loadInput{dir: src, id: id, marketplace: mkt, entry: &entry})
	if p == nil {
		return Installation{}, problems, errors.Join(problemErrs(problems)...)
	}
	version := firstNonEmpty(p.Manifest.Version, entry.Version)
	st := m.Store(scope)
	dest := st.CacheDir(mkt, name, version)
	if filepath.Clean(p.Root) != filepath.Clean(dest) {
		if err := copyTree(p.Root, dest); err != nil {
			return Installation{}, problems, fmt.Errorf("copying %s to %s: %w", p.Root, dest, err)
		}
	}
	now := st.now().UTC().Format("2006-01-02T15:04:05.000Z")
	inst := Installation{Scope: st.Scope, InstallPath: dest, Version: version, InstalledAt: now, LastUpdated: now}
	if st.Scope == ScopeProject {
		inst.ProjectPath = m.Opts.Cwd
	}
	if err := st.SetInstalled(id, &inst); err != nil {
		return Installation{}, problems, err
	}
	on := true
	return inst, problems, SetEnabled(settings, id, &on)
}

// Uninstall removes the scope's installation of id (its copy too) and its
// enabledPlugins entry in the scope's settings file.
func (m Manager) Uninstall(id, scope string) error {
	if _, _, err := SplitID(id); err != nil {
		return err
	}
	settings, err := SettingsPath(scope, m.Opts.Cwd, m.Opts.Home)
	if err != nil {
		return err
	}
	st := m.Store(scope)
	inst, ok := st.Installation(id)
	if !ok {
		return fmt.Errorf("%w: %s is not installed in the %s scope", ErrNotFound, id, st.Scope)
	}
	if inside(filepath.Join(st.Dir, cacheDir), inst.InstallPath) {
		if err := os.RemoveAll(inst.InstallPath); err != nil {
			return err
		}
	}
	if err := st.SetInstalled(id, nil); err != nil {
		return err
	}
	return SetEnabled(settings, id, nil)
}

func problemErrs(ps []Problem) []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}
