package contextload

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Defaults.
const (
	DefaultMaxImportDepth = 4
	DefaultMaxTasks       = 3
	// MaxFileBytes bounds one context or imported file; a larger one is skipped.
	MaxFileBytes = 1 << 20
)

// Options says where to look. Only Cwd is required.
type Options struct {
	// Cwd is where the walk-up starts (the session's working directory).
	Cwd string
	// ProjectRoot holds .robota/memory and .agents/tasks; empty means Cwd.
	ProjectRoot string
	// Home is the user's home directory, for ~/.claude/CLAUDE.md and `@~/` imports;
	// empty skips both.
	Home string
	// StopAt ends the walk-up at this directory (inclusive) when it is an ancestor of
	// Cwd; empty walks to the filesystem root.
	StopAt string
	// CurrentBranch is the git branch used to select task files; empty means read it
	// from the repository's HEAD.
	CurrentBranch string
	// MaxTasks bounds the selected task files; 0 means DefaultMaxTasks.
	MaxTasks int
	// MaxImportDepth bounds @import hops; 0 means DefaultMaxImportDepth.
	MaxImportDepth int
	// ImportRoots are extra directories @imports may reach. By default an import must stay
	// inside the project root or the directory of the file that started the chain, or be
	// a Markdown file under ~/.claude or ~/.robota, so a cloned repository's CLAUDE.md
	// cannot pull arbitrary files (keys, credentials) into the prompt.
	ImportRoots []string
	// Denied reports a file (its real path) the session's Read deny rules cover: it is not
	// loaded into the prompt, discovered or imported. Nil denies nothing.
	Denied func(realPath string) bool
}

// Kind says which convention a context file follows.
type Kind string

// The context file kinds.
const (
	KindAgents      Kind = "AGENTS.md"
	KindClaude      Kind = "CLAUDE.md"
	KindClaudeDir   Kind = ".claude/CLAUDE.md"
	KindClaudeLocal Kind = "CLAUDE.local.md"
	KindUserClaude  Kind = "~/.claude/CLAUDE.md"
	KindImport      Kind = "import"
)

// File is one loaded instruction file.
type File struct {
	// Path is absolute; Display is relative to the project root, `~/`-based, or absolute.
	Path    string
	Display string
	Kind    Kind
	Content string
	// ImportedBy is the Path of the importing file; Depth counts the hops (0: discovered).
	ImportedBy string
	Depth      int
	// Family is the Kind of the discovered file a chain of imports started from.
	Family Kind
}

// Context is everything loaded for one session.
type Context struct {
	Cwd, ProjectRoot string
	// Files are the instruction files in prompt order; each discovered file is followed
	// by its imports, depth first.
	Files               []File
	Memory              Memory
	Tasks               []Task
	TaskContext         string
	CompactInstructions string
	Project             ProjectInfo
	Git                 GitInfo
	Diagnostics         []Diagnostic
}

// Load discovers and reads the project context. Unreadable or invalid files become
// Diagnostics; only unusable Options are an error.
func Load(opts Options) (*Context, error) {
	if strings.TrimSpace(opts.Cwd) == "" {
		return nil, ErrNoCwd
	}
	cwd, err := filepath.Abs(opts.Cwd)
	if err != nil {
		return nil, fmt.Errorf("contextload: cwd %q: %w", opts.Cwd, err)
	}
	root := cwd
	if opts.ProjectRoot != "" {
		if root, err = filepath.Abs(opts.ProjectRoot); err != nil {
			return nil, fmt.Errorf("contextload: project root %q: %w", opts.ProjectRoot, err)
		}
	}
	if opts.MaxTasks <= 0 {
		opts.MaxTasks = DefaultMaxTasks
	}
	if opts.MaxImportDepth <= 0 {
		opts.MaxImportDepth = DefaultMaxImportDepth
	}
	c := &Context{Cwd: cwd, ProjectRoot: root}
	r := newReader(opts, root)
	stop := walkStop(cwd, opts.StopAt)
	for _, d := range discover(cwd, stop, opts.Home) {
		r.loadDiscovered(d)
	}
	c.Files, c.Diagnostics = r.files, r.diags

	c.CompactInstructions = compactInstructionsOf(c.Files)
	check := projectFileCheck(root, opts.Home, opts.Denied)
	mem, diag := loadMemory(root, check)
	c.Memory = mem
	if diag != nil {
		c.Diagnostics = append(c.Diagnostics, *diag)
	}
	c.Git = detectGit(cwd, stop)
	branch := opts.CurrentBranch
	if branch == "" {
		branch = c.Git.Branch
	}
	found, diags := discoverTasks(root, check)
	c.Diagnostics = append(c.Diagnostics, diags...)
	c.Tasks = SelectTasks(found, branch, opts.MaxTasks)
	c.TaskContext = FormatTaskContext(c.Tasks)
	c.Project = DetectProject(root)
	return c, nil
}

// AgentsMd is the content of the AGENTS.md files and their imports, in order, joined by
// blank lines (the subagent prompt takes it separately).
func (c *Context) AgentsMd() string { return c.family(func(k Kind) bool { return k == KindAgents }) }

// ClaudeMd is the content of every CLAUDE-family file and their imports.
func (c *Context) ClaudeMd() string { return c.family(func(k Kind) bool { return k != KindAgents }) }

func (c *Context) family(match func(Kind) bool) string {
	var parts []string
	for _, f := range c.Files {
		if match(f.Family) && strings.TrimSpace(f.Content) != "" {
			parts = append(parts, strings.TrimSpace(f.Content))
		}
	}
	return strings.Join(parts, "\n\n")
}

// display names a path for the prompt: relative inside the project, `~/` inside home.
func display(path, projectRoot, home string) string {
	if rel, ok := within(path, projectRoot); ok {
		return filepath.ToSlash(rel)
	}
	if home != "" {
		if rel, ok := within(path, home); ok {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return path
}

// within reports whether path is inside dir (or is dir) and returns the relative path.
func within(path, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
