package search

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

type grepCase struct {
	name string
	args map[string]any
}

// grepCases is the backend-parity table: every case runs through both backends, whose
// results must be identical to each other and to testdata/grep.golden.
var grepCases = []grepCase{
	// files_with_matches (default), newest first
	{"literal, default mode", map[string]any{"pattern": "TODO"}},
	{"no match", map[string]any{"pattern": "does-not-occur-anywhere"}},
	{"case-insensitive", map[string]any{"pattern": "todo", "-i": true}},
	{"case-insensitive unicode folding", map[string]any{"pattern": "été", "-i": true, "output_mode": "content"}},
	{"ascii word class and boundary", map[string]any{"pattern": `\bCaf\w*\b`, "output_mode": "content"}},
	{"word boundaries", map[string]any{"pattern": `\bfoo\b`, "output_mode": "content"}},
	{"non-word boundary", map[string]any{"pattern": `\Bfoo`, "output_mode": "content"}},
	{"anchors are per line", map[string]any{"pattern": `^func \w+\(\)`, "output_mode": "content"}},
	{"end anchor with CRLF", map[string]any{"pattern": `TODO\s*$`, "output_mode": "content"}},
	{"blank lines, no phantom line at EOF", map[string]any{"pattern": `^$`, "output_mode": "count"}},
	{"empty pattern matches every line", map[string]any{"pattern": "", "path": "blank_lines.txt", "output_mode": "count"}},
	{"negated class never crosses lines", map[string]any{"pattern": `start [^}]*$`, "output_mode": "content"}},
	{"alternation and repetition", map[string]any{"pattern": `(fmt|console)\.(Println|log)\(`, "output_mode": "content"}},
	{"escaped braces", map[string]any{"pattern": `start \{ one`, "output_mode": "content"}},
	{"late NUL is searched as text", map[string]any{"pattern": "after", "output_mode": "content"}},
	{"invalid UTF-8 shown with replacement", map[string]any{"pattern": "bad", "output_mode": "content"}},
	{"long line truncated", map[string]any{"pattern": "^TODO long", "output_mode": "content"}},
	// content mode, context and line numbers
	{"content with line numbers", map[string]any{"pattern": "match", "path": "context.txt", "output_mode": "content"}},
	{"content without line numbers", map[string]any{"pattern": "match", "path": "context.txt", "output_mode": "content", "-n": false}},
	{"after context", map[string]any{"pattern": "match", "path": "context.txt", "output_mode": "content", "-A": 1}},
	{"before context", map[string]any{"pattern": "match", "path": "context.txt", "output_mode": "content", "-B": 2}},
	{"context merges overlapping windows", map[string]any{"pattern": "match", "path": "context.txt", "output_mode": "content", "-C": 2}},
	{"-A and -B override -C", map[string]any{"pattern": "l6", "path": "context.txt", "output_mode": "content", "-C": 3, "-A": 1, "-B": 0}},
	{"context across files", map[string]any{"pattern": "TODO", "path": "src", "output_mode": "content", "-C": 1}},
	{"context at the file boundaries", map[string]any{"pattern": "l1$|l13", "path": "context.txt", "output_mode": "content", "-C": 5}},
	// count mode
	{"count", map[string]any{"pattern": "TODO", "output_mode": "count"}},
	{"count lines not occurrences", map[string]any{"pattern": "foo", "path": "wordy.txt", "output_mode": "count"}},
	// multiline
	{"multiline span", map[string]any{"pattern": `start \{\n\s+inner`, "multiline": true, "output_mode": "content"}},
	{"multiline dot matches newline", map[string]any{"pattern": `start \{.*?\}`, "multiline": true, "output_mode": "content"}},
	{"multiline count", map[string]any{"pattern": `\{\n`, "multiline": true, "output_mode": "count"}},
	{"multiline files", map[string]any{"pattern": `package \w+\n\nimport`, "multiline": true}},
	{"multiline with context", map[string]any{"pattern": `inner\n\}`, "multiline": true, "output_mode": "content", "-B": 1, "-A": 1}},
	// filters
	{"glob by name", map[string]any{"pattern": "TODO", "glob": "*.go"}},
	{"glob with braces", map[string]any{"pattern": "TODO", "glob": "*.{ts,tsx}"}},
	{"glob anchored path", map[string]any{"pattern": "TODO", "glob": "src/web/*.ts"}},
	{"glob with double star", map[string]any{"pattern": "TODO", "glob": "**/util/*.go"}},
	{"negated glob", map[string]any{"pattern": "TODO", "glob": "!*.txt"}},
	{"negated directory glob", map[string]any{"pattern": "TODO", "glob": "!src/"}},
	{"glob whitelists a gitignored file", map[string]any{"pattern": "TODO", "glob": "*.log"}},
	{"type go", map[string]any{"pattern": "TODO", "type": "go"}},
	{"type ts includes newer extensions", map[string]any{"pattern": "TODO", "type": "ts"}},
	{"type make matches Makefile", map[string]any{"pattern": "TODO", "type": "make"}},
	{"glob beats type", map[string]any{"pattern": "TODO", "glob": "*.py", "type": "go"}},
	// paths
	{"subdirectory: only its own .gitignore files apply", map[string]any{"pattern": "TODO", "path": "src"}},
	{"an explicitly named ignored file is searched", map[string]any{"pattern": "TODO", "path": "debug.log", "output_mode": "content"}},
	{"an explicitly named binary file is skipped", map[string]any{"pattern": "TODO", "path": "binary.bin"}},
	{"hidden directory path", map[string]any{"pattern": "TODO", "path": ".hidden", "output_mode": "content"}},
	// head_limit
	{"head_limit on files", map[string]any{"pattern": "TODO", "head_limit": 3}},
	{"head_limit on content", map[string]any{"pattern": "match", "path": "context.txt", "output_mode": "content", "head_limit": 2}},
	{"head_limit on count", map[string]any{"pattern": "TODO", "output_mode": "count", "head_limit": 2}},
	// errors
	{"invalid regular expression", map[string]any{"pattern": "func (", "output_mode": "content"}},
	{"line break without multiline", map[string]any{"pattern": `start \{\ninner`}},
	{"invalid glob", map[string]any{"pattern": "TODO", "glob": "*.{go"}},
	{"unknown type", map[string]any{"pattern": "TODO", "type": "cobol"}},
	{"invalid output_mode", map[string]any{"pattern": "TODO", "output_mode": "lines"}},
	{"negative context", map[string]any{"pattern": "TODO", "-C": -1}},
	{"missing pattern", map[string]any{}},
	{"missing path", map[string]any{"pattern": "TODO", "path": "nope"}},
	{"path outside the workspace", map[string]any{"pattern": "root", "path": "/etc"}},
	{"dot-dot escape", map[string]any{"pattern": "TODO", "path": "../"}},
	{"symlink pointing out", map[string]any{"pattern": "TODO", "path": "out_link"}},
	{"NUL in path", map[string]any{"pattern": "TODO", "path": "src\x00"}},
	{"special file", map[string]any{"pattern": "TODO", "path": "fifo"}},
}

// grepTranscript runs every case through g and renders the results (backend name left out).
func grepTranscript(t *testing.T, g *Grep, root, outside string) (string, []llm.ToolResult) {
	t.Helper()
	tr := golden.New([]string{root, "$ROOT", outside, "$OUTSIDE"}, "backend")
	var results []llm.ToolResult
	for _, c := range grepCases {
		raw := golden.JSON(c.args)
		res := g.Execute(context.Background(), json.RawMessage(raw))
		results = append(results, res)
		tr.Add(c.name, raw, res)
	}
	return tr.String(), results
}

func grepFixture(t *testing.T) (ws *workspace.Workspace, root, outside string) {
	t.Helper()
	ws, root = newFixture(t)
	outside = t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("TODO outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out_link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, root, outside
}

// ripgrepForTest returns rg's path. Without rg the ripgrep half of the parity test cannot
// run: that is a skip on a developer machine and a failure in CI, which installs it.
func ripgrepForTest(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ripgrep (rg) is not on PATH in CI: install it (apt-get install -y ripgrep) so both Grep backends are tested")
		}
		t.Skip("ripgrep (rg) is not on PATH; only the Go backend was tested")
	}
	return p
}

// TestGrepGoBackendGolden runs the parity table through the Go backend, selected the way
// production selects it when rg is missing (PATH without rg), against the golden file.
func TestGrepGoBackendGolden(t *testing.T) {
	ws, root, outside := grepFixture(t)
	t.Setenv("PATH", t.TempDir())
	goTool, err := NewGrep(GrepConfig{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if goTool.Backend() != "go" {
		t.Fatalf("backend without rg on PATH = %q, want go", goTool.Backend())
	}
	transcript, _ := grepTranscript(t, goTool, root, outside)
	golden.Compare(t, "grep.golden", transcript)
}

// TestGrepParity runs the table through ripgrep and the Go backend on the same tree and
// requires identical results, case by case, and ripgrep to match the golden file too.
func TestGrepParity(t *testing.T) {
	rgPath := ripgrepForTest(t)
	ws, root, outside := grepFixture(t)
	goTool, err := NewGrep(GrepConfig{Workspace: ws, NoRipgrep: true})
	if err != nil {
		t.Fatal(err)
	}
	rgTool, err := NewGrep(GrepConfig{Workspace: ws, RipgrepPath: rgPath})
	if err != nil {
		t.Fatal(err)
	}
	if goTool.Backend() != "go" || rgTool.Backend() != "ripgrep" {
		t.Fatalf("backends = %q and %q", goTool.Backend(), rgTool.Backend())
	}
	_, goResults := grepTranscript(t, goTool, root, outside)
	rgTranscript, rgResults := grepTranscript(t, rgTool, root, outside)
	for i, c := range grepCases {
		a, b := goResults[i], rgResults[i]
		if a.Success != b.Success || a.Output != b.Output || a.Error != b.Error {
			t.Errorf("case %q differs:\n--- go\n%s%s\n--- ripgrep\n%s%s", c.name, a.Output, a.Error, b.Output, b.Error)
		}
	}
	golden.Compare(t, "grep.golden", rgTranscript)
}
