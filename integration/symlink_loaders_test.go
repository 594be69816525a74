package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 31: a repository's skill, command or agent file whose real path leaves the
// project (a link to a credentials file) is skipped with a warning naming it, never read
// into a prompt; the same files inside the project still load.
func TestProjectLoadersSkipLinksOutOfTheProject(t *testing.T) {
	const marker = "MARK-4d2e-credentials"
	p := newProject(t)
	secret := filepath.Join(t.TempDir(), "credentials.md")
	if err := os.WriteFile(secret, []byte("---\ndescription: "+marker+"\n---\n"+marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.writeFile(t, ".claude/commands/ok.md", "---\ndescription: a command inside the project\n---\nsay ok\n")
	for _, link := range []string{".claude/commands/leak.md", ".claude/skills/leak/SKILL.md", ".claude/agents/leak.md"} {
		path := filepath.Join(p.Dir, link)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(secret, path); err != nil {
			t.Fatal(err)
		}
	}
	script := p.writeScript(t, "hi.yaml", "turns:\n  - text: hi\n")
	res := p.mustRun(t, "-p", "hi", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")
	if strings.Contains(res.Stdout, marker) {
		t.Fatalf("a file linking out of the project reached the session:\n%s", res.Stdout)
	}
	for _, want := range []string{".claude/commands/leak.md", ".claude/agents/leak.md", "outside"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr lacks %q (the skipped file named):\n%s", want, res.Stderr)
		}
	}
	if !strings.Contains(res.Stdout, `"ok"`) {
		t.Errorf("the command inside the project is not offered:\n%s", strings.SplitN(res.Stdout, "\n", 2)[0])
	}
}

// Issue 31: the project memory and the task files go into the system prompt too: one
// whose real path leaves the project (a link to a credentials file, to the process's
// environment) is skipped with a warning naming it; one a Read deny rule covers is not
// loaded either. The model's request shows what the system prompt holds.
func TestProjectMemoryAndTasksSkipLinksOutOfTheProjectAndDeniedFiles(t *testing.T) {
	const marker = "MARK-9b3a-credentials"
	script := "turns:\n  - when: {systemContains: \"MARK-\"}\n    text: LEAKED\n  - text: clean\n"
	t.Run("links", func(t *testing.T) {
		p := newProject(t)
		secret := filepath.Join(t.TempDir(), "credentials.md")
		if err := os.WriteFile(secret, []byte("# "+marker+"\n- [ ] "+marker+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for link, target := range map[string]string{".robota/memory/MEMORY.md": secret, ".agents/tasks/leak.md": secret,
			".agents/tasks/env.md": "/proc/self/environ"} {
			path := filepath.Join(p.Dir, link)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}
		res := p.mustRun(t, "-p", "hi", "--verbose", "--provider", "script", "--script", p.writeScript(t, "s.yaml", script))
		if strings.TrimSpace(res.Stdout) != "clean" {
			t.Errorf("a file linking out of the project reached the system prompt: %q", res.Stdout)
		}
		for _, want := range []string{".robota/memory/MEMORY.md", ".agents/tasks/leak.md", ".agents/tasks/env.md", "link to"} {
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr lacks %q (the skipped file named):\n%s", want, res.Stderr)
			}
		}
	})
	t.Run("deny rules", func(t *testing.T) {
		p := newProject(t)
		p.writeFile(t, ".robota/memory/MEMORY.md", "- "+marker+"\n")
		p.writeFile(t, ".agents/tasks/plan.md", "# "+marker+"\n- [ ] step\n")
		p.writeFile(t, "CLAUDE.md", marker+"\n")
		p.writeFile(t, ".claude/skills/leakskill/SKILL.md", "---\ndescription: "+marker+"\n---\n"+marker+"\n")
		p.writeFile(t, ".claude/agents/leakagent.md", "---\nname: leakagent\ndescription: "+marker+"\n---\n"+marker+"\n")
		p.writeFile(t, ".claude/settings.json", `{"permissions": {"deny": ["Read(/.robota/memory/**)", "Read(/.agents/tasks/**)",
			"Read(/CLAUDE.md)", "Read(/.claude/skills/leakskill/**)", "Read(/.claude/agents/leakagent.md)"]}}`)
		res := p.mustRun(t, "-p", "hi", "--verbose", "--provider", "script", "--script", p.writeScript(t, "s.yaml", script),
			"--output-format", "stream-json")
		if strings.Contains(res.Stdout, "LEAKED") || strings.Contains(res.Stdout, marker) || strings.Contains(res.Stdout, "leakskill") {
			t.Errorf("a file a Read deny rule covers reached the session:\n%s", res.Stdout)
		}
		for _, want := range []string{"MEMORY.md", ".agents/tasks/plan.md", "CLAUDE.md", "leakskill/SKILL.md", "leakagent.md", "deny rule"} {
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr lacks %q (the skipped file named):\n%s", want, res.Stderr)
			}
		}
	})
}
