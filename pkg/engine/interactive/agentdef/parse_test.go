package agentdef

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// parseResult is what a golden file records of one Parse.
type parseResult struct {
	OK         bool        `json:"ok"`
	Definition *Definition `json:"definition,omitempty"`
	Problems   []string    `json:"problems,omitempty"`
}

// TestParseCorpus parses every agent file of testdata/parse (real-world shapes: Claude
// Code's /agents output, community collections, Windows files, broken YAML) and compares
// the outcome with its .golden.json.
func TestParseCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/parse/*.md")
	if err != nil || len(files) < 10 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			def, ok, problems := Parse(path, data)
			res := parseResult{OK: ok}
			if ok {
				res.Definition = &def
			}
			for _, p := range problems {
				res.Problems = append(res.Problems, p.Error())
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			golden := strings.TrimSuffix(path, ".md") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if string(got) != string(want) {
				t.Errorf("Parse(%s) =\n%s\nwant\n%s", path, got, want)
			}
		})
	}
}

func TestParseOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		ok      bool
		wantErr error
		check   func(t *testing.T, d Definition)
	}{
		{"skipped without description", "---\nname: a\n---\nbody", false, ErrMissingDescription, nil},
		{"blank description is missing", "---\nname: a\ndescription: \"  \"\n---\n", false, ErrMissingDescription, nil},
		{"no frontmatter", "name: a\ndescription: b\n", false, ErrNoFrontmatter, nil},
		{"unclosed frontmatter", "---\nname: a\ndescription: b\n", false, ErrNoFrontmatter, nil},
		{"malformed YAML read as lines", "---\nname: a\ndescription: \"b\n---\n", true, nil, func(t *testing.T, d Definition) {
			if d.Name != "a" || d.Description != `"b` {
				t.Errorf("name %q description %q", d.Name, d.Description)
			}
		}},
		{"stray line and unquoted colon", "---\nname: Code Reviewer\ndescription: Use when: asked\nstray\ncolor: magenta\n---\n", true, nil, func(t *testing.T, d Definition) {
			if d.Name != "Code Reviewer" || d.Description != "Use when: asked" || d.Color != "" {
				t.Errorf("%+v", d)
			}
		}},
		{"punctuation retried quoted", "---\nname: [a\ndescription: b: c\n---\n", true, nil, func(t *testing.T, d Definition) {
			if d.Name != "[a" || d.Description != "b: c" {
				t.Errorf("name %q description %q", d.Name, d.Description)
			}
		}},
		{"not a mapping has no description", "---\n- a\n- b\n---\n", false, ErrMissingDescription, nil},
		{"dash name falls back to the file name", "---\nname: -x\ndescription: b\n---\n", true, nil, func(t *testing.T, d Definition) {
			if d.Name != "x" {
				t.Errorf("name %q", d.Name)
			}
		}},
		{"closing fence with trailing spaces", "---  \nname: a\ndescription: b\n---   \nbody", true, nil, func(t *testing.T, d Definition) {
			if d.SystemPrompt != "body" {
				t.Errorf("prompt %q", d.SystemPrompt)
			}
		}},
		{"closing fence at end of file", "---\nname: a\ndescription: b\n---", true, nil, func(t *testing.T, d Definition) {
			if d.SystemPrompt != "" {
				t.Errorf("prompt %q", d.SystemPrompt)
			}
		}},
		{"dashes inside a value do not close", "---\nname: a\ndescription: x---y\n---\nbody", true, nil, func(t *testing.T, d Definition) {
			if d.Description != "x---y" {
				t.Errorf("description %q", d.Description)
			}
		}},
		{"numeric description is text", "---\nname: a\ndescription: 42\n---\n", true, nil, func(t *testing.T, d Definition) {
			if d.Description != "42" {
				t.Errorf("description %q", d.Description)
			}
		}},
		{"tools null means none", "---\nname: a\ndescription: b\ntools: ~\n---\n", true, nil, func(t *testing.T, d Definition) {
			if d.Tools == nil || len(d.Tools) != 0 {
				t.Errorf("tools %#v", d.Tools)
			}
		}},
		{"tools absent means all", "---\nname: a\ndescription: b\n---\n", true, nil, func(t *testing.T, d Definition) {
			if d.Tools != nil || !d.AllowsAllTools() {
				t.Errorf("tools %#v", d.Tools)
			}
		}},
		{"star among tools means all", "---\nname: a\ndescription: b\ntools: [Read, \"*\"]\n---\n", true, nil, func(t *testing.T, d Definition) {
			if d.Tools != nil {
				t.Errorf("tools %#v", d.Tools)
			}
		}},
		{"list entries split on commas", "---\nname: a\ndescription: b\ntools: [\"Read, Grep\", \"Bash(a, b)\"]\n---\n", true, nil, func(t *testing.T, d Definition) {
			if strings.Join(d.Tools, "|") != "Read|Grep|Bash(a, b)" {
				t.Errorf("tools %#v", d.Tools)
			}
		}},
		{"yaml alias", "---\nname: a\ndescription: &d shared text\nx: *d\n---\n", true, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, ok, problems := Parse("x.md", []byte(tc.src))
			if ok != tc.ok {
				t.Fatalf("ok = %v, problems %v", ok, problems)
			}
			if tc.wantErr != nil {
				if len(problems) == 0 || !errors.Is(problems[len(problems)-1], tc.wantErr) || !problems[len(problems)-1].Skipped {
					t.Fatalf("problems %v, want a skip with %v", problems, tc.wantErr)
				}
				if !strings.Contains(problems[len(problems)-1].Error(), "x.md") {
					t.Errorf("problem does not name the file: %v", problems[len(problems)-1])
				}
			}
			if tc.check != nil {
				tc.check(t, d)
			}
		})
	}
}

func TestFilterTools(t *testing.T) {
	parent := []string{"Agent", "Bash", "Edit", "Glob", "Grep", "Read", "Write"}
	tests := []struct {
		name string
		def  Definition
		want string
	}{
		{"all", Definition{}, "Agent,Bash,Edit,Glob,Grep,Read,Write"},
		{"allow list", Definition{Tools: []string{"Read", "Grep", "Missing"}}, "Grep,Read"},
		{"none", Definition{Tools: []string{}}, ""},
		{"deny then allow", Definition{Tools: []string{"Read", "Edit"}, DisallowedTools: []string{"Edit"}}, "Read"},
		{"deny star", Definition{DisallowedTools: []string{"*"}}, ""},
		{"specifier names its tool", Definition{Tools: []string{"Bash(git log *)", "Read"}}, "Bash,Read"},
		{"explore", mustBuiltin(t, Explore), "Bash,Glob,Grep,Read"},
		{"plan", mustBuiltin(t, Plan), "Bash,Glob,Grep,Read"},
		{"general-purpose", mustBuiltin(t, GeneralPurpose), "Agent,Bash,Edit,Glob,Grep,Read,Write"},
	}
	for _, tc := range tests {
		if got := strings.Join(tc.def.FilterTools(parent), ","); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func mustBuiltin(t *testing.T, name string) Definition {
	t.Helper()
	for _, d := range Builtins() {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no built-in %s", name)
	return Definition{}
}
