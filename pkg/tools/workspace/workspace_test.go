package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture builds:
//
//	base/ws/            cwd
//	base/ws/a/file.txt
//	base/ws/in-link     -> a (relative, inside)
//	base/ws/out-link    -> base/outside (absolute, outside)
//	base/ws/dangling    -> base/outside/missing (dangling, outside)
//	base/ws/loop1 <-> loop2
//	base/extra/         additional directory
//	base/ws/to-extra    -> base/extra
//	base/outside/secret
func fixture(t testing.TB) (w *Workspace, base string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	for _, d := range []string{"ws/a", "extra", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"ws/a/file.txt": "hi", "outside/secret": "s", "extra/e.txt": "e"} {
		if err := os.WriteFile(filepath.Join(base, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/in-link":  "a",
		"ws/out-link": filepath.Join(base, "outside"),
		"ws/dangling": filepath.Join(base, "outside", "missing"),
		"ws/loop1":    "loop2",
		"ws/loop2":    "loop1",
		"ws/to-extra": filepath.Join(base, "extra"),
		"ws/a/up":     "../../outside",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	w, err = New(ws, filepath.Join(base, "extra"))
	if err != nil {
		t.Fatal(err)
	}
	return w, base
}

func TestResolveAccepts(t *testing.T) {
	w, base := fixture(t)
	ws := filepath.Join(base, "ws")
	tests := []struct {
		name, path, wantReal string
	}{
		{"absolute inside", filepath.Join(ws, "a/file.txt"), filepath.Join(ws, "a/file.txt")},
		{"relative to cwd", "a/file.txt", filepath.Join(ws, "a/file.txt")},
		{"dot-dot that stays inside", "a/../a/file.txt", filepath.Join(ws, "a/file.txt")},
		{"the cwd itself", ".", ws},
		{"missing file (Write creates it)", "a/new/deeper.txt", filepath.Join(ws, "a/new/deeper.txt")},
		{"symlink inside", "in-link/file.txt", filepath.Join(ws, "a/file.txt")},
		{"additional directory", filepath.Join(base, "extra", "e.txt"), filepath.Join(base, "extra", "e.txt")},
		{"symlink into another working directory", "to-extra/e.txt", filepath.Join(base, "extra", "e.txt")},
		{"below a regular file", "a/file.txt/x", filepath.Join(ws, "a/file.txt/x")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := w.Resolve(tc.path)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.path, err)
			}
			if p.Real != tc.wantReal {
				t.Fatalf("Real = %q, want %q", p.Real, tc.wantReal)
			}
			if !w.Contains(p.Real) || !strings.HasPrefix(p.Real, p.Root) {
				t.Fatalf("Real %q not under Root %q", p.Real, p.Root)
			}
		})
	}
}

func TestResolveRefusesEscapes(t *testing.T) {
	w, base := fixture(t)
	tests := []struct {
		name, path string
		want       error
		wantText   string
	}{
		{"empty", "", ErrInvalidPath, "the path is empty"},
		{"NUL byte", "a/file.txt\x00.png", ErrInvalidPath, "contains a NUL byte"},
		{"dot-dot out of cwd", "../outside/secret", ErrOutsideWorkspace, "escapes the workspace through .."},
		{"deep dot-dot", "a/../../../etc/passwd", ErrOutsideWorkspace, "escapes the workspace through .."},
		{"absolute outside", filepath.Join(base, "outside", "secret"), ErrOutsideWorkspace, "is outside the workspace"},
		{"absolute system file", "/etc/passwd", ErrOutsideWorkspace, "is outside the workspace"},
		{"symlink pointing out", "out-link/secret", ErrOutsideWorkspace, "resolves through a symbolic link"},
		{"symlink itself pointing out", "out-link", ErrOutsideWorkspace, "resolves through a symbolic link"},
		{"dangling symlink pointing out", "dangling", ErrOutsideWorkspace, "resolves through a symbolic link"},
		{"below a dangling symlink", "dangling/x/y", ErrOutsideWorkspace, "resolves through a symbolic link"},
		{"relative symlink climbing out", "a/up/secret", ErrOutsideWorkspace, "resolves through a symbolic link"},
		{"symlink loop", "loop1", ErrInvalidPath, "too many levels of symbolic links"},
		{"prefix trick", filepath.Join(base, "ws-evil"), ErrOutsideWorkspace, "is outside the workspace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := w.Resolve(tc.path)
			if err == nil {
				t.Fatalf("Resolve(%q) = %+v, want error", tc.path, p)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v is not %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("error %q does not say %q", err, tc.wantText)
			}
		})
	}
}

func TestOpenRootConfinesLaterSwaps(t *testing.T) {
	w, base := fixture(t)
	p, err := w.Resolve("a/file.txt")
	if err != nil {
		t.Fatal(err)
	}
	// After the check, the file is replaced by a link to a secret outside.
	if err := os.Remove(p.Real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside", "secret"), p.Real); err != nil {
		t.Fatal(err)
	}
	root, err := p.OpenRoot()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if data, err := root.ReadFile(p.Rel()); err == nil {
		t.Fatalf("read through a swapped-in link succeeded: %q", data)
	}
}

func TestNewValidatesDirectories(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		cwd   string
		extra []string
	}{
		{"empty cwd", "", nil},
		{"missing cwd", filepath.Join(dir, "nope"), nil},
		{"cwd is a file", file, nil},
		{"missing additional", dir, []string{"nope"}},
		{"NUL in additional", dir, []string{"a\x00b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.cwd, tc.extra...); !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("New(%q, %q) error = %v, want ErrInvalidPath", tc.cwd, tc.extra, err)
			}
		})
	}
}
