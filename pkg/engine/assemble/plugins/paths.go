package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// within resolves rel (a component path as written, "./commands/x.md") against root and
// returns it if it names an existing file or directory inside root, symbolic links
// followed: an absolute path, a ".." that climbs out or a link that points out is
// ErrEscape; a missing one is ErrNotFound. root must be absolute and resolved.
func within(root, rel string) (string, error) {
	if rel == "" {
		return "", fmt.Errorf("%w: empty path", ErrNotFound)
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "~") {
		return "", fmt.Errorf("%w: %q is not relative to the plugin root", ErrEscape, rel)
	}
	joined := filepath.Join(root, filepath.FromSlash(rel))
	if !inside(root, joined) {
		return "", fmt.Errorf("%w: %q", ErrEscape, rel)
	}
	real, err := filepath.EvalSymlinks(joined)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s", ErrNotFound, rel)
	}
	if err != nil {
		return "", err
	}
	if !inside(root, real) {
		return "", fmt.Errorf("%w: %q links to %s", ErrEscape, rel, real)
	}
	return joined, nil
}

// inside reports whether p is root or below it (both cleaned, absolute).
func inside(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// realDir resolves a root directory (symbolic links followed) and checks it is one.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: directory %s", ErrNotFound, abs)
	}
	if err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return real, nil
}
