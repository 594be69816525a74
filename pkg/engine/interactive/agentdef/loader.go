package agentdef

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MaxFileSize bounds what is read of one agent file; a larger file is skipped.
const MaxFileSize = 1 << 20

// Dir is one directory scanned for agent files.
type Dir struct {
	// Path is a directory, or one agent file (a plugin manifest may name files).
	Path   string
	Source Source
	// Namespace qualifies every name found here as "<Namespace>:<subdirs>:<name>" (a
	// plugin's name, as Claude Code names plugin agents); a definition without a
	// description gets "Agent from <Namespace> plugin", and permissionMode is ignored
	// (Claude Code does not let a plugin's agent choose its own permissions).
	Namespace string
	// Confine, when set, skips (with a Problem) every file whose real path, symbolic
	// links followed, lies outside it: a plugin's files stay inside the plugin.
	Confine string
	// Denied, when set, reports a file (its real path) a Read deny rule covers: it is
	// skipped with a Problem, never read into a prompt.
	Denied func(realPath string) bool
}

// Dirs returns the scan directories, highest priority first (agent-sdk,
// AgentDefinitionLoader): the project's .robota/agents, .agents/agents and
// .claude/agents under cwd, then the user's ~/.robota/agents and ~/.claude/agents.
// An empty cwd or home leaves its directories out.
func Dirs(cwd, home string) []Dir {
	var out []Dir
	if cwd != "" {
		confine := realDir(cwd)
		if home != "" && realDir(home) == confine {
			confine = "" // started in the home directory: these are the user's own
		}
		for _, d := range []string{".robota", ".agents", ".claude"} {
			// A repository's agent file that links out of it is skipped (see skills.Dirs).
			out = append(out, Dir{Path: filepath.Join(cwd, d, "agents"), Source: SourceProject, Confine: confine})
		}
	}
	if home != "" {
		for _, d := range []string{".robota", ".claude"} {
			out = append(out, Dir{Path: filepath.Join(home, d, "agents"), Source: SourceUser})
		}
	}
	return out
}

// Catalog is the set of agent types a session offers, by name.
type Catalog struct {
	defs []Definition // sorted by name
}

// NewCatalog builds a catalog from definitions already merged (first of a name wins).
func NewCatalog(defs []Definition) *Catalog {
	c := &Catalog{}
	seen := map[string]bool{}
	for _, d := range defs {
		if !seen[d.Name] {
			seen[d.Name] = true
			c.defs = append(c.defs, d)
		}
	}
	sort.SliceStable(c.defs, func(i, j int) bool { return c.defs[i].Name < c.defs[j].Name })
	return c
}

// List returns every definition, sorted by name.
func (c *Catalog) List() []Definition { return append([]Definition(nil), c.defs...) }

// Names returns the agent type names, sorted.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.defs))
	for i, d := range c.defs {
		out[i] = d.Name
	}
	return out
}

// Lookup finds a definition by its exact name, else by a unique case-insensitive match
// (a model writing "explore" still gets Explore).
func (c *Catalog) Lookup(name string) (Definition, bool) {
	var folded []Definition
	for _, d := range c.defs {
		if d.Name == name {
			return d, true
		}
		if strings.EqualFold(d.Name, name) {
			folded = append(folded, d)
		}
	}
	if len(folded) == 1 {
		return folded[0], true
	}
	return Definition{}, false
}

// Load reads the agent files of dirs (highest priority first) and merges them with the
// built-ins. Of definitions with the same name the one from the earlier directory wins,
// and any file definition replaces a built-in of its name; within one directory the
// first file in path order wins and the later one is reported. Every *.md file below a
// directory is read (subdirectories too; a directory given as a symlink is followed, links
// inside it to directories are not). Problems name the file: skipped files (no
// frontmatter, malformed YAML, no description, bad name, unreadable, too large) and
// ignored fields. A missing directory is not a problem.
func Load(dirs []Dir) (*Catalog, []Problem) {
	var (
		defs     []Definition
		problems []Problem
		byName   = map[string]Definition{}
		seenDirs = map[string]bool{}
	)
	for _, dir := range dirs {
		root, err := filepath.EvalSymlinks(dir.Path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, Problem{Path: dir.Path, Skipped: true, Err: err})
			}
			continue
		}
		if seenDirs[root] {
			continue // cwd is home: the project directories are the user's
		}
		seenDirs[root] = true
		files, err := agentFiles(dir.Path)
		if err != nil {
			problems = append(problems, Problem{Path: dir.Path, Skipped: true, Err: err})
		}
		for _, path := range files {
			if err := denied(dir.Denied, path); err != nil {
				problems = append(problems, Problem{Path: path, Skipped: true, Err: err})
				continue
			}
			if err := confined(dir.Confine, path); err != nil {
				problems = append(problems, Problem{Path: path, Skipped: true, Err: err})
				continue
			}
			data, err := ReadFileBounded(path)
			if err != nil {
				problems = append(problems, Problem{Path: path, Skipped: true, Err: err})
				continue
			}
			var def Definition
			var ok bool
			var ps []Problem
			if dir.Namespace == "" {
				def, ok, ps = Parse(path, data)
			} else {
				def, ok, ps = parse(path, data, "Agent from "+dir.Namespace+" plugin")
			}
			problems = append(problems, ps...)
			if !ok {
				continue
			}
			def.Source = dir.Source
			if dir.Namespace != "" {
				def.Name = qualify(dir.Namespace, dir.Path, path, def.Name)
				def.PermissionMode = ""
			}
			if prev, dup := byName[def.Name]; dup {
				if sameDir(prev.Path, path, dir.Path) {
					problems = append(problems, Problem{Path: path, Skipped: true,
						Err: fmt.Errorf("agent %q is already defined in %s", def.Name, prev.Path)})
				}
				continue
			}
			byName[def.Name] = def
			defs = append(defs, def)
		}
	}
	for _, b := range Builtins() {
		if _, overridden := byName[b.Name]; !overridden {
			defs = append(defs, b)
		}
	}
	return NewCatalog(defs), problems
}

// confined checks that path, symbolic links followed, lies inside root ("" allows all).
func confined(root, path string) error {
	if root == "" {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("links to %s, outside %s", real, root)
	}
	return nil
}

// qualify names a plugin's agent: namespace, the subdirectories of the file below root,
// then name, joined with ":".
func qualify(namespace, root, path, name string) string {
	parts := []string{namespace}
	if rel, err := filepath.Rel(root, filepath.Dir(path)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		parts = append(parts, strings.Split(filepath.ToSlash(rel), "/")...)
	}
	return strings.Join(append(parts, name), ":")
}

// sameDir reports whether a and b both lie below root (the same scan directory).
func sameDir(a, b, root string) bool {
	in := func(p string) bool { r, err := filepath.Rel(root, p); return err == nil && !strings.HasPrefix(r, "..") }
	return in(a) && in(b)
}

// agentFiles lists the *.md files below dir in path order.
func agentFiles(dir string) ([]string, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(root); err == nil && st.Mode().IsRegular() {
		return []string{dir}, nil
	}
	var out []string
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
		out = append(out, filepath.Join(dir, rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}

// ReadFileBounded reads a definition-like file (an agent, skill, command or plugin
// manifest) of at most MaxFileSize bytes: such files come from other people's
// repositories, so a huge one is a problem to report, not memory to spend.
func ReadFileBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileSize)
	}
	return data, nil
}

// realDir is dir with symbolic links resolved (dir itself when it cannot be).
func realDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
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
