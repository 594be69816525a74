package search

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// bothGrepTools returns the Go-backed Grep and, when rg is on PATH (always in CI), the
// ripgrep-backed one, both over ws with cfg's other fields.
func bothGrepTools(t *testing.T, cfg GrepConfig) []*Grep {
	t.Helper()
	goCfg := cfg
	goCfg.NoRipgrep = true
	goTool, err := NewGrep(goCfg)
	if err != nil {
		t.Fatal(err)
	}
	tools := []*Grep{goTool}
	if p, err := exec.LookPath("rg"); err == nil {
		rgCfg := cfg
		rgCfg.RipgrepPath = p
		rgTool, err := NewGrep(rgCfg)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, rgTool)
	} else if os.Getenv("CI") != "" {
		t.Fatal("ripgrep (rg) is not on PATH in CI")
	}
	return tools
}

var treeTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func writeTree(t *testing.T, files map[string]string) (*workspace.Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		// One mtime for every file: files_with_matches lists the newest first, and files
		// written in map order would otherwise come out in a random order.
		if err := os.Chtimes(p, treeTime, treeTime); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, root
}

// Files over the size cap are skipped by both backends in a directory search (a file of
// exactly the cap is searched) and refused when named.
func TestGrepSkipsFilesOverTheSizeCap(t *testing.T) {
	const limit = 64
	line := func(n int) string { return "TODO " + strings.Repeat("x", n-6) + "\n" }
	ws, root := writeTree(t, map[string]string{
		"at_cap.txt":       line(limit),
		"over_cap.txt":     line(limit + 1),
		"sub/over_cap.txt": line(limit + 100),
		"sub/small.txt":    "TODO small\n",
	})
	cases := []struct {
		name string
		args map[string]any
		want string // in the output (or the error)
	}{
		{"files", map[string]any{"pattern": "TODO"}, "Found 2 files\n$ROOT/at_cap.txt\n$ROOT/sub/small.txt"},
		{"count", map[string]any{"pattern": "TODO", "output_mode": "count"}, "$ROOT/at_cap.txt:1\n$ROOT/sub/small.txt:1\n\nFound 2 matching lines across 2 files."},
		{"content in a subdirectory", map[string]any{"pattern": "TODO", "path": "sub", "output_mode": "content"}, "$ROOT/sub/small.txt:1:TODO small"},
		{"named file over the cap", map[string]any{"pattern": "TODO", "path": "over_cap.txt"}, "$ROOT/over_cap.txt is 65 bytes, over Grep's limit of 64 bytes."},
		{"named file at the cap", map[string]any{"pattern": "TODO", "path": "at_cap.txt"}, "Found 1 file\n$ROOT/at_cap.txt"},
	}
	var first []llm.ToolResult
	for bi, g := range bothGrepTools(t, GrepConfig{Workspace: ws, MaxFileSize: limit}) {
		for ci, c := range cases {
			res := g.Execute(context.Background(), json.RawMessage(golden.JSON(c.args)))
			text := strings.ReplaceAll(res.Output+res.Error, root, "$ROOT")
			if !strings.Contains(text, c.want) {
				t.Errorf("%s backend, %s: got\n%s\nwant it to contain\n%s", g.Backend(), c.name, text, c.want)
			}
			if bi == 0 {
				first = append(first, res)
			} else if a := first[ci]; a.Output != res.Output || a.Error != res.Error {
				t.Errorf("%s: backends differ:\n--- go\n%s%s\n--- %s\n%s%s", c.name, a.Output, a.Error, g.Backend(), res.Output, res.Error)
			}
		}
	}
}

// Several files over bigFileSize (read one at a time by the Go backend) are all searched.
func TestGrepGoBackendSearchesBigFiles(t *testing.T) {
	big := strings.Repeat("filler line\n", bigFileSize/12+1) + "TODO at the end\n"
	ws, _ := writeTree(t, map[string]string{"a.txt": big, "b.txt": big, "c/d.txt": big, "small.txt": "TODO\n"})
	g, err := NewGrep(GrepConfig{Workspace: ws, NoRipgrep: true})
	if err != nil {
		t.Fatal(err)
	}
	res := g.Execute(context.Background(), json.RawMessage(`{"pattern":"TODO at","output_mode":"count"}`))
	if !strings.Contains(res.Output, "Found 3 matching lines across 3 files.") {
		t.Errorf("output = %s%s", res.Output, res.Error)
	}
}
