package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// excludedRel are the fixture entries the test filter excludes: two files and two
// directories (one of them a parent of deeper directories).
var excludedRel = []string{".env", "config.json", "src/util", "deep/a"}

// recordingExclude excludes excludedRel and everything below them (gitignore semantics, as
// permission path rules have), and remembers every path it was asked about.
type recordingExclude struct {
	root  string
	mu    sync.Mutex
	asked []string
}

func (x *recordingExclude) exclude(abs string) bool {
	x.mu.Lock()
	x.asked = append(x.asked, abs)
	x.mu.Unlock()
	return prefixExclude(x.root, excludedRel...)(abs)
}

// askedBelowExcludedDirs lists the paths the filter was asked about inside an excluded
// directory: a walk that prunes excluded directories asks about none.
func (x *recordingExclude) askedBelowExcludedDirs() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for _, a := range x.asked {
		for _, rel := range []string{"src/util", "deep/a"} {
			if strings.HasPrefix(a, filepath.Join(x.root, rel)+"/") {
				out = append(out, a)
			}
		}
	}
	return out
}

// strippedFixture is the fixture with the excluded entries deleted: what a search with the
// filter must return is exactly what a search without it returns here.
func strippedFixture(t *testing.T) (*workspace.Workspace, string) {
	t.Helper()
	ws, root := newFixture(t)
	for _, rel := range excludedRel {
		if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	return ws, root
}

// excludeGrepCases each reach an excluded file, so the filter changes every answer (the
// test checks that it does).
var excludeGrepCases = []grepCase{
	{"files_with_matches", map[string]any{"pattern": "TODO"}},
	{"a pattern found only in an excluded file", map[string]any{"pattern": "hidden file"}},
	{"content", map[string]any{"pattern": "TODO", "output_mode": "content"}},
	{"content with context", map[string]any{"pattern": "todo", "-i": true, "output_mode": "content", "-C": 1}},
	{"count", map[string]any{"pattern": "TODO", "output_mode": "count"}},
	{"multiline count", map[string]any{"pattern": `\{\n`, "multiline": true, "output_mode": "count"}},
	{"multiline content", map[string]any{"pattern": `"todo": "TODO json",\n`, "multiline": true, "output_mode": "content"}},
	{"a glob naming an excluded file", map[string]any{"pattern": "TODO", "glob": ".env", "output_mode": "content"}},
	{"below a subdirectory", map[string]any{"pattern": "Caf", "path": "src", "output_mode": "content"}},
	{"type", map[string]any{"pattern": "TODO", "type": "go", "output_mode": "count"}},
}

func runGrep(t *testing.T, g *Grep, root string, args map[string]any) llm.ToolResult {
	t.Helper()
	res := g.Execute(context.Background(), json.RawMessage(golden.JSON(args)))
	res.Output = strings.ReplaceAll(res.Output, root, "$ROOT")
	res.Error = strings.ReplaceAll(res.Error, root, "$ROOT")
	return res
}

// grepBackends are the two backends' configurations; ripgrep's is skipped (or, in CI,
// fails) without rg.
func grepBackends(t *testing.T) map[string]func(t *testing.T) GrepConfig {
	return map[string]func(t *testing.T) GrepConfig{
		"go":      func(*testing.T) GrepConfig { return GrepConfig{NoRipgrep: true} },
		"ripgrep": func(t *testing.T) GrepConfig { return GrepConfig{RipgrepPath: ripgrepForTest(t)} },
	}
}

// TestGrepExcludeBothBackends runs each case through a backend with the filter on the full
// fixture and without it on the fixture minus the excluded entries: the answers must be
// identical (paths, lines, counts, totals and metadata), for each backend.
func TestGrepExcludeBothBackends(t *testing.T) {
	for name, config := range grepBackends(t) {
		t.Run(name, func(t *testing.T) {
			cfg := config(t)
			fullWS, full := newFixture(t)
			strippedWS, stripped := strippedFixture(t)
			x := &recordingExclude{root: full}
			filtered, plain, reference := cfg, cfg, cfg
			filtered.Workspace, filtered.Exclude = fullWS, x.exclude
			plain.Workspace = fullWS
			reference.Workspace = strippedWS
			tools := map[string]*Grep{}
			for label, c := range map[string]GrepConfig{"filtered": filtered, "plain": plain, "reference": reference} {
				g, err := NewGrep(c)
				if err != nil {
					t.Fatal(err)
				}
				if g.Backend() != name {
					t.Fatalf("%s tool backend = %s, want %s", label, g.Backend(), name)
				}
				tools[label] = g
			}
			for _, c := range excludeGrepCases {
				got := runGrep(t, tools["filtered"], full, c.args)
				want := runGrep(t, tools["reference"], stripped, c.args)
				unfiltered := runGrep(t, tools["plain"], full, c.args)
				if got.Success != want.Success || got.Output != want.Output || got.Error != want.Error {
					t.Errorf("case %q: with the filter\n%s%s\nwant, as if the excluded files did not exist,\n%s%s", c.name, got.Output, got.Error, want.Output, want.Error)
				}
				for _, k := range []string{"numFiles", "numMatchingLines"} {
					if got.Metadata[k] != want.Metadata[k] {
						t.Errorf("case %q: %s = %v, want %v", c.name, k, got.Metadata[k], want.Metadata[k])
					}
				}
				if unfiltered.Output == want.Output {
					t.Errorf("case %q reaches no excluded file: it tests nothing", c.name)
				}
				for _, secret := range []string{"TODO=hidden file", "TODO json", "unicode", "TODO deep", "$ROOT/.env", "$ROOT/config.json", "$ROOT/src/util/", "$ROOT/deep/a/"} {
					if strings.Contains(got.Output, secret) {
						t.Errorf("case %q: output holds %q from an excluded file:\n%s", c.name, secret, got.Output)
					}
				}
			}
			if asked := x.askedBelowExcludedDirs(); len(asked) > 0 {
				t.Errorf("the search went into excluded directories, asking about %v", asked)
			}
		})
	}
}

// TestGrepExcludeNamedPath: a call naming an excluded file, or a directory inside an
// excluded one, finds nothing, in either backend.
func TestGrepExcludeNamedPath(t *testing.T) {
	for name, config := range grepBackends(t) {
		t.Run(name, func(t *testing.T) {
			cfg := config(t)
			ws, root := newFixture(t)
			x := &recordingExclude{root: root}
			cfg.Workspace, cfg.Exclude = ws, x.exclude
			g, err := NewGrep(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, args := range []map[string]any{
				{"pattern": "TODO", "path": ".env", "output_mode": "content"},
				{"pattern": "TODO", "path": "src/util/strings.go", "output_mode": "content"},
				{"pattern": "TODO", "path": "deep/a/b", "output_mode": "content"},
				{"pattern": "TODO", "path": "deep/a/b", "output_mode": "count"},
			} {
				res := runGrep(t, g, root, args)
				if !res.Success || res.Output != "No matches found" {
					t.Errorf("%v = %q %q, want no matches", args, res.Output, res.Error)
				}
			}
			res := runGrep(t, g, root, map[string]any{"pattern": "TODO", "path": ".env"})
			if !res.Success || res.Output != "No files found" {
				t.Errorf("files_with_matches on an excluded file = %q %q", res.Output, res.Error)
			}
		})
	}
}

// TestResultFilterPrunesLikeTheWalker checks ripgrep's post-filter on its own: a file below
// an excluded directory is dropped without asking about the file, paths outside the root
// are dropped, and each directory is asked about once.
func TestResultFilterPrunesLikeTheWalker(t *testing.T) {
	root := "/r"
	calls := map[string]int{}
	f := newResultFilter(root, func(p string) bool {
		calls[p]++
		return p == "/r/a/secret" || p == "/r/x.env"
	})
	for _, c := range []struct {
		path string
		keep bool
	}{
		{"/r/a/ok.txt", true},
		{"/r/a/secret/k.txt", false},
		{"/r/a/secret/deeper/k.txt", false},
		{"/r/x.env", false},
		{"/r/y.txt", true},
		{"/rx/y.txt", false},
		{"/other/y.txt", false},
	} {
		if got := f.keep(c.path); got != c.keep {
			t.Errorf("keep(%s) = %v, want %v", c.path, got, c.keep)
		}
	}
	if calls["/r/a"] != 1 || calls["/r/a/secret"] != 1 {
		t.Errorf("directory answers not remembered: %v", calls)
	}
	for p := range calls {
		if strings.HasPrefix(p, "/r/a/secret/") {
			t.Errorf("asked about %s below an excluded directory", p)
		}
	}
	if !newResultFilter(root, nil).keep("/anything") {
		t.Error("a nil filter dropped a result")
	}
}

// TestGlobExclude: Glob with the filter lists what Glob without it lists on the fixture
// minus the excluded entries, and never enters an excluded directory.
func TestGlobExclude(t *testing.T) {
	fullWS, full := newFixture(t)
	strippedWS, stripped := strippedFixture(t)
	x := &recordingExclude{root: full}
	filtered, err := NewGlob(GlobConfig{Workspace: fullWS, Exclude: x.exclude})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := NewGlob(GlobConfig{Workspace: fullWS})
	reference, _ := NewGlob(GlobConfig{Workspace: strippedWS})
	run := func(g *Glob, root string, args map[string]any) llm.ToolResult {
		res := g.Execute(context.Background(), json.RawMessage(golden.JSON(args)))
		res.Output = strings.ReplaceAll(res.Output, root, "$ROOT")
		return res
	}
	for _, args := range []map[string]any{
		{"pattern": "**/*"},
		{"pattern": "**/*.go"},
		{"pattern": ".*"},
		{"pattern": "*.json"},
		{"pattern": "deep/**"},
		{"pattern": "**/e.txt", "path": "deep"},
	} {
		got, want, unfiltered := run(filtered, full, args), run(reference, stripped, args), run(plain, full, args)
		if got.Success != want.Success || got.Output != want.Output || got.Metadata["numFiles"] != want.Metadata["numFiles"] {
			t.Errorf("%v with the filter:\n%s\nwant\n%s", args, got.Output, want.Output)
		}
		if unfiltered.Output == want.Output {
			t.Errorf("%v lists no excluded file: it tests nothing", args)
		}
	}
	// A pattern whose static prefix runs through an excluded directory, and a path inside one.
	for _, args := range []map[string]any{
		{"pattern": "src/util/*.go"},
		{"pattern": "b/**", "path": "deep/a"},
		{"pattern": "*", "path": "src/util"},
	} {
		if res := run(filtered, full, args); !res.Success || res.Output != "No files found" {
			t.Errorf("%v = %q %q, want no files", args, res.Output, res.Error)
		}
		if res := run(plain, full, args); res.Output == "No files found" {
			t.Errorf("%v finds nothing even without the filter: it tests nothing", args)
		}
	}
	if asked := x.askedBelowExcludedDirs(); len(asked) > 0 {
		t.Errorf("Glob went into excluded directories, asking about %v", asked)
	}
}

// ripgrep's output parsers drop excluded files before keeping any of their lines.
func TestParseJSONDropsExcludedFiles(t *testing.T) {
	stream := strings.Join([]string{
		`{"type":"begin","data":{"path":{"text":"./secret.env"}}}`,
		`{"type":"match","data":{"path":{"text":"./secret.env"},"lines":{"text":"KEY=hunter2\n"},"line_number":1}}`,
		`{"type":"end","data":{"path":{"text":"./secret.env"}}}`,
		`{"type":"begin","data":{"path":{"text":"./ok.txt"}}}`,
		`{"type":"match","data":{"path":{"text":"./ok.txt"},"lines":{"text":"KEY=placeholder\n"},"line_number":3}}`,
		`{"type":"end","data":{"path":{"text":"./ok.txt"}}}`,
	}, "\n")
	abs := func(p string) string { return filepath.Join("/r", strings.TrimPrefix(p, "./")) }
	keep := func(p string) bool { return p != "/r/secret.env" }
	got, err := parseJSON(strings.NewReader(stream), abs, keep, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].path != "/r/ok.txt" || got[0].count != 1 || len(got[0].lines) != 1 || got[0].lines[0].text != "KEY=placeholder" {
		t.Fatalf("parsed %+v, want only ok.txt's line", got)
	}
	list, _ := parseNullList(strings.NewReader("./secret.env\x00./ok.txt\x00"), abs, keep)
	counts, _ := parseNullCounts(strings.NewReader("./secret.env\x002\n./ok.txt\x001\n"), abs, keep)
	if len(list) != 1 || list[0].path != "/r/ok.txt" || len(counts) != 1 || counts[0].path != "/r/ok.txt" || counts[0].count != 1 {
		t.Fatalf("list %+v, counts %+v, want only ok.txt", list, counts)
	}
}
