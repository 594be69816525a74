package skills

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fm(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nbody of " + desc + "\n"
}

func TestLoadDiscoversAndMerges(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	// Every root contributes; "shared" is defined in several and the highest wins.
	write(t, filepath.Join(cwd, ".robota/skills/shared/SKILL.md"), fm("shared", "project robota"))
	write(t, filepath.Join(cwd, ".claude/skills/shared/SKILL.md"), fm("shared", "project claude"))
	write(t, filepath.Join(home, ".robota/skills/shared/SKILL.md"), fm("shared", "user robota"))
	write(t, filepath.Join(cwd, ".claude/skills/pdf/SKILL.md"), fm("pdf", "project pdf"))
	write(t, filepath.Join(cwd, ".claude/skills/pdf/reference.md"), "supporting file, not a skill")
	write(t, filepath.Join(cwd, ".agents/skills/agents-only/SKILL.md"), fm("agents-only", "agents dir"))
	write(t, filepath.Join(home, ".claude/skills/user-only/SKILL.md"), fm("user-only", "user claude"))
	write(t, filepath.Join(home, ".robota/skills/pdf/SKILL.md"), fm("pdf", "user pdf"))
	write(t, filepath.Join(cwd, ".claude/skills/no-skill-md/README.md"), "not a skill")
	// Commands: namespaced by subdirectory; a skill beats a command of its name.
	write(t, filepath.Join(cwd, ".claude/commands/review.md"), "Review $ARGUMENTS\n")
	write(t, filepath.Join(cwd, ".claude/commands/frontend/component.md"), fm("", "make a component"))
	write(t, filepath.Join(cwd, ".claude/commands/pdf.md"), "command pdf\n")
	write(t, filepath.Join(cwd, ".robota/commands/fix.md"), "---\ndescription: robota fix\n---\nFix it\n")
	write(t, filepath.Join(cwd, ".claude/commands/fix.md"), "---\ndescription: claude fix\n---\nFix it\n")
	// Frontmatter that is not YAML is read as key: value lines, with a warning naming
	// the file; the skill loads (Claude Code never skips it).
	bad := filepath.Join(cwd, ".claude/skills/broken/SKILL.md")
	write(t, bad, "---\nname: broken\ndescription: [unclosed\n  - list: {\n---\n")

	cat, problems := Load(Dirs(cwd, home))
	if len(problems) != 1 || problems[0].Path != bad || problems[0].Skipped || !errors.Is(problems[0], ErrMalformed) {
		t.Fatalf("problems = %v, want one malformed-YAML warning naming %s", problems, bad)
	}
	got := map[string]string{}
	for _, s := range cat.List() {
		got[s.Name] = s.Description + "|" + string(s.Kind) + "|" + string(s.Source)
	}
	want := map[string]string{
		"shared":             "project robota|skill|project",
		"pdf":                "project pdf|skill|project",
		"agents-only":        "agents dir|skill|project",
		"user-only":          "user claude|skill|user",
		"review":             "Review $ARGUMENTS|command|project",
		"frontend:component": "make a component|command|project",
		"fix":                "robota fix|command|project",
		"broken":             "[unclosed - list: {|skill|project",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("catalog:\n got %v\nwant %v", got, want)
	}
	pdf, _ := cat.Lookup("/pdf")
	if pdf.Dir != filepath.Join(cwd, ".claude/skills/pdf") {
		t.Errorf("pdf dir = %q", pdf.Dir)
	}
}

// TestLoadNamesByDirectoryAndPath: a skill is named by its directory and a command by
// its path, whatever the frontmatter's name says (Claude Code); a name with spaces or
// capitals, or two files claiming one name, drop nothing.
func TestLoadNamesByDirectoryAndPath(t *testing.T) {
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, ".claude/skills/a/SKILL.md"), fm("same", "first"))
	write(t, filepath.Join(cwd, ".claude/skills/b/SKILL.md"), fm("same", "second"))
	write(t, filepath.Join(cwd, ".claude/skills/review-pr/SKILL.md"), fm("Review PR", "spaces and capitals"))
	write(t, filepath.Join(cwd, ".claude/skills/My Skill/SKILL.md"), fm("my-skill", "a directory with a space"))
	write(t, filepath.Join(cwd, ".claude/commands/dev/fix-issue.md"), fm("something-else", "nested command"))
	write(t, filepath.Join(cwd, ".claude/commands/Deploy.md"), fm("deploy now", "capital file name"))
	cat, problems := Load(Dirs(cwd, ""))
	if len(problems) != 0 {
		t.Fatalf("problems = %v", problems)
	}
	got := map[string]string{}
	for _, s := range cat.List() {
		got[s.Name] = s.Description
	}
	want := map[string]string{"a": "first", "b": "second", "review-pr": "spaces and capitals",
		"My Skill": "a directory with a space", "dev:fix-issue": "nested command", "Deploy": "capital file name"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// TestLoadDuplicateInOneDirIsReported: two command files of one path name in one
// directory (a:b.md and a/b.md): the first in path order wins, the other is reported.
func TestLoadDuplicateInOneDirIsReported(t *testing.T) {
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, ".claude/commands/a/b.md"), fm("", "first"))
	write(t, filepath.Join(cwd, ".claude/commands/a:b.md"), fm("", "second"))
	cat, problems := Load(Dirs(cwd, ""))
	if len(problems) != 1 || !errors.Is(problems[0], ErrDuplicate) || !strings.HasSuffix(problems[0].Path, "a:b.md") {
		t.Fatalf("problems = %v", problems)
	}
	if s, _ := cat.Lookup("a:b"); s.Description != "first" {
		t.Fatalf("a:b = %q, want the first in path order", s.Description)
	}
}

func TestLoadHomeIsCwdScannedOnce(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".claude/skills/x/SKILL.md"), fm("x", "once"))
	cat, problems := Load(Dirs(dir, dir))
	if len(problems) != 0 || len(cat.List()) != 1 || cat.List()[0].Source != SourceProject {
		t.Fatalf("problems %v, list %+v", problems, cat.List())
	}
}

func TestCatalogVisibility(t *testing.T) {
	cat := NewCatalog([]Skill{
		{Name: "both", UserInvocable: true},
		{Name: "user-only", UserInvocable: true, DisableModelInvocation: true},
		{Name: "model-only", UserInvocable: false},
	})
	names := func(list []Skill) (out []string) {
		for _, s := range list {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(cat.ModelVisible()); !reflect.DeepEqual(got, []string{"both", "model-only"}) {
		t.Errorf("model visible = %v", got)
	}
	if got := names(cat.UserVisible()); !reflect.DeepEqual(got, []string{"both", "user-only"}) {
		t.Errorf("user visible = %v", got)
	}
}

func TestLoadPluginNamespaceAndLowercaseSkillFile(t *testing.T) {
	cwd, plugin := t.TempDir(), t.TempDir()
	write(t, filepath.Join(cwd, ".claude/skills/audit/SKILL.md"), fm("audit", "project audit"))
	write(t, filepath.Join(cwd, ".claude/skills/lower/skill.md"), fm("lower", "lowercase file name"))
	write(t, filepath.Join(plugin, "skills/audit/SKILL.md"), fm("audit", "plugin audit"))
	write(t, filepath.Join(plugin, "commands/ci/run.md"), "Run CI\n")
	cat, problems := Load(append(Dirs(cwd, ""), PluginDirs(plugin, "my-plugin")...))
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	got := map[string]string{}
	for _, s := range cat.List() {
		got[s.Name] = s.Description + "|" + string(s.Source)
	}
	want := map[string]string{
		"audit":            "project audit|project",
		"lower":            "lowercase file name|project",
		"my-plugin:audit":  "plugin audit|plugin",
		"my-plugin:ci:run": "Run CI|plugin",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// A skill or command file a Read deny rule covers (Dir.Denied, given its real path) is
// skipped with a problem naming it: its text never reaches a prompt.
func TestLoadSkipsDeniedFiles(t *testing.T) {
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, ".claude/skills/secret/SKILL.md"), fm("secret", "MARK-denied"))
	write(t, filepath.Join(cwd, ".claude/commands/ok.md"), fm("", "fine"))
	dirs := Dirs(cwd, "")
	for i := range dirs {
		dirs[i].Denied = func(p string) bool { return strings.Contains(p, "/skills/secret/") }
	}
	cat, problems := Load(dirs)
	if len(problems) != 1 || !errors.Is(problems[0], ErrDenied) || !strings.HasSuffix(problems[0].Path, "secret/SKILL.md") {
		t.Fatalf("problems = %v, want the denied skill named", problems)
	}
	if _, ok := cat.Lookup("secret"); ok {
		t.Fatal("a denied skill was loaded")
	}
	if _, ok := cat.Lookup("ok"); !ok {
		t.Fatal("the command no rule covers was not loaded")
	}
}
