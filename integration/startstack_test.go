package integration

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackGrownBeforeLibraryInits checks, on the built executables, that
// internal/startstack's init runs before every package outside the runtime and the
// standard library's internal packages: its point is to grow the main goroutine's
// stack while the stack is nearly empty, before the libraries' inits grow it deep
// inside regexp compilation (see its package doc). The order comes from the runtime's
// own trace, GODEBUG=inittrace=1, which names each package with init work as it runs.
func TestStackGrownBeforeLibraryInits(t *testing.T) {
	for _, tc := range []struct {
		binary string
		args   []string
	}{
		{"robota", []string{"--version"}},
		{"robota-engine", []string{"--version"}},
		{"robota-worker", nil}, // started by hand, a plugin says so and exits 1
		{"robota-provider", nil},
	} {
		t.Run(tc.binary, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(binDir, tc.binary), tc.args...)
			cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run() // the exit code is the binary's own business here
			var before []string
			found := false
			sc := bufio.NewScanner(&stderr)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) < 2 || f[0] != "init" {
					continue
				}
				if f[1] == "github.com/robota-sdk/robota-go/internal/startstack" {
					found = true
					break
				}
				before = append(before, f[1])
			}
			if !found {
				t.Fatalf("%s: no init of internal/startstack in the trace; stderr:\n%s", tc.binary, stderr.String())
			}
			for _, pkg := range before {
				if !runtimeOrStdInternal(pkg) {
					t.Errorf("%s: %s is initialized before internal/startstack (all before it: %v)", tc.binary, pkg, before)
				}
			}
		})
	}
}

// runtimeOrStdInternal says whether pkg is the runtime or one of the standard library's
// internal packages (a standard import path has no dot in its first element).
func runtimeOrStdInternal(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	if strings.Contains(first, ".") {
		return false
	}
	return pkg == "runtime" || strings.HasPrefix(pkg, "internal/") || strings.Contains(pkg, "/internal/")
}
