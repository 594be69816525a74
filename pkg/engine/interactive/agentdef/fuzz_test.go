package agentdef

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAgentFrontmatter: Parse never panics, and what it accepts is usable: a non-empty
// name not starting with "-", a non-empty description, no empty tool entries, a colour
// and permission mode only from their lists, and a skip always names the file.
func FuzzAgentFrontmatter(f *testing.F) {
	files, _ := filepath.Glob("testdata/parse/*.md")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\nname: a\ndescription: b: c\ntools: [x, y\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, ok, problems := Parse("fuzz.md", data)
		for _, p := range problems {
			if !strings.Contains(p.Error(), "fuzz.md") {
				t.Fatalf("problem does not name the file: %v", p)
			}
		}
		if !ok {
			if len(problems) == 0 || !problems[len(problems)-1].Skipped {
				t.Fatalf("skipped without saying why: %v", problems)
			}
			return
		}
		if strings.TrimSpace(d.Name) == "" || strings.HasPrefix(d.Name, "-") {
			t.Fatalf("bad name %q", d.Name)
		}
		if strings.TrimSpace(d.Description) == "" {
			t.Fatal("empty description accepted")
		}
		for _, list := range [][]string{d.Tools, d.DisallowedTools} {
			for _, s := range list {
				if strings.TrimSpace(s) == "" {
					t.Fatalf("empty tool entry in %q", list)
				}
			}
		}
		if d.Color != "" && !contains(Colors, d.Color) {
			t.Fatalf("colour %q", d.Color)
		}
		if d.MaxTurns < 0 {
			t.Fatalf("maxTurns %d", d.MaxTurns)
		}
		if utf8.Valid(data) && !utf8.ValidString(d.SystemPrompt) {
			t.Fatal("valid input gave an invalid prompt")
		}
	})
}
