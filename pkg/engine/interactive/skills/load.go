package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
)

// MaxFileSize bounds what is read of one file; a larger file is skipped.
const MaxFileSize = agentdef.MaxFileSize

// SkillFile is the file that makes a directory a skill.
const SkillFile = "SKILL.md"

// Dir is one directory scanned for skills (Kind skill: <Path>/<name>/SKILL.md) or
// custom commands (Kind command: <Path>/**/*.md).
type Dir struct {
	Path   string
	Kind   Kind
	Source Source
	// Namespace qualifies every name found here as "<Namespace>:<name>" (a plugin's
	// name, so its commands are plugin-qualified); "" leaves names as they are.
	Namespace string
	// Name names the command when Path is one command file (a plugin manifest's
	// commands object); "" names it after the file.
	Name string
	// Confine, when set, skips (with a Problem) every file whose real path, symbolic
	// links followed, lies outside it: a plugin's files stay inside the plugin. With a
	// Namespace it is the plugin's root, which ${CLAUDE_PLUGIN_ROOT} expands to.
	Confine string
	// Denied, when set, reports a file (its real path) a Read deny rule covers: it is
	// skipped with a Problem, never read into a prompt.
	Denied func(realPath string) bool
}

// PluginDirs returns the skills and commands directories of a plugin rooted at root
// (Claude Code's plugin layout: <root>/skills/<name>/SKILL.md, <root>/commands/*.md),
// their names qualified with the plugin's name. They rank below project and user
// directories when appended after Dirs.
func PluginDirs(root, plugin string) []Dir {
	return []Dir{
		{Path: filepath.Join(root, "skills"), Kind: KindSkill, Source: SourcePlugin, Namespace: plugin},
		{Path: filepath.Join(root, "commands"), Kind: KindCommand, Source: SourcePlugin, Namespace: plugin},
	}
}

// Dirs returns the scan directories, highest priority first: project (under cwd) before
// user (under home); within each .robota before .agents before .claude; within one root
// skills before commands (Claude Code: a skill wins over a command of its name). An
// empty cwd or home leaves its directories out.
func Dirs(cwd, home string) []Dir {
	var out []Dir
	add := func(base string, src Source, confine string, roots ...string) {
		for _, r := range roots {
			out = append(out, Dir{Path: filepath.Join(base, r, "skills"), Kind: KindSkill, Source: src, Confine: confine})
			if r != ".agents" {
				out = append(out, Dir{Path: filepath.Join(base, r, "commands"), Kind: KindCommand, Source: src, Confine: confine})
			}
		}
	}
	if cwd != "" {
		// A repository's skill or command that links out of it (to a credentials file,
		// /proc/self/environ) is skipped, never read into a prompt. The user's own
		// directories may link where the user likes (dotfiles).
		confine := RealDir(cwd)
		if home != "" && RealDir(home) == confine {
			confine = "" // started in the home directory: these are the user's own
		}
		add(cwd, SourceProject, confine, ".robota", ".agents", ".claude")
	}
	if home != "" {
		add(home, SourceUser, "", ".robota", ".claude")
	}
	return out
}

// RealDir is dir with symbolic links resolved (dir itself when it cannot be).
func RealDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// Catalog is the set of skills a session offers, sorted by name.
type Catalog struct {
	skills []Skill
}

// NewCatalog builds a catalog from skills already in priority order (first of a name wins).
func NewCatalog(list []Skill) *Catalog {
	c := &Catalog{}
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s.Name] {
			seen[s.Name] = true
			c.skills = append(c.skills, s)
		}
	}
	sort.SliceStable(c.skills, func(i, j int) bool { return c.skills[i].Name < c.skills[j].Name })
	return c
}

// List returns every skill, sorted by name.
func (c *Catalog) List() []Skill {
	if c == nil {
		return nil
	}
	return append([]Skill(nil), c.skills...)
}

// ModelVisible returns the skills the model may invoke (no disable-model-invocation).
func (c *Catalog) ModelVisible() []Skill { return c.filter(Skill.ModelInvocable) }

// UserVisible returns the skills for the user's slash menu (user-invocable not false).
func (c *Catalog) UserVisible() []Skill {
	return c.filter(func(s Skill) bool { return s.UserInvocable })
}

func (c *Catalog) filter(keep func(Skill) bool) []Skill {
	var out []Skill
	for _, s := range c.List() {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// Lookup finds a skill by its exact name, a leading "/" ignored.
func (c *Catalog) Lookup(name string) (Skill, bool) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	for _, s := range c.List() {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Load reads the skills and commands of dirs (highest priority first) into a catalog.
// Of skills with one name the one from the earlier directory wins silently (an override);
// two of one name in the same directory: the first in path order wins and the other is
// reported. Problems name the file; a missing directory is none.
func Load(dirs []Dir) (*Catalog, []Problem) {
	var (
		list     []Skill
		problems []Problem
		byName   = map[string]Skill{}
		seenDirs = map[string]bool{}
	)
	for _, dir := range dirs {
		root, err := filepath.EvalSymlinks(dir.Path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, Problem{Path: dir.Path, Skipped: true, Err: fmt.Errorf("%w: %w", ErrUnreadable, err)})
			}
			continue
		}
		if seenDirs[root] {
			continue // cwd is home: the project directories are the user's
		}
		seenDirs[root] = true
		var files []candidate
		if dir.Kind == KindCommand {
			files, err = commandFiles(dir.Path, dir.Name)
		} else {
			files, err = skillFiles(dir.Path, dir.Namespace != "")
		}
		if err != nil {
			problems = append(problems, Problem{Path: dir.Path, Skipped: true, Err: fmt.Errorf("%w: %w", ErrUnreadable, err)})
		}
		dirNames := map[string]string{}
		for _, f := range files {
			if err := denied(dir.Denied, f.path); err != nil {
				problems = append(problems, Problem{Path: f.path, Skipped: true, Err: err})
				continue
			}
			if err := confined(dir.Confine, f.path); err != nil {
				problems = append(problems, Problem{Path: f.path, Skipped: true, Err: err})
				continue
			}
			data, err := agentdef.ReadFileBounded(f.path)
			if err != nil {
				problems = append(problems, Problem{Path: f.path, Skipped: true, Err: fmt.Errorf("%w: %w", ErrUnreadable, err)})
				continue
			}
			s, ok, ps := Parse(f.path, f.name, data)
			problems = append(problems, ps...)
			if !ok {
				continue
			}
			s.Kind, s.Source, s.Dir = dir.Kind, dir.Source, filepath.Dir(f.path)
			if dir.Namespace != "" {
				s.Name, s.Plugin, s.PluginRoot = dir.Namespace+":"+s.Name, dir.Namespace, dir.Confine
			}
			if prev, dup := dirNames[s.Name]; dup {
				problems = append(problems, Problem{Path: f.path, Skipped: true,
					Err: fmt.Errorf("%w: %q is already defined in %s", ErrDuplicate, s.Name, prev)})
				continue
			}
			dirNames[s.Name] = f.path
			if _, overridden := byName[s.Name]; overridden {
				continue
			}
			byName[s.Name] = s
			list = append(list, s)
		}
	}
	return NewCatalog(list), problems
}

type candidate struct{ path, name string }

// confined checks that path, symbolic links followed, lies inside root ("" allows all).
func confined(root, path string) error {
	if root == "" {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%w: links to %s, outside %s", ErrUnreadable, real, root)
	}
	return nil
}

// skillFiles lists <dir>/<name>/SKILL.md for each subdirectory (symlinks followed), in
// name order; a subdirectory without SKILL.md is not a skill. A plugin's dir holding
// SKILL.md itself is that one skill (its manifest may name a skill's directory).
func skillFiles(dir string, plugin bool) ([]candidate, error) {
	if p, ok := findSkillFile(dir); ok && plugin {
		return []candidate{{path: p, name: filepath.Base(dir)}}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []candidate
	for _, e := range entries {
		if p, ok := findSkillFile(filepath.Join(dir, e.Name())); ok {
			out = append(out, candidate{path: p, name: e.Name()})
		}
	}
	return out, nil
}

// findSkillFile finds SKILL.md in dir, the exact name first, else any case (skill.md,
// which a case-insensitive file system would accept too).
func findSkillFile(dir string) (string, bool) {
	regular := func(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }
	if p := filepath.Join(dir, SkillFile); regular(p) {
		return p, true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if p := filepath.Join(dir, e.Name()); strings.EqualFold(e.Name(), SkillFile) && regular(p) {
			return p, true
		}
	}
	return "", false
}

// commandFiles lists the *.md files below dir in path order, named by their path
// relative to dir with "/" written ":" (frontend/component.md is frontend:component).
// A dir that is one file is that command, named name or after the file.
func commandFiles(dir, name string) ([]candidate, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(root); err == nil && st.Mode().IsRegular() {
		if name == "" {
			name = strings.TrimSuffix(filepath.Base(dir), filepath.Ext(dir))
		}
		return []candidate{{path: dir, name: name}}, nil
	}
	var out []candidate
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable subdirectory hides only itself
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		name := strings.TrimSuffix(rel, filepath.Ext(rel))
		out = append(out, candidate{path: filepath.Join(dir, rel), name: strings.ReplaceAll(filepath.ToSlash(name), "/", ":")})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, err
}

// ErrDenied: a Read deny rule covers the file (Dir.Denied).
var ErrDenied = errors.New("skipped: a Read deny rule covers it")

// denied reports a file the session's Read deny rules cover (nil when there is no
// such filter or they do not).
func denied(isDenied func(string) bool, path string) error {
	if isDenied == nil {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = filepath.Clean(path)
	}
	if isDenied(real) {
		return ErrDenied
	}
	return nil
}
