package assemble

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outside makes a home with a script provider in its user settings and a temporary
// directory that os.TempDir reports (TMPDIR).
func outside(t *testing.T) (home, tmp string) {
	t.Helper()
	home, tmp = t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	scriptPath := filepath.Join(t.TempDir(), "script.yaml")
	writeFile(t, scriptPath, resumeScript)
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), fmt.Sprintf(`{
  "currentProvider": "offline",
  "providers": {"offline": {"type": "script", "options": {"path": %q}}}
}`, scriptPath))
	return home, tmp
}

// DESIGN decision 3: a session started in home or in the temporary directory is stored
// under ~/.robota, never in a .robota created in the temporary directory; a directory
// below either is a project. --continue from the same directory finds it, and not the
// newer session of another directory that shares the user's store.
func TestSessionsOutsideAProjectAreStoredUnderHome(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		cwd        func(home, tmp string) string
		storedIn   func(home, cwd string) string // the directory whose .robota holds it
		noRobotaIn bool                          // cwd must stay without a .robota
	}{
		{name: "temporary directory", cwd: func(_, tmp string) string { return tmp },
			storedIn: func(home, _ string) string { return home }, noRobotaIn: true},
		{name: "home", cwd: func(home, _ string) string { return home },
			storedIn: func(home, _ string) string { return home }},
		{name: "project below the temporary directory", cwd: func(_, tmp string) string {
			p := filepath.Join(tmp, "proj")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, storedIn: func(_, cwd string) string { return cwd }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, tmp := outside(t)
			cwd := tc.cwd(home, tmp)
			run := func(dir string, o Options, prompt string) *Assembled {
				t.Helper()
				o.Cwd, o.Home, o.Env = dir, home, envOf(nil)
				a, err := Assemble(ctx, o)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := a.Session.Run(ctx, prompt); err != nil {
					t.Fatal(err)
				}
				if err := a.Close(ctx, "other"); err != nil {
					t.Fatal(err)
				}
				return a
			}
			first := run(cwd, Options{}, "first")
			root := tc.storedIn(home, cwd)
			if want := filepath.Join(root, ".robota", "sessions"); filepath.Dir(first.RecordPath) != want {
				t.Fatalf("record %s, want it in %s", first.RecordPath, want)
			}
			if want := filepath.Join(root, ".robota", "logs"); filepath.Dir(first.LogPath) != want {
				t.Fatalf("log %s, want it in %s", first.LogPath, want)
			}
			if _, err := os.Lstat(filepath.Join(cwd, ".robota")); tc.noRobotaIn && !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a .robota was created in %s (%v)", cwd, err)
			}
			// A newer session of another directory outside a project shares the store.
			other := home
			if cwd == home {
				other = tmp
			}
			run(other, Options{}, "first")
			cont := run(cwd, Options{Continue: true}, "second")
			if cont.Session.ID() != first.Session.ID() {
				t.Fatalf("--continue in %s resumed %s, want %s", cwd, cont.Session.ID(), first.Session.ID())
			}
			resumed := run(cwd, Options{Resume: first.Session.ID()}, "second")
			if n := len(resumed.Session.Messages()); n < 7 {
				t.Fatalf("--resume found %d messages, want the three exchanges", n)
			}
		})
	}
}

// /resume in a directory outside a project lists that directory's sessions, not those
// of every directory sharing the user's store.
func TestResumeListOutsideAProjectShowsOnlyItsDirectory(t *testing.T) {
	ctx := context.Background()
	home, tmp := outside(t)
	ran := map[string]string{}
	for _, dir := range []string{tmp, home} {
		a, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Session.Run(ctx, "first"); err != nil {
			t.Fatal(err)
		}
		ran[dir] = a.Session.ID()
		if err := a.Close(ctx, "other"); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(ctx, Options{Cwd: tmp, Home: home, Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx, "other")
	res, err := s.ExecuteCommand(ctx, "resume", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Message, ran[tmp]) || strings.Contains(res.Message, ran[home]) {
		t.Fatalf("/resume in %s lists:\n%s\nwant %s and not home's %s", tmp, res.Message, ran[tmp], ran[home])
	}
}
