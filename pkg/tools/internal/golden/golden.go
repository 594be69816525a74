package golden

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Transcript accumulates rendered tool results for one golden file.
type Transcript struct {
	b        strings.Builder
	replacer *strings.Replacer
	drop     map[string]bool
}

// New returns a transcript that rewrites each old→new pair (temp dirs, server URLs) in
// everything it records and leaves out the named metadata keys (durations and the like).
func New(replacements []string, dropMetadata ...string) *Transcript {
	t := &Transcript{replacer: strings.NewReplacer(replacements...), drop: map[string]bool{}}
	for _, k := range dropMetadata {
		t.drop[k] = true
	}
	return t
}

// Add records one call.
func (t *Transcript) Add(name, args string, res llm.ToolResult) {
	fmt.Fprintf(&t.b, "=== %s\nargs: %s\nsuccess: %v\n", name, args, res.Success)
	if res.Output != "" {
		fmt.Fprintf(&t.b, "--- output\n%s\n", strings.TrimRight(res.Output, "\n"))
	}
	if res.Error != "" {
		fmt.Fprintf(&t.b, "--- error\n%s\n", strings.TrimRight(res.Error, "\n"))
	}
	meta := map[string]any{}
	for k, v := range res.Metadata {
		if !t.drop[k] {
			meta[k] = v
		}
	}
	if len(meta) > 0 {
		fmt.Fprintf(&t.b, "--- metadata\n%s\n", JSON(meta))
	}
	t.b.WriteString("\n")
}

// Note records free text (for steps that are not tool calls, such as file contents).
func (t *Transcript) Note(format string, args ...any) {
	fmt.Fprintf(&t.b, format, args...)
	t.b.WriteString("\n")
}

// String is the transcript with replacements applied.
func (t *Transcript) String() string { return t.replacer.Replace(t.b.String()) }

// Check compares the transcript with testdata/name, or rewrites it under -update.
func (t *Transcript) Check(tb testing.TB, name string) {
	tb.Helper()
	Compare(tb, name, t.String())
}

// Compare compares got with testdata/name, or rewrites it under -update.
func Compare(tb testing.TB, name, got string) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if string(want) != got {
		tb.Errorf("%s differs from the golden file (run with -update to rewrite it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing lines, enough to see what changed.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want: %q\n  got:  %q", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// JSON encodes v compactly without HTML escaping (so "&&" and "<" stay readable).
func JSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "!" + err.Error()
	}
	return strings.TrimSuffix(b.String(), "\n")
}
