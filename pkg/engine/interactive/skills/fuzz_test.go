package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSkillFrontmatter: Parse never panics and never skips a named file, and what it
// accepts is usable: the name it was given,
// no empty tool entry, context only "" or fork, valid UTF-8 text, a skip always names
// the file and says why; Expand of an accepted skill never panics either.
func FuzzSkillFrontmatter(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*.md")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, "a b")
		}
	}
	f.Add([]byte("---\n---\n"), "")
	f.Add([]byte("---\nname: a\ndescription: b: c\nallowed-tools: [x, y\n---\n$ARGUMENTS[0] $1"), `"x y" z`)
	f.Fuzz(func(t *testing.T, data []byte, args string) {
		s, ok, problems := Parse("fuzz.md", "fuzz", data)
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
		if s.Name != "fuzz" {
			t.Fatalf("name %q, want the file's name whatever the frontmatter says", s.Name)
		}
		if ok != true || (len(problems) > 0 && problems[len(problems)-1].Skipped) {
			t.Fatalf("a named file was skipped: %v", problems)
		}
		for _, tool := range s.AllowedTools {
			if strings.TrimSpace(tool) == "" {
				t.Fatalf("empty tool entry in %q", s.AllowedTools)
			}
		}
		if s.Context != "" && s.Context != ContextFork {
			t.Fatalf("context %q", s.Context)
		}
		for _, text := range []string{s.Name, s.Description, s.Body, s.ArgumentHint, s.Model} {
			if !utf8.ValidString(text) {
				t.Fatalf("invalid UTF-8 in %q", text)
			}
		}
		_ = Expand(s, args, ExpandOptions{})
		_ = SystemPromptBlock([]Skill{s})
	})
}
