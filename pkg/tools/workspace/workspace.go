package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinks bounds link chains the way the kernel does (ELOOP), so a link cycle is an
// error rather than a hang.
const maxSymlinks = 255

// Workspace is the set of directories the file tools may touch. It is immutable and safe for
// concurrent use.
type Workspace struct {
	cwd  string
	dirs []dir
}

type dir struct {
	path string // absolute and clean, as configured
	real string // path with every symbolic link resolved
}

// New builds a Workspace rooted at cwd plus the additional directories. Each must be an
// existing directory; relative ones are taken relative to cwd.
func New(cwd string, additional ...string) (*Workspace, error) {
	if cwd == "" {
		return nil, fmt.Errorf("%w: the working directory is empty", ErrInvalidPath)
	}
	absCwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("%w: working directory %q: %w", ErrInvalidPath, cwd, err)
	}
	w := &Workspace{cwd: absCwd}
	for _, d := range append([]string{absCwd}, additional...) {
		if strings.ContainsRune(d, 0) {
			return nil, fmt.Errorf("%w: working directory %q contains a NUL byte", ErrInvalidPath, d)
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(absCwd, d)
		}
		d = filepath.Clean(d)
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("%w: working directory %q: %w", ErrInvalidPath, d, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("%w: working directory %q: %w", ErrInvalidPath, d, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("%w: working directory %q is not a directory", ErrInvalidPath, d)
		}
		w.dirs = append(w.dirs, dir{path: d, real: real})
	}
	return w, nil
}

// Cwd is the session's working directory (absolute, as configured).
func (w *Workspace) Cwd() string { return w.cwd }

// Dirs lists the working directories, cwd first.
func (w *Workspace) Dirs() []string {
	out := make([]string, len(w.dirs))
	for i, d := range w.dirs {
		out[i] = d.path
	}
	return out
}

// Path is a resolved, confined location.
type Path struct {
	// Requested is the path as the caller gave it.
	Requested string
	// Abs is the absolute, lexically cleaned path (symbolic links not resolved): what a
	// user recognises.
	Abs string
	// Real is the location with every symbolic link resolved: what is actually touched.
	Real string
	// Root is the (real) working directory containing Real.
	Root string
}

// Rel is Real relative to Root ("." for the root itself), the name to use with OpenRoot.
func (p Path) Rel() string {
	rel, err := filepath.Rel(p.Root, p.Real)
	if err != nil {
		return "."
	}
	return rel
}

// OpenRoot opens the working directory containing p as an os.Root. Operations through it
// with p.Rel() cannot leave that directory even if the file system changes after Resolve.
func (p Path) OpenRoot() (*os.Root, error) {
	return os.OpenRoot(p.Root)
}

// Resolve confines p to the workspace. A relative p is taken relative to the cwd; a leading
// "~/" means the user's home directory. The target need not exist (Write creates files), but
// every existing component, symbolic links included, is followed and checked.
func (w *Workspace) Resolve(p string) (Path, error) {
	if p == "" {
		return Path{}, fmt.Errorf("%w: the path is empty", ErrInvalidPath)
	}
	if strings.ContainsRune(p, 0) {
		return Path{}, fmt.Errorf("%w: path %q contains a NUL byte", ErrInvalidPath, p)
	}
	abs := p
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return Path{}, fmt.Errorf("%w: path %q: cannot expand ~: %w", ErrInvalidPath, p, err)
		}
		abs = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.cwd, abs)
	}
	abs = filepath.Clean(abs)
	if !w.lexicallyInside(abs) {
		how := "is outside the workspace"
		if !filepath.IsAbs(p) && hasDotDot(p) {
			how = "escapes the workspace through .."
		}
		return Path{}, fmt.Errorf("%w: path %q %s (allowed directories: %s)", ErrOutsideWorkspace, p, how, strings.Join(w.Dirs(), ", "))
	}
	real, err := resolveLinks(abs)
	if err != nil {
		return Path{}, fmt.Errorf("%w: path %q: %w", ErrInvalidPath, p, err)
	}
	for _, d := range w.dirs {
		if within(d.real, real) {
			return Path{Requested: p, Abs: abs, Real: real, Root: d.real}, nil
		}
	}
	return Path{}, fmt.Errorf("%w: path %q resolves through a symbolic link to %q, outside the workspace (allowed directories: %s)",
		ErrOutsideWorkspace, p, real, strings.Join(w.Dirs(), ", "))
}

func (w *Workspace) lexicallyInside(abs string) bool {
	for _, d := range w.dirs {
		if within(d.path, abs) || within(d.real, abs) {
			return true
		}
	}
	return false
}

// Contains reports whether the real (symlink-free) path real lies in a working directory.
// Walkers use it to check entries they reach without going through Resolve.
func (w *Workspace) Contains(real string) bool {
	for _, d := range w.dirs {
		if within(d.real, real) {
			return true
		}
	}
	return false
}

func within(root, p string) bool {
	if root == p {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

func hasDotDot(p string) bool {
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// resolveLinks follows every symbolic link in the clean absolute path abs, component by
// component. Unlike filepath.EvalSymlinks it tolerates a missing tail (the rest is joined
// lexically: nothing missing can be a link) and it follows dangling links to their target,
// so a link to a not-yet-existing file outside the workspace is still seen as outside.
func resolveLinks(abs string) (string, error) {
	resolved := string(filepath.Separator)
	pending := splitPath(abs)
	links := 0
	for len(pending) > 0 {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, part)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return filepath.Clean(filepath.Join(append([]string{next}, pending...)...)), nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", fmt.Errorf("too many levels of symbolic links at %q", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		pending = append(splitPath(target), pending...)
	}
	return resolved, nil
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(p, string(filepath.Separator)) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
