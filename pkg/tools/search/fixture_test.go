package search

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// fixtureFiles is the tree both Grep backends and Glob are tested on. Every rule the
// backends must agree on has a file here: nested and negated .gitignore patterns, hidden and
// VCS directories, binary files (NUL early and late), symbolic links, CRLF, a missing final
// newline, empty files, Unicode and invalid UTF-8, long lines, and many file types.
var fixtureFiles = map[string]string{
	".gitignore":               "build/\n*.log\n/anchored.txt\nsecret*\n!secret_ok.txt\n# comment\n\ndocs/generated/\n",
	"anchored.txt":             "TODO anchored at the root is ignored\n",
	"nested/anchored.txt":      "TODO anchored only applies at the root\n",
	"build/out.txt":            "TODO in an ignored directory\n",
	"debug.log":                "TODO in an ignored log\n",
	"secret_key.txt":           "TODO secret\n",
	"secret_ok.txt":            "TODO re-included by negation\n",
	"docs/generated/api.md":    "TODO generated\n",
	"docs/guide.md":            "# Guide\n\nTODO write the guide\nSee `func main` below.\n",
	"src/.gitignore":           "*.tmp\n!keep.tmp\nlocal/\n",
	"src/a.tmp":                "TODO temp\n",
	"src/keep.tmp":             "TODO kept temp\n",
	"src/local/x.go":           "package local // TODO ignored by a nested .gitignore\n",
	"src/main.go":              "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\") // TODO greet\n}\n\nfunc helper() int {\n\treturn 42\n}\n",
	"src/util/strings.go":      "package util\n\n// TODO: unicode\nfunc Café() string { return \"café\" }\nfunc Upper() string { return \"ÉTÉ\" }\n",
	"src/util/strings_test.go": "package util\n\nimport \"testing\"\n\nfunc TestCafé(t *testing.T) {}\n",
	"src/web/app.ts":           "export function main(): void {\n  console.log('TODO ts');\n}\n",
	"src/web/view.tsx":         "export const View = () => <div>TODO tsx</div>;\n",
	"src/web/legacy.mts":       "export const x = 1; // TODO mts\n",
	"scripts/run.py":           "def main():\n    print('TODO py')\n\n\nif __name__ == '__main__':\n    main()\n",
	"Makefile":                 "all:\n\t@echo TODO make\n",
	"config.json":              "{\n  \"todo\": \"TODO json\",\n  \"n\": 1\n}\n",
	".hidden/notes.txt":        "TODO hidden directory\n",
	".env":                     "TODO=hidden file\n",
	".git/config":              "TODO inside .git\n",
	".git/HEAD":                "ref: refs/heads/main\n",
	"crlf.txt":                 "first TODO\r\nsecond\r\nthird TODO\r\n",
	"no_newline.txt":           "line one\nTODO last line without newline",
	"empty.txt":                "",
	"blank_lines.txt":          "a\n\n\nb\n\n",
	"binary.bin":               "TODO\x00binary",
	"late_nul.dat":             strings.Repeat("x", 9000) + "\nTODO after\x00late NUL\n",
	"invalid_utf8.txt":         "ok line\nTODO bad \xff\xfe bytes\n",
	"long_line.txt":            "TODO " + strings.Repeat("long ", 500) + "\nshort\n",
	"context.txt":              "l1\nl2 match\nl3\nl4\nl5\nl6 match\nl7\nl8 match\nl9\nl10\nl11\nl12\nl13 match\n",
	"multi.txt":                "start {\n  inner\n}\nend\nstart { one line }\n",
	"deep/a/b/c/d/e.txt":       "TODO deep\n",
	"matchdir.log/inside.txt":  "TODO in a directory named like *.log\n",
	"wordy.txt":                "foo foobar barfoo\nfoo_bar foo-bar\nFOO Foo\n",
}

var fixtureLinks = map[string]string{
	"link_to_main.go": "src/main.go",
	"link_dir":        "src",
}

// newFixture writes the tree into a temp dir with distinct, fixed modification times
// (sorted by path, later paths newer) so "newest first" is deterministic.
func newFixture(t testing.TB) (*workspace.Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(fixtureFiles))
	for name := range fixtureFiles {
		names = append(names, name)
	}
	sort.Strings(names)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range names {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fixtureFiles[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range fixtureLinks {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, root
}
