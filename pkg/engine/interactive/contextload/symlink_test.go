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
