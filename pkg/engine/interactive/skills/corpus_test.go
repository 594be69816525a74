package skills

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// corpusResult is what a corpus file parses to: the skill (when it loads) and the
// problems, as text, so a golden file shows the warning a user would read.
type corpusResult struct {
	Loaded   bool     `json:"loaded"`
	Skill    *Skill   `json:"skill,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// TestCorpus parses files in the shapes authors write (CRLF, BOM, tabs, YAML and comma
// tool lists, quoted and block scalars, unknown keys, no frontmatter, broken YAML) and
// compares the result with testdata/corpus/*.golden.json (go test -run TestCorpus -update).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.md")
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus has %d files (%v), want 20+", len(files), err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			base := strings.TrimSuffix(filepath.Base(path), ".md")
			s, ok, problems := Parse(path, base, data)
			res := corpusResult{Loaded: ok}
			if ok {
				res.Skill = &s
			}
			for _, p := range problems {
				if p.Path != path {
					t.Errorf("problem names %q, want %q", p.Path, path)
				}
				res.Problems = append(res.Problems, p.Error())
			}
			got, _ := json.MarshalIndent(res, "", "  ")
			got = append(got, '\n')
			golden := strings.TrimSuffix(path, ".md") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from golden:\n got: %s\nwant: %s", path, got, want)
			}
		})
	}
}
