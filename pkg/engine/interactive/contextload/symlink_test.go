package contextload

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// A project's CLAUDE.md that is a link leading out of the project (to the process's
// environment, to a credentials file) is skipped with a diagnostic, never read into the
// prompt; a link inside the project is followed; a file a Read deny rule covers is
// skipped too.
func TestContextFileLinksLeavingTheProjectAreSkipped(t *testing.T) {
	outside := t.TempDir()
	secret := outside + "/credentials"
	if err := os.WriteFile(secret, []byte("MARK-credentials\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{secret, "/proc/self/environ"} {
		dir := t.TempDir()
		mustSymlink(t, target, dir+"/CLAUDE.md")
		c, err := Load(Options{Cwd: dir, StopAt: dir})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c.ClaudeMd(), "MARK-credentials") || strings.Contains(c.ClaudeMd(), "PATH=") {
			t.Errorf("link to %s: read into the prompt:\n%s", target, c.ClaudeMd())
		}
		if len(c.Diagnostics) == 0 || !errors.Is(c.Diagnostics[0].Err, ErrEscapes) {
			t.Errorf("link to %s: diagnostics %v, want ErrEscapes", target, c.Diagnostics)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/AGENTS.md", []byte("shared rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, "AGENTS.md", dir+"/CLAUDE.md")
	c, err := Load(Options{Cwd: dir, StopAt: dir})
	if err != nil || !strings.Contains(c.ClaudeMd()+c.AgentsMd(), "shared rules") {
		t.Fatalf("a link inside the project: %v\n%s", err, c.ClaudeMd())
	}
	c, err = Load(Options{Cwd: dir, StopAt: dir, Denied: func(string) bool { return true }})
	if err != nil || strings.Contains(c.ClaudeMd()+c.AgentsMd(), "shared rules") {
		t.Fatalf("a denied file was loaded: %v", err)
	}
}

// The project memory (.robota/memory/MEMORY.md) and the task files (.agents/tasks/*.md)
// go into the system prompt too: one that is a link leading out of the project (the file
// or a directory above it) is skipped with a diagnostic naming it, and one a Read deny
// rule covers is skipped; the same files inside the project load.
func TestMemoryAndTaskLinksLeavingTheProjectAreSkipped(t *testing.T) {
	outside := t.TempDir()
	secret := outside + "/credentials.md"
	if err := os.WriteFile(secret, []byte("# MARK-credentials\n- [ ] MARK-item\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(outside+"/memdir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside+"/memdir/MEMORY.md", []byte("MARK-credentials\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	prompt := func(c *Context) string { return c.Memory.Content + c.TaskContext }
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // the diagnostic's file
	}{
		{"memory file links out", func(t *testing.T, dir string) {
			mkdir(t, dir+"/.robota/memory")
			mustSymlink(t, secret, dir+"/.robota/memory/MEMORY.md")
		}, ".robota/memory/MEMORY.md"},
		{"memory file links to the environment", func(t *testing.T, dir string) {
			mkdir(t, dir+"/.robota/memory")
			mustSymlink(t, "/proc/self/environ", dir+"/.robota/memory/MEMORY.md")
		}, ".robota/memory/MEMORY.md"},
		{"memory directory links out", func(t *testing.T, dir string) {
			mkdir(t, dir+"/.robota")
			mustSymlink(t, outside+"/memdir", dir+"/.robota/memory")
		}, ".robota/memory/MEMORY.md"},
		{"task file links out", func(t *testing.T, dir string) {
			mkdir(t, dir+"/.agents/tasks")
			mustSymlink(t, secret, dir+"/.agents/tasks/leak.md")
		}, ".agents/tasks/leak.md"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			c, err := Load(Options{Cwd: dir, StopAt: dir})
			if err != nil {
				t.Fatal(err)
			}
			if p := prompt(c); strings.Contains(p, "MARK-") || strings.Contains(p, "PATH=") {
				t.Errorf("read into the prompt:\n%s", p)
			}
			if len(c.Diagnostics) != 1 || !errors.Is(c.Diagnostics[0].Err, ErrEscapes) || c.Diagnostics[0].File != tc.want {
				t.Errorf("diagnostics %v, want ErrEscapes naming %s", c.Diagnostics, tc.want)
			}
		})
	}
	dir := t.TempDir()
	mkdir(t, dir+"/.robota/memory")
	mkdir(t, dir+"/.agents/tasks")
	if err := os.WriteFile(dir+"/.robota/memory/MEMORY.md", []byte("MARK-memory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/.agents/tasks/t.md", []byte("# MARK-task\n- [ ] do it\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Options{Cwd: dir, StopAt: dir})
	if err != nil || !strings.Contains(prompt(c), "MARK-memory") || !strings.Contains(prompt(c), "MARK-task") {
		t.Fatalf("the project's own memory and task: %v\n%s", err, prompt(c))
	}
	var asked []string
	c, err = Load(Options{Cwd: dir, StopAt: dir, Denied: func(p string) bool { asked = append(asked, p); return true }})
	if err != nil || strings.Contains(prompt(c), "MARK-") {
		t.Fatalf("denied files were loaded: %v\n%s", err, prompt(c))
	}
	denied := 0
	for _, d := range c.Diagnostics {
		if errors.Is(d.Err, ErrDenied) {
			denied++
		}
	}
	if denied != 2 {
		t.Errorf("diagnostics %v, want the memory and the task file named as denied (asked about %q)", c.Diagnostics, asked)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
