package permission

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A walk's answers are SandboxDenies' answers, over a tree with links of every kind:
// to a directory inside, to a denied file, outside, dangling, chained, and for entries
// that do not exist.
func TestSandboxWalkAnswersAsSandboxDenies(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mk := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"secret.txt", "src/a.go", "src/deep/b.go", "secrets/k.pem", ".git/hooks/pre-commit",
		".git/config", "docs/.env", "docs/readme.md"} {
		mk(rel)
	}
	if err := os.WriteFile(filepath.Join(outside, "o.txt"), []byte("o"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"to-secret": filepath.Join(root, "secret.txt"), "rel-secret": "secret.txt", "src/up": "..",
		"srcdir": "src", "out": outside, "dangling": "nowhere/x", "chain": "to-secret", "hooks": ".git/hooks",
		"secrets-link": "secrets",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p, filepath.Join(p, ".robota-sandbox-any-entry"))
		}
		return nil
	})
	paths = append(paths, filepath.Join(root, "srcdir", "deep", "b.go"), filepath.Join(root, "hooks", "pre-commit"),
		filepath.Join(root, "missing", "x"), filepath.Join(root, "out", "o.txt"), filepath.Join(root, "secrets-link", "k.pem"))
	for _, deny := range [][]string{
		{"Read(./secret.txt)", "Edit(./.git/**)"},
		{"Read(./secrets/**)", "Read(**/.env)", "Edit(./src/deep/**)"},
		{"Read(//" + outside[1:] + "/**)", "Edit(//" + filepath.Join(root, "docs")[1:] + "/**)"},
	} {
		rules, err := Rules(Layer{Deny: deny})
		if err != nil {
			t.Fatal(err)
		}
		e := New(Config{ProjectRoot: root, Home: t.TempDir(), Rules: rules})
		w := e.SandboxWalk()
		denied := map[string]int{}
		for _, p := range paths {
			for _, tool := range []string{"Read", "Edit"} {
				got, want := w.Denies(tool, p), e.SandboxDenies(tool, p)
				if got != want {
					t.Errorf("deny %q: %s %s: walk %v, SandboxDenies %v", deny, tool, p, got, want)
				}
				if got {
					denied[tool]++
				}
			}
		}
		if denied["Read"] == 0 || denied["Edit"] == 0 {
			t.Errorf("deny %q: the tree has nothing these rules deny (%v): the comparison shows nothing", deny, denied)
		}
	}
}
