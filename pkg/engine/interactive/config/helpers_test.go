package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// fixture is a fake home and project directory with settings files in them.
type fixture struct {
	home, project string
	env           map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{home: filepath.Join(root, "home"), project: filepath.Join(root, "work", "proj"), env: map[string]string{}}
	for _, d := range []string{f.home, f.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// write puts content at a layer path: "~/.claude/settings.json" is under the fake home,
// anything else under the project.
func (f *fixture) write(t *testing.T, rel, content string) {
	t.Helper()
	base := f.project
	if strings.HasPrefix(rel, "~/") {
		base, rel = f.home, rel[2:]
	}
	p := filepath.Join(base, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) loader() Loader {
	return Loader{Home: f.home, ProjectDir: f.project, Env: func(k string) (string, bool) {
		v, ok := f.env[k]
		return v, ok
	}}
}

func (f *fixture) load(t *testing.T) *Settings {
	t.Helper()
	s, err := f.loader().Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

// loadErr loads and expects a *ValidationError.
func (f *fixture) loadErr(t *testing.T) *ValidationError {
	t.Helper()
	s, err := f.loader().Load()
	if err == nil {
		t.Fatalf("Load succeeded (%+v), want an error", s)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Load error %T %v, want *ValidationError", err, err)
	}
	return ve
}

func issueStrings(issues []Issue) []string {
	out := make([]string, len(issues))
	for i, is := range issues {
		out[i] = string(is.Severity) + " " + is.String()
	}
	return out
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update)", p, err)
	}
	if string(want) != got {
		t.Errorf("golden %s mismatch\n--- want\n%s\n--- got\n%s", p, want, got)
	}
}
