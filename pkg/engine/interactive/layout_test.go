package interactive

import (
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/robota-sdk/robota-go/"

// The rooms of the engine keep their doors (README, Developing: Layout): the session core
// climbs to no concrete tool, provider, sandbox, MCP client, plugin loader or the
// composition root, even through another package; the front ends speak the core's words
// (no pkg/engine/session), pkg/tui and pkg/engine/server do not construct sessions (no
// assemble), and a session's background work does not reach back into its composition root.
func TestLayout(t *testing.T) {
	root := moduleRoot(t)
	for _, tc := range []struct {
		pkg        string
		transitive bool // the package's whole import graph, not only its own imports
		forbidden  []string
	}{
		{"pkg/engine/interactive", true, []string{"pkg/tools", "pkg/providers", "pkg/sandbox", "pkg/engine/assemble",
			"pkg/cli", "pkg/tui", "pkg/engine/server", "pkg/engine/manager"}},
		// The background work is wired by the composition root, never the other way.
		{"pkg/engine/assemble/background", false, []string{"pkg/engine/assemble", "pkg/providers", "pkg/sandbox"}},
		{"pkg/cli", false, []string{"pkg/engine/session"}},
		{"pkg/tui", false, []string{"pkg/engine/session", "pkg/engine/assemble"}},
		{"pkg/engine/server", false, []string{"pkg/engine/session", "pkg/engine/assemble"}},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			seen := map[string][]string{} // package -> the import path that reached it
			queue := []string{tc.pkg}
			seen[tc.pkg] = nil
			for len(queue) > 0 {
				p := queue[0]
				queue = queue[1:]
				for _, imp := range localImports(t, root, p) {
					for _, f := range tc.forbidden {
						if imp == f || strings.HasPrefix(imp, f+"/") {
							t.Errorf("%s imports %s (via %s)", tc.pkg, imp, strings.Join(append(seen[p], p), " -> "))
						}
					}
					if _, ok := seen[imp]; !ok && tc.transitive {
						seen[imp] = append(slices.Clone(seen[p]), p)
						queue = append(queue, imp)
					}
				}
			}
		})
	}
}

// moduleRoot is the directory of go.mod above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// localImports are the module's packages pkg's non-test files import (for this
// platform's build constraints), as paths relative to the module.
func localImports(t *testing.T, root, pkg string) []string {
	t.Helper()
	dir := filepath.Join(root, filepath.FromSlash(pkg))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			if rel, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
	}
	return out
}
