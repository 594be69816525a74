package contextload

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// discovered is a candidate instruction file found by the walk.
type discovered struct {
	path string
	kind Kind
}

// sep keeps the relative paths below constants, which filepath.Join would make init
// code (issue 29).
const sep = string(filepath.Separator)

// perDirectory are the files looked for in every directory of the walk, in order.
var perDirectory = []struct {
	rel  string
	kind Kind
}{
	{"AGENTS.md", KindAgents},
	{"CLAUDE.md", KindClaude},
	{".claude" + sep + "CLAUDE.md", KindClaudeDir},
	{"CLAUDE.local.md", KindClaudeLocal},
}

// walkStop returns the absolute stop directory when it is an ancestor of cwd (or cwd),
// else "" (walk to the filesystem root).
func walkStop(cwd, stopAt string) string {
	if stopAt == "" {
		return ""
	}
	abs, err := filepath.Abs(stopAt)
	if err != nil {
		return ""
	}
	if _, ok := within(cwd, abs); !ok {
		return ""
	}
	return abs
}

// discover lists the candidate files: the user's ~/.claude/CLAUDE.md, then every
// directory from the top of the walk down to cwd.
func discover(cwd, stop, home string) []discovered {
	var dirs []string
	for dir := cwd; ; {
		dirs = append(dirs, dir)
		parent := filepath.Dir(dir)
		if dir == stop || parent == dir {
			break
		}
		dir = parent
	}
	var out []discovered
	if home != "" {
		out = append(out, discovered{filepath.Join(home, ".claude", "CLAUDE.md"), KindUserClaude})
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		for _, c := range perDirectory {
			out = append(out, discovered{filepath.Join(dirs[i], c.rel), c.kind})
		}
	}
	return out
}

// reader loads files once each, expanding imports.
type reader struct {
	opts   Options
	root   string // project root
	roots  []string
	files  []File
	diags  []Diagnostic
	loaded map[string]bool // real paths already in files
}

func newReader(opts Options, root string) *reader {
	r := &reader{opts: opts, root: root, loaded: map[string]bool{}}
	r.roots = append(r.roots, realPath(root))
	for _, extra := range opts.ImportRoots {
		if abs, err := filepath.Abs(extra); err == nil {
			r.roots = append(r.roots, realPath(abs))
		}
	}
	return r
}

func (r *reader) display(path string) string { return display(path, r.root, r.opts.Home) }

func (r *reader) diag(file string, line int, err error) {
	r.diags = append(r.diags, Diagnostic{File: r.display(file), Line: line, Err: err})
}

// loadDiscovered loads a discovered file (if it exists) and its imports.
func (r *reader) loadDiscovered(d discovered) {
	real := realPath(d.path)
	if r.loaded[real] {
		return
	}
	if !isRegular(d.path) {
		return
	}
	// A context file of the project (what a cloned repository brings) stays in the
	// project: one that is a link leading out of it (to /proc/self/environ, to a
	// credentials file) is never read into the prompt. The user's own files may link
	// where they like.
	if root := realPath(r.root); inside(realPath(filepath.Dir(d.path)), root) && !inside(real, root) {
		r.diag(d.path, 0, fmt.Errorf("%w: it is a link to %s", ErrEscapes, real))
		return
	}
	if r.denied(real) {
		return
	}
	content, ok := r.read(d.path, false)
	if !ok {
		return
	}
	r.loaded[real] = true
	f := File{Path: d.path, Display: r.display(d.path), Kind: d.kind, Content: content, Family: d.kind}
	r.files = append(r.files, f)
	r.expand(f, []string{real}, realPath(filepath.Dir(d.path)))
}

// inside reports whether p is dir or below it.
func inside(p, dir string) bool {
	_, ok := within(p, dir)
	return ok || p == dir
}

// denied reports (and names) a file a Read deny rule covers: it is not loaded.
func (r *reader) denied(real string) bool {
	if r.opts.Denied == nil || !r.opts.Denied(real) {
		return false
	}
	r.diag(real, 0, ErrDenied)
	return true
}

// read returns a file's content. A missing file is silent unless reportMissing; a
// directory counts as missing.
func (r *reader) read(path string, reportMissing bool) (string, bool) {
	fh, err := os.Open(path)
	if err == nil {
		defer fh.Close()
		var st fs.FileInfo
		if st, err = fh.Stat(); err == nil && !st.Mode().IsRegular() {
			err = fs.ErrNotExist
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if reportMissing {
			r.diag(path, 0, ErrImportNotFound)
		}
		return "", false
	case err != nil:
		r.diag(path, 0, fmt.Errorf("%w: %v", ErrUnreadable, err))
		return "", false
	}
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		r.diag(path, 0, fmt.Errorf("%w: %v", ErrUnreadable, err))
		return "", false
	}
	if len(data) > MaxFileBytes {
		r.diag(path, 0, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxFileBytes))
		return "", false
	}
	return strings.TrimPrefix(string(data), "\uFEFF"), true
}

// realPath resolves symlinks so one file reached two ways is one file; a path that
// cannot be resolved is used as it is.
func realPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// projectFileCheck returns the check a file of the project root (the memory index, a
// task file) must pass before it is read into the system prompt: one whose real path
// leaves the project (a link to /proc/self/environ, to a credentials file, or through a
// linked directory) is refused with ErrEscapes naming where it leads, and one a Read
// deny rule covers (denied, given the real path) with ErrDenied. A project that is the
// home directory is the user's own: its files may link where the user likes.
func projectFileCheck(root, home string, denied func(realPath string) bool) func(path string) error {
	rroot := realPath(root)
	confine := home == "" || realPath(home) != rroot
	return func(path string) error {
		real := realPath(path)
		if confine && !inside(real, rroot) {
			return fmt.Errorf("%w: it is a link to %s", ErrEscapes, real)
		}
		if denied != nil && denied(real) {
			return ErrDenied
		}
		return nil
	}
}
