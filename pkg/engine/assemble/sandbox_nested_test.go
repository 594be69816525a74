package assemble

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/permission"
)

// The sandbox makes read-only what the checker protects at any depth, not only at the
// project's root: a nested repository's hooks and config, a submodule's, a
// subdirectory's .claude and MCP list (issue 31: with the sandbox, tree writes are left to
// it). The nested repository's objects stay writable (git works there), as do the root
// repository's; nothing is protected in bypassPermissions.
func TestSandboxProtectsNestedPaths(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{".git/hooks/x", ".git/objects/o", ".git/modules/m/hooks/x", ".git/modules/m/config",
		"sub/.git/hooks/x", "sub/.git/config", "sub/.git/objects/o", "sub/.claude/settings.json",
		"sub/.mcp.json", "deep/er/.vscode/tasks.json", "deep/er/.robota/skills/s/SKILL.md", "src/main.go"} {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ev := permission.New(permission.Config{ProjectRoot: root, Home: t.TempDir()})
	p := newCommandSandbox(sandboxSettings{}, ev, "default", []string{root}, "").build()
	for _, rel := range []string{".git/hooks", ".git/modules/m/hooks", ".git/modules/m/config", "sub/.git/hooks",
		"sub/.git/config", "sub/.claude", "sub/.mcp.json", "deep/er/.vscode", "deep/er/.robota/skills"} {
		if !slices.Contains(p.ReadOnly, filepath.Join(root, rel)) {
			t.Errorf("%s is not read-only: %q", rel, p.ReadOnly)
		}
	}
	for _, rel := range []string{".git/objects", "sub/.git/objects", "src", "sub", ".git"} {
		for _, ro := range p.ReadOnly {
			if ro == filepath.Join(root, rel) || below(filepath.Join(root, rel, "o"), ro) && rel != "src" && rel != "sub" {
				t.Errorf("%s is read-only (by %s): git must keep working", rel, ro)
			}
		}
	}
	bypass := newCommandSandbox(sandboxSettings{}, ev, string(permission.ModeBypassPermissions), []string{root}, "").build()
	if len(bypass.ReadOnly) != 0 {
		t.Errorf("bypassPermissions protects %q", bypass.ReadOnly)
	}
}

func below(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}
