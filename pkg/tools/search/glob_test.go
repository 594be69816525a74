package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

func TestGlobGolden(t *testing.T) {
	ws, root, outside := grepFixture(t)
	g, err := NewGlob(GlobConfig{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	tr := golden.New([]string{root, "$ROOT", outside, "$OUTSIDE"})
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"all go files, gitignore respected, links not followed", map[string]any{"pattern": "**/*.go"}},
		{"top level only", map[string]any{"pattern": "*.txt"}},
		{"static prefix and braces", map[string]any{"pattern": "src/**/*.{ts,tsx}"}},
		{"gitignored files are not listed", map[string]any{"pattern": "**/*.log"}},
		{"inside a gitignored directory", map[string]any{"pattern": "build/**"}},
		{"nested .gitignore negation", map[string]any{"pattern": "src/*.tmp"}},
		{"hidden files are listed", map[string]any{"pattern": ".*"}},
		{"VCS directories are not", map[string]any{"pattern": ".git/*"}},
		{"relative to path", map[string]any{"pattern": "**/*.go", "path": "src"}},
		{"absolute pattern", map[string]any{"pattern": filepath.Join(root, "src", "util", "*.go")}},
		{"no match", map[string]any{"pattern": "**/*.rs"}},
		{"invalid pattern", map[string]any{"pattern": "src/[a-"}},
		{"dot-dot in the pattern", map[string]any{"pattern": "../*"}},
		{"dot-dot inside the pattern", map[string]any{"pattern": "src/../../*"}},
		{"path is a file", map[string]any{"pattern": "*", "path": "Makefile"}},
		{"missing path", map[string]any{"pattern": "*", "path": "nope"}},
		{"path outside the workspace", map[string]any{"pattern": "*", "path": "/etc"}},
		{"absolute pattern outside", map[string]any{"pattern": "/etc/*.conf"}},
		{"dot-dot escape", map[string]any{"pattern": "*", "path": "../.."}},
		{"symlink pointing out", map[string]any{"pattern": "*", "path": "out_link"}},
		{"NUL in path", map[string]any{"pattern": "*", "path": "a\x00"}},
		{"missing pattern", map[string]any{"path": "src"}},
	} {
		raw := golden.JSON(c.args)
		tr.Add(c.name, raw, g.Execute(context.Background(), json.RawMessage(raw)))
	}
	tr.Check(t, "glob.golden")
}

func TestGlobNewestFirstAndCap(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	const n = MaxGlobResults + 5
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%04d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	ws, _ := workspace.New(dir)
	g, _ := NewGlob(GlobConfig{Workspace: ws})
	res := g.Execute(context.Background(), json.RawMessage(`{"pattern":"**/*.txt"}`))
	if !res.Success {
		t.Fatal(res.Error)
	}
	lines := strings.Split(res.Output, "\n")
	if len(lines) != MaxGlobResults+1 {
		t.Fatalf("got %d lines, want %d results and a note", len(lines), MaxGlobResults)
	}
	for i := 0; i < MaxGlobResults; i++ {
		want := fmt.Sprintf("f%04d.txt", n-1-i)
		if filepath.Base(lines[i]) != want {
			t.Fatalf("line %d = %s, want %s (newest first)", i, lines[i], want)
		}
	}
	wantNote := fmt.Sprintf("(Results are truncated: showing the %d most recently modified of %d files. Use a more specific path or pattern.)", MaxGlobResults, n)
	if lines[MaxGlobResults] != wantNote {
		t.Fatalf("note = %q", lines[MaxGlobResults])
	}
	if res.Metadata["truncated"] != true || res.Metadata["numFiles"] != n {
		t.Fatalf("metadata = %v", res.Metadata)
	}
}

func TestDescribeSearchTools(t *testing.T) {
	ws, root := newFixture(t)
	gl, _ := NewGlob(GlobConfig{Workspace: ws})
	gr, _ := NewGrep(GrepConfig{Workspace: ws, NoRipgrep: true})
	if got := gl.Describe(json.RawMessage(`{"pattern":"**/*.go"}`)); got.FirstArg != "**/*.go" || len(got.Reads) != 1 || got.Reads[0] != root {
		t.Fatalf("Glob record = %+v", got)
	}
	if got := gr.Describe(json.RawMessage(`{"pattern":"TODO","path":"src"}`)); got.FirstArg != "TODO" || len(got.Reads) != 1 || got.Reads[0] != filepath.Join(root, "src") {
		t.Fatalf("Grep record = %+v", got)
	}
	if got := gr.Describe(json.RawMessage(`{"pattern":"x","path":"/etc"}`)); got.Reads != nil {
		t.Fatalf("record of a refused path lists reads: %+v", got)
	}
}
