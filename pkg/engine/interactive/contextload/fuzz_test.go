package contextload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMarkdown runs every parser of instruction-file text (a cloned repository's
// CLAUDE.md is untrusted) over arbitrary input and checks their invariants.
func FuzzMarkdown(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "seeds", "*.md"))
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, s := range []string{"", "@", "@~", "@a.md @b/c", "```\n@x.md\n", "`@x.md` `` @y.md ``", "# Compact Instructions\n",
		"## Compact Instructions\n```\n## x\n~~~\n", "- **Status**: \n- [ ] ", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		for _, ref := range ParseImports(s) {
			if ref.line < 1 || ref.line > len(lines) || ref.target == "" || !strings.Contains(lines[ref.line-1], "@"+ref.target) {
				t.Fatalf("bad import %+v", ref)
			}
		}
		if ci := ExtractCompactInstructions(s); ci != "" {
			// Every extracted line is an input line, in input order (searched from the
			// previous match on, so the check stays linear).
			rest := strings.ReplaceAll(s, "\r\n", "\n")
			for _, l := range strings.Split(ci, "\n") {
				i := strings.Index(rest, l)
				if i < 0 {
					t.Fatalf("extracted line %q is not in the input after the previous one", l)
				}
				rest = rest[i+len(l):]
			}
			if ci != strings.TrimSpace(ci) {
				t.Fatalf("not trimmed: %q", ci)
			}
		}
		task := ParseTask(s)
		if len(task.OpenItems) > maxOpenItems {
			t.Fatalf("%d open items", len(task.OpenItems))
		}
		if strings.Contains(FormatTaskContext([]Task{task}), "\x00") != strings.Contains(s, "\x00") && !strings.Contains(s, "\x00") {
			t.Fatalf("format invented bytes")
		}
		m := CapMemory(s)
		if !strings.HasPrefix(s, m.Content) || len(m.Content) > MemoryMaxBytes || countLines(m.Content) > MemoryMaxLines {
			t.Fatalf("cap broken: %d bytes %d lines", len(m.Content), countLines(m.Content))
		}
		if utf8.ValidString(s) && !utf8.ValidString(m.Content) {
			t.Fatalf("cap split a rune")
		}
		if m.Truncated != (len(m.Content) < len(s)) {
			t.Fatalf("Truncated=%v for %d of %d bytes", m.Truncated, len(m.Content), len(s))
		}
		_ = stripCodeSpans(s)
	})
}
