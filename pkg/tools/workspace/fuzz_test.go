package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve checks the confinement invariant on arbitrary input: Resolve either refuses
// with one of the package's sentinel errors, or returns a path whose real location (checked
// again, independently, with filepath.EvalSymlinks on its existing prefix) is inside a
// working directory.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{
		"a/file.txt", "../outside/secret", "/etc/passwd", "out-link/secret", "dangling/x",
		"a/up/secret", "loop1", "in-link/../out-link", "a/file.txt\x00", "~/x", ".", "//a//b/",
		"to-extra/../../outside", "a/./../in-link/up", "",
	} {
		f.Add(seed)
	}
	w, base := fixture(f)
	outside := filepath.Join(base, "outside")
	f.Fuzz(func(t *testing.T, p string) {
		got, err := w.Resolve(p)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) && !errors.Is(err, ErrOutsideWorkspace) {
				t.Fatalf("Resolve(%q) error %v wraps no sentinel", p, err)
			}
			return
		}
		if strings.ContainsRune(p, 0) {
			t.Fatalf("Resolve(%q) accepted a NUL byte", p)
		}
		if !w.Contains(got.Real) {
			t.Fatalf("Resolve(%q).Real = %q is outside the workspace", p, got.Real)
		}
		if within(outside, got.Real) {
			t.Fatalf("Resolve(%q).Real = %q is in the outside directory", p, got.Real)
		}
		if real := evalExistingPrefix(got.Abs); !w.Contains(real) {
			t.Fatalf("Resolve(%q) accepted %q, but its existing prefix really is %q", p, got.Abs, real)
		}
	})
}

// evalExistingPrefix resolves the longest existing prefix of p with the standard library
// and joins the rest, an independent oracle for resolveLinks (dangling links aside).
func evalExistingPrefix(p string) string {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
