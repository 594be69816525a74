package agentdef

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

func writeAgent(t *testing.T, dir, file, name, desc, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, file)
	src := "---\nname: " + name + "\n"
	if desc != "" {
		src += "description: " + desc + "\n"
	}
	src += "---\n" + body + "\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadPrecedence: project over user, .robota over .agents over .claude, any file
// over a built-in; every directory of Dirs is read.
func TestLoadPrecedence(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	pr, pa, pc := filepath.Join(cwd, ".robota", "agents"), filepath.Join(cwd, ".agents", "agents"), filepath.Join(cwd, ".claude", "agents")
	ur, uc := filepath.Join(home, ".robota", "agents"), filepath.Join(home, ".claude", "agents")

	writeAgent(t, pr, "a.md", "shared", "from project robota", "p-robota")
	writeAgent(t, pa, "a.md", "shared", "from project agents", "p-agents")
	writeAgent(t, pc, "a.md", "shared", "from project claude", "p-claude")
	writeAgent(t, ur, "a.md", "shared", "from user robota", "u-robota")
	writeAgent(t, pa, "b.md", "agents-over-claude", "from .agents", "x")
	writeAgent(t, pc, "b.md", "agents-over-claude", "from .claude", "x")
	writeAgent(t, uc, "c.md", "project-over-user", "from user claude", "x")
	writeAgent(t, pc, "c.md", "project-over-user", "from project claude", "x")
	writeAgent(t, ur, "d.md", "robota-over-claude-user", "from user robota", "x")
	writeAgent(t, uc, "d.md", "robota-over-claude-user", "from user claude", "x")
	writeAgent(t, uc, "explore.md", "Explore", "my own Explore", "custom")
	writeAgent(t, uc, "only-user.md", "only-user", "user only", "x")

	cat, problems := Load(Dirs(cwd, home))
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := map[string]struct {
		desc   string
		source Source
	}{
		"shared":                  {"from project robota", SourceProject},
		"agents-over-claude":      {"from .agents", SourceProject},
		"project-over-user":       {"from project claude", SourceProject},
		"robota-over-claude-user": {"from user robota", SourceUser},
		"Explore":                 {"my own Explore", SourceUser},
		"only-user":               {"user only", SourceUser},
		GeneralPurpose:            {mustBuiltin(t, GeneralPurpose).Description, SourceBuiltIn},
		Plan:                      {mustBuiltin(t, Plan).Description, SourceBuiltIn},
	}
	if got := strings.Join(cat.Names(), ","); got != "Explore,Plan,agents-over-claude,general-purpose,only-user,project-over-user,robota-over-claude-user,shared" {
		t.Fatalf("names %s", got)
	}
	for name, w := range want {
		d, ok := cat.Lookup(name)
		if !ok || d.Description != w.desc || d.Source != w.source {
			t.Errorf("%s: %+v, want %q from %s", name, d, w.desc, w.source)
		}
	}
	if d, _ := cat.Lookup("Explore"); d.DisallowedTools != nil {
		t.Errorf("a custom Explore keeps no built-in restriction: %v", d.DisallowedTools)
	}
}

func TestLoadProblemsNameFiles(t *testing.T) {
	cwd := t.TempDir()
	dir := filepath.Join(cwd, ".claude", "agents")
	good := writeAgent(t, dir, "good.md", "good", "works", "x")
	nodesc := writeAgent(t, dir, "nodesc.md", "nodesc", "", "x")
	dup := writeAgent(t, filepath.Join(dir, "sub"), "zz.md", "good", "again", "x")
	bad := filepath.Join(dir, "bad.md")
	if err := os.WriteFile(bad, []byte("---\nname: bad\ndescription: \"open\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an agent"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.md")
	if err := os.WriteFile(big, []byte("---\nname: big\ndescription: d\n---\n"+strings.Repeat("x", MaxFileSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, problems := Load(Dirs(cwd, ""))
	byPath := map[string]Problem{}
	for _, p := range problems {
		byPath[p.Path] = p
	}
	if len(problems) != 4 {
		t.Errorf("problems: %v", problems)
	}
	if p, ok := byPath[nodesc]; !ok || !p.Skipped || !errors.Is(p, ErrMissingDescription) || !strings.Contains(p.Error(), nodesc) {
		t.Errorf("%s: %v, want a skip naming it", nodesc, p)
	}
	// YAML that does not parse is a warning; the file is read as key: value lines.
	if p, ok := byPath[bad]; !ok || p.Skipped || !errors.Is(p, ErrMalformed) || !strings.Contains(p.Error(), bad) {
		t.Errorf("%s: %v, want a malformed-YAML warning naming it", bad, p)
	}
	if d, ok := cat.Lookup("bad"); !ok || d.Description != `"open` {
		t.Errorf("bad: %+v %v", d, ok)
	}
	if p, ok := byPath[dup]; !ok || !strings.Contains(p.Error(), good) {
		t.Errorf("duplicate in one directory: %v", p)
	}
	if p, ok := byPath[big]; !ok || !p.Skipped {
		t.Errorf("oversized file: %v", p)
	}
	if d, ok := cat.Lookup("good"); !ok || d.Path != good {
		t.Errorf("good: %+v", d)
	}
}

func TestLoadFollowsSymlinkedDirAndDedupesHome(t *testing.T) {
	home := t.TempDir()
	real := filepath.Join(t.TempDir(), "dotfiles-agents")
	writeAgent(t, real, "x.md", "linked", "from a linked directory", "x")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(home, ".claude", "agents")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	// cwd == home: the directories are scanned once, as the project's.
	cat, problems := Load(Dirs(home, home))
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	d, ok := cat.Lookup("linked")
	if !ok || d.Source != SourceProject {
		t.Fatalf("linked: %+v %v", d, ok)
	}
}

func TestLookupFoldsCase(t *testing.T) {
	cat := NewCatalog(append(Builtins(), Definition{Name: "Reviewer"}, Definition{Name: "reviewer"}))
	if d, ok := cat.Lookup("explore"); !ok || d.Name != Explore {
		t.Errorf("explore: %v %v", d.Name, ok)
	}
	if d, ok := cat.Lookup("reviewer"); !ok || d.Name != "reviewer" {
		t.Errorf("exact match first: %v", d.Name)
	}
	if _, ok := cat.Lookup("REVIEWER"); ok {
		t.Error("an ambiguous case-folded name must not resolve")
	}
	if _, ok := cat.Lookup("nope"); ok {
		t.Error("unknown name resolved")
	}
}

// The provider registry's definitions are the resolvers the lead wires in.
var _ ModelResolver = registry.Definition{}

type table map[string]string

func (t table) ResolveModel(name string) (string, bool) {
	if id, ok := t[name]; ok {
		return id, id != ""
	}
	return name, true
}

func TestResolveModel(t *testing.T) {
	anthropicLike := table{"sonnet": "claude-sonnet-x", "opus": "claude-opus-x", "haiku": "claude-haiku-x"}
	openaiLike := table{"sonnet": "", "opus": "", "haiku": ""}
	tests := []struct {
		requested, defined, parent string
		r                          ModelResolver
		want                       string
	}{
		{"", "", "parent-m", anthropicLike, "parent-m"},
		{"", "inherit", "parent-m", anthropicLike, "parent-m"},
		{"", "Inherit", "parent-m", anthropicLike, "parent-m"},
		{"", "sonnet", "parent-m", anthropicLike, "claude-sonnet-x"},
		{"haiku", "sonnet", "parent-m", anthropicLike, "claude-haiku-x"},
		{"", "haiku", "gpt-x", openaiLike, "gpt-x"},
		{"", "gpt-4.1-mini", "gpt-x", openaiLike, "gpt-4.1-mini"},
		{"", "sonnet", "parent-m", nil, "sonnet"},
		{" ", " opus ", "p", anthropicLike, "claude-opus-x"},
	}
	for _, tc := range tests {
		if got := ResolveModel(tc.requested, tc.defined, tc.parent, tc.r); got != tc.want {
			t.Errorf("ResolveModel(%q, %q, %q) = %q, want %q", tc.requested, tc.defined, tc.parent, got, tc.want)
		}
	}
}

func TestAssemblePrompt(t *testing.T) {
	got := AssemblePrompt(PromptParts{Body: "Body.\n", ClaudeMD: "", AgentsMD: "Agents rules."})
	if got != "Body.\n\nAgents rules.\n\n"+SubagentSuffix {
		t.Errorf("prompt %q", got)
	}
	got = AssemblePrompt(PromptParts{Body: "B", ClaudeMD: "C", AgentsMD: "A", ForkWorker: true})
	if got != "B\n\nC\n\nA\n\n"+ForkWorkerSuffix {
		t.Errorf("fork prompt %q", got)
	}
}

// An agent file a Read deny rule covers (Dir.Denied, given its real path) is skipped
// with a problem naming it: its body never becomes a subagent's system prompt.
func TestLoadSkipsDeniedFiles(t *testing.T) {
	cwd := t.TempDir()
	writeAgent(t, filepath.Join(cwd, ".claude/agents"), "secret.md", "secret", "d", "MARK-denied")
	writeAgent(t, filepath.Join(cwd, ".claude/agents"), "ok.md", "ok", "d", "fine")
	dirs := Dirs(cwd, "")
	for i := range dirs {
		dirs[i].Denied = func(p string) bool { return strings.HasSuffix(p, "/secret.md") }
	}
	cat, problems := Load(dirs)
	if len(problems) != 1 || !errors.Is(problems[0], ErrDenied) || !strings.HasSuffix(problems[0].Path, "secret.md") {
		t.Fatalf("problems = %v, want the denied agent named", problems)
	}
	if _, ok := cat.Lookup("secret"); ok {
		t.Fatal("a denied agent was loaded")
	}
	if _, ok := cat.Lookup("ok"); !ok {
		t.Fatal("the agent no rule covers was not loaded")
	}
}
