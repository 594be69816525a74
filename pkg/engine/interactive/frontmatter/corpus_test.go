package frontmatter_test

import (
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/frontmatter"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the corpus")

const (
	corpus     = "testdata/corpus"
	pluginName = "corpus-plugin"
)

// fileResult is what one corpus file gives: its header as read, what the loaders made of
// it, and the problems a user would read (paths relative to the corpus).
type fileResult struct {
	Header   header   `json:"header"`
	Loaded   []loaded `json:"loaded"`
	Problems []string `json:"problems,omitempty"`
}

type header struct {
	Found     bool           `json:"found"`
	Unclosed  bool           `json:"unclosed,omitempty"`
	YAMLError string         `json:"yamlError,omitempty"`
	Fields    map[string]any `json:"fields"`
}

type loaded struct {
	As           string   `json:"as"` // skill, command or agent
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Tools        []string `json:"tools,omitempty"`
	Disallowed   []string `json:"disallowedTools,omitempty"`
	Model        string   `json:"model,omitempty"`
	Color        string   `json:"color,omitempty"`
	ArgumentHint string   `json:"argumentHint,omitempty"`
	Listed       *bool    `json:"listedAsSkill,omitempty"`
	Extra        []string `json:"settings,omitempty"`
}

// TestCorpus loads testdata/corpus, a .claude-like tree of skills, commands and agents
// (and a plugin) written in the shapes found in public repositories, through the real
// loaders, and compares each file's result with testdata/golden/<file>.json
// (go test -run TestCorpus -update rewrites them). Beyond the goldens it holds the
// rules every file from the wild gets: a file is never skipped for its YAML, its name
// or a value outside a documented set; skills are named by their directory, commands
// by their path.
func TestCorpus(t *testing.T) {
	results := map[string]*fileResult{}
	var mdFiles []string
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		doc := frontmatter.Parse(data)
		h := header{Found: doc.Found, Unclosed: doc.Unclosed, Fields: map[string]any{}}
		if doc.YAMLError != nil {
			h.YAMLError = doc.YAMLError.Error()
		}
		for k, n := range doc.Fields {
			h.Fields[k] = nodeValue(n)
		}
		rel := relPath(p)
		results[rel] = &fileResult{Header: h, Loaded: []loaded{}}
		mdFiles = append(mdFiles, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(mdFiles) < 50 {
		t.Fatalf("corpus has %d files, want 50+", len(mdFiles))
	}

	dirs := []skills.Dir{
		{Path: filepath.Join(corpus, "skills"), Kind: skills.KindSkill, Source: skills.SourceProject},
		{Path: filepath.Join(corpus, "commands"), Kind: skills.KindCommand, Source: skills.SourceProject},
	}
	for _, d := range skills.PluginDirs(filepath.Join(corpus, "plugin"), pluginName) {
		d.Confine = filepath.Join(corpus, "plugin")
		dirs = append(dirs, d)
	}
	cat, skillProblems := skills.Load(dirs)
	for _, s := range cat.List() {
		listed := s.Kind == skills.KindSkill && s.DescriptionGiven && s.UserInvocable
		results[relPath(s.Path)].add(t, loaded{As: string(s.Kind), Name: s.Name, Description: s.Description,
			Tools: s.AllowedTools, Model: s.Model, ArgumentHint: s.ArgumentHint, Listed: &listed, Extra: skillExtra(s)})
	}
	for _, p := range skillProblems {
		results[relPath(p.Path)].problem(t, p.Error(), p.Skipped, p.Err, "skill")
	}
	agents, agentProblems := agentdef.Load([]agentdef.Dir{
		{Path: filepath.Join(corpus, "agents"), Source: agentdef.SourceProject},
		{Path: filepath.Join(corpus, "plugin", "agents"), Source: agentdef.SourcePlugin, Namespace: pluginName, Confine: filepath.Join(corpus, "plugin")},
	})
	for _, d := range agents.List() {
		if d.Source == agentdef.SourceBuiltIn {
			continue
		}
		results[relPath(d.Path)].add(t, loaded{As: "agent", Name: d.Name, Description: d.Description, Tools: d.Tools,
			Disallowed: d.DisallowedTools, Model: d.Model, Color: d.Color, Extra: agentExtra(d)})
	}
	for _, p := range agentProblems {
		results[relPath(p.Path)].problem(t, p.Error(), p.Skipped, p.Err, "agent")
	}

	for _, rel := range mdFiles {
		res := results[rel]
		t.Run(rel, func(t *testing.T) {
			checkNaming(t, rel, res)
			got, _ := json.MarshalIndent(res, "", "  ")
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", rel+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(got) != string(want) {
				t.Errorf("differs from %s:\n got: %s\nwant: %s", golden, got, want)
			}
		})
	}
}

// checkNaming holds the naming rules: a skill is its directory, a command its path with
// ":" between directories, a plugin's prefixed with the plugin; an agent is its name
// field, else its file name.
func checkNaming(t *testing.T, rel string, res *fileResult) {
	for _, l := range res.Loaded {
		var want string
		switch {
		case l.As == string(skills.KindSkill):
			want = filepath.Base(filepath.Dir(rel))
		case l.As == string(skills.KindCommand):
			want = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(rel, "plugin/"), "commands/"), ".md")
			want = strings.ReplaceAll(want, "/", ":")
		default:
			continue
		}
		if strings.HasPrefix(rel, "plugin/") {
			want = pluginName + ":" + want
		}
		if l.Name != want {
			t.Errorf("%s named %q, want %q", l.As, l.Name, want)
		}
	}
}

func (r *fileResult) add(t *testing.T, l loaded) {
	if r == nil {
		t.Fatalf("loaded %q from a file outside the corpus walk", l.Name)
	}
	r.Loaded = append(r.Loaded, l)
	sort.SliceStable(r.Loaded, func(i, j int) bool { return r.Loaded[i].As < r.Loaded[j].As })
}

// problem records a problem; a skip must be one of the reasons Claude Code skips for
// too (an agent with no frontmatter or no description), never YAML, a name or a value.
func (r *fileResult) problem(t *testing.T, text string, skipped bool, err error, kind string) {
	if r == nil {
		t.Fatalf("problem about a file outside the corpus walk: %s", text)
	}
	r.Problems = append(r.Problems, strings.ReplaceAll(text, corpus+"/", ""))
	if skipped && !(kind == "agent" && (errors.Is(err, agentdef.ErrNoFrontmatter) || errors.Is(err, agentdef.ErrMissingDescription))) {
		t.Errorf("a file from the wild was skipped: %s", text)
	}
}

func relPath(p string) string {
	rel, err := filepath.Rel(corpus, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

func skillExtra(s skills.Skill) []string {
	var out []string
	if s.Context != "" {
		out = append(out, "context="+s.Context)
	}
	if s.Agent != "" {
		out = append(out, "agent="+s.Agent)
	}
	if s.DisableModelInvocation {
		out = append(out, "disable-model-invocation")
	}
	if !s.UserInvocable {
		out = append(out, "not user-invocable")
	}
	if s.WhenToUse != "" {
		out = append(out, "when_to_use="+s.WhenToUse)
	}
	return out
}

func agentExtra(d agentdef.Definition) []string {
	var out []string
	if d.PermissionMode != "" {
		out = append(out, "permissionMode="+d.PermissionMode)
	}
	if d.MaxTurns != 0 {
		out = append(out, "maxTurns set")
	}
	if d.Isolation != "" {
		out = append(out, "isolation="+d.Isolation)
	}
	if d.Background {
		out = append(out, "background")
	}
	if d.Tools != nil && len(d.Tools) == 0 {
		out = append(out, "no tools")
	}
	return out
}

// nodeValue is a header value as JSON shows it: text, list or object.
func nodeValue(n *yaml.Node) any {
	n = frontmatter.ResolveAlias(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			out = append(out, nodeValue(c))
		}
		return out
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = nodeValue(n.Content[i+1])
		}
		return out
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		return n.Value
	}
	return nil
}
