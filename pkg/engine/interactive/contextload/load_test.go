package contextload

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// nestedProject: CLAUDE.md at three levels (root, root/a, root/a/b = cwd), an AGENTS.md
// in the middle, the Claude Code side files, and imports with two cycles, a chain past
// the depth limit, a diamond, an import outside the project, and imports that must be
// ignored (code span, fenced block, e-mail address).
func nestedProject(t *testing.T) (tmp string, opts Options) {
	tmp = t.TempDir()
	root := filepath.Join(tmp, "root")
	cwd := filepath.Join(root, "a", "b")
	home := filepath.Join(tmp, "home")
	tree(t, home, map[string]string{
		".claude/CLAUDE.md":   "User preferences.\n",
		".claude/personal.md": "Personal notes imported from the project.\n",
		".ssh/id_ed25519":     "PRIVATE KEY\n",
	})
	tree(t, tmp, map[string]string{"secret.txt": "outside\n"})
	tree(t, root, map[string]string{
		"CLAUDE.md":         "# Org rules\n\nLevel one.\n\n## Compact Instructions\n\nKeep API decisions and file paths.\n\n## Style\n\nTabs.\n",
		"a/AGENTS.md":       "Agents at level two.\n",
		"a/CLAUDE.md":       "Level two, with @shared/style.md.\n",
		"a/shared/style.md": "Shared style (imported by level two).\n",
		"a/b/CLAUDE.md": strings.Join([]string{
			"# Level three",
			"See @docs/x.md, and `@docs/ignored.md` is code; write to me@example.com.",
			"```",
			"@docs/fenced.md",
			"```",
			"Personal: @~/.claude/personal.md",
			"Not allowed: @../../../secret.txt and @~/.ssh/id_ed25519",
			"Missing: @docs/missing.md",
			"",
			"### Compact instructions",
			"Mention the failing test names.",
		}, "\n") + "\n",
		"a/b/CLAUDE.local.md":          "Local notes: @docs/d1.md\n",
		"a/b/.claude/CLAUDE.md":        "Dot-claude notes.\n",
		"a/b/docs/x.md":                "X imports @y.md and @../CLAUDE.md\n",
		"a/b/docs/y.md":                "Y imports @x.md and @z.md\n",
		"a/b/docs/z.md":                "Z (reached from y, and again from d1)\n",
		"a/b/docs/d1.md":               "d1 @d2.md @z.md\n",
		"a/b/docs/d2.md":               "d2 @d3.md\n",
		"a/b/docs/d3.md":               "d3 @d4.md\n",
		"a/b/docs/d4.md":               "d4 @d5.md\n",
		"a/b/docs/d5.md":               "d5 is five hops away\n",
		"a/b/docs/ignored.md":          "never\n",
		"a/b/docs/fenced.md":           "never\n",
		"a/b/go.mod":                   "module example.com/nested\n\ngo 1.26\n",
		"a/b/.git/HEAD":                "ref: refs/heads/feat/ctx\n",
		"a/b/.robota/memory/MEMORY.md": "- build with make\n- tests need -race\n",
		"a/b/.agents/tasks/T-1-ctx.md": "# T-1: Context loading\n\n- **Status**: in-progress\n- **Branch**: feat/ctx\n\n## Objective\n\nLoad the project context.\n\n## Requirements for Completion\n\n- [ ] golden prompt\n- [x] walk-up\n",
		"a/b/.agents/tasks/T-2-old.md": "# T-2: Old\n\n- **Status**: completed\n",
		"a/b/.agents/tasks/README.md":  "# Tasks\n",
	})
	return tmp, Options{Cwd: cwd, Home: home, StopAt: root}
}

func TestLoadNestedProject(t *testing.T) {
	tmp, opts := nestedProject(t)
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range c.Files {
		got = append(got, strings.Repeat("  ", f.Depth)+f.Display+" ["+string(f.Family)+"]")
	}
	want := []string{
		"~/.claude/CLAUDE.md [~/.claude/CLAUDE.md]",
		"$TMP/root/CLAUDE.md [CLAUDE.md]",
		"$TMP/root/a/AGENTS.md [AGENTS.md]",
		"$TMP/root/a/CLAUDE.md [CLAUDE.md]",
		"  $TMP/root/a/shared/style.md [CLAUDE.md]",
		"CLAUDE.md [CLAUDE.md]",
		"  docs/x.md [CLAUDE.md]",
		"    docs/y.md [CLAUDE.md]",
		"      docs/z.md [CLAUDE.md]",
		"  ~/.claude/personal.md [CLAUDE.md]",
		".claude/CLAUDE.md [.claude/CLAUDE.md]",
		"CLAUDE.local.md [CLAUDE.local.md]",
		"  docs/d1.md [CLAUDE.local.md]",
		"    docs/d2.md [CLAUDE.local.md]",
		"      docs/d3.md [CLAUDE.local.md]",
		"        docs/d4.md [CLAUDE.local.md]",
	}
	for i := range got {
		got[i] = strings.ReplaceAll(got[i], tmp, "$TMP")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files:\n got %q\nwant %q", got, want)
	}

	var diags []string
	for _, d := range c.Diagnostics {
		diags = append(diags, strings.ReplaceAll(d.String(), tmp, "$TMP"))
	}
	// Diagnostics come in load order: imports expand depth first, so the cycles under
	// docs/x.md (line 2) are found before the later lines of CLAUDE.md are read.
	wantDiags := []string{
		"docs/y.md:1: import cycle: docs/x.md -> docs/y.md -> docs/x.md",
		"docs/x.md:1: import cycle: CLAUDE.md -> docs/x.md -> CLAUDE.md",
		"CLAUDE.md:7: import outside the allowed directories: @../../../secret.txt",
		"CLAUDE.md:7: import outside the allowed directories: @~/.ssh/id_ed25519",
		"CLAUDE.md:8: import target not found: @docs/missing.md",
		"docs/d4.md:1: import depth limit exceeded: @d5.md is 5 hops deep (limit 4)",
	}
	if !reflect.DeepEqual(diags, wantDiags) {
		t.Errorf("diagnostics:\n got %q\nwant %q", diags, wantDiags)
	}
	for _, sentinel := range []error{ErrImportCycle, ErrImportDepth, ErrImportOutside, ErrImportNotFound} {
		found := false
		for _, d := range c.Diagnostics {
			found = found || errors.Is(d.Err, sentinel)
		}
		if !found {
			t.Errorf("no diagnostic wraps %v", sentinel)
		}
	}
	for _, f := range c.Files {
		if strings.Contains(f.Content, "never") || strings.Contains(f.Content, "PRIVATE") || strings.Contains(f.Content, "outside") {
			t.Errorf("%s should not have been loaded", f.Display)
		}
	}

	if want := "Keep API decisions and file paths.\n\nMention the failing test names."; c.CompactInstructions != want {
		t.Errorf("CompactInstructions = %q, want %q", c.CompactInstructions, want)
	}
	if !strings.HasPrefix(c.AgentsMd(), "Agents at level two.") || strings.Contains(c.AgentsMd(), "Level") {
		t.Errorf("AgentsMd = %q", c.AgentsMd())
	}
	if cm := c.ClaudeMd(); !strings.Contains(cm, "Shared style") || strings.Contains(cm, "Agents at level two") {
		t.Errorf("ClaudeMd = %q", cm)
	}
	if c.Git != (GitInfo{IsRepo: true, Root: opts.Cwd, Branch: "feat/ctx"}) {
		t.Errorf("git = %+v", c.Git)
	}
	if c.Project != (ProjectInfo{Type: "go", Language: "go", Name: "example.com/nested"}) {
		t.Errorf("project = %+v", c.Project)
	}
	if len(c.Tasks) != 1 || c.Tasks[0].Title != "T-1: Context loading" {
		t.Errorf("tasks = %+v", c.Tasks)
	}

	prompt := BuildSystemPrompt(PromptInput{Context: c, Model: "model-x", Language: "ko",
		PermissionMode: "plan", Now: fixedClock, Platform: "linux/amd64",
		Sections: []Section{{Title: "Available Tools", Body: "- Read\n- Edit"}}})
	golden(t, "nested_prompt.golden", tmp, prompt)
}

func TestWalkUpReachesFilesystemRootWithoutStopAt(t *testing.T) {
	_, opts := nestedProject(t)
	opts.StopAt = ""
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	withStop := opts
	withStop.StopAt = filepath.Dir(opts.Cwd) // root/a: level one is above it
	c2, err := Load(withStop)
	if err != nil {
		t.Fatal(err)
	}
	has := func(c *Context, s string) bool { return strings.Contains(c.ClaudeMd(), s) }
	if !has(c, "Level one.") || has(c2, "Level one.") || !has(c2, "Level two") {
		t.Errorf("walk-up: without StopAt level one loaded=%v; StopAt=root/a level one=%v level two=%v",
			has(c, "Level one."), has(c2, "Level one."), has(c2, "Level two"))
	}
}

func TestLoadRequiresCwd(t *testing.T) {
	if _, err := Load(Options{}); !errors.Is(err, ErrNoCwd) {
		t.Errorf("err = %v, want ErrNoCwd", err)
	}
}

func TestSymlinkedFileLoadedOnce(t *testing.T) {
	tmp := t.TempDir()
	tree(t, tmp, map[string]string{"p/AGENTS.md": "shared rules\n"})
	mustSymlink(t, filepath.Join(tmp, "p", "AGENTS.md"), filepath.Join(tmp, "p", "CLAUDE.md"))
	c, err := Load(Options{Cwd: filepath.Join(tmp, "p"), StopAt: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 1 || c.Files[0].Kind != KindAgents {
		t.Errorf("files = %+v, want AGENTS.md once", c.Files)
	}
}

func TestExtraImportRoots(t *testing.T) {
	tmp := t.TempDir()
	tree(t, tmp, map[string]string{
		"p/CLAUDE.md":        "@../lib/conventions.md\n",
		"lib/conventions.md": "lib conventions\n",
	})
	opts := Options{Cwd: filepath.Join(tmp, "p"), StopAt: tmp}
	c, _ := Load(opts)
	if len(c.Files) != 1 || len(c.Diagnostics) != 1 || !errors.Is(c.Diagnostics[0].Err, ErrImportOutside) {
		t.Fatalf("without ImportRoots: files %d diags %v", len(c.Files), c.Diagnostics)
	}
	opts.ImportRoots = []string{filepath.Join(tmp, "lib")}
	c, _ = Load(opts)
	if len(c.Files) != 2 || c.Files[1].Content != "lib conventions\n" || len(c.Diagnostics) != 0 {
		t.Errorf("with ImportRoots: files %+v diags %v", c.Files, c.Diagnostics)
	}
}
