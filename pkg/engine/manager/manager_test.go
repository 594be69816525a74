package manager

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func noEnv(string) (string, bool) { return "", false }

func newManager(t *testing.T, state string) *Manager {
	t.Helper()
	m, err := New(Config{Home: t.TempDir(), Env: noEnv, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = m.Shutdown(ctx)
	})
	return m
}

func scriptProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("turns:\n  - text: ok\n    repeat: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestConcurrentResumesShareOneLiveSession(t *testing.T) {
	ctx := context.Background()
	state, dir := t.TempDir(), scriptProject(t)
	first := newManager(t, state)
	l, err := first.Create(ctx, CreateOptions{Cwd: dir, Script: "s.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	id := l.ID()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	m := newManager(t, state)
	var wg sync.WaitGroup
	got := make([]*Live, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := m.Create(ctx, CreateOptions{Cwd: dir, Script: "s.yaml", Resume: id})
			if err != nil {
				t.Error(err)
			}
			got[i] = l
		}()
	}
	wg.Wait()
	for _, l := range got {
		if l != got[0] {
			t.Fatal("two live copies of one session")
		}
	}
	if m.LiveCount() != 1 {
		t.Fatalf("%d live sessions, want 1", m.LiveCount())
	}
	infos, err := m.List(ctx, "")
	if err != nil || len(infos) != 1 || !infos[0].Live {
		t.Fatalf("List %+v, %v: want the one session, live (not also its stored copy)", infos, err)
	}
}

func TestProjectsAreRememberedAcrossManagers(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	a, b := scriptProject(t), scriptProject(t)
	m := newManager(t, state)
	for _, dir := range []string{a, b, a} {
		if _, err := m.Create(ctx, CreateOptions{Cwd: dir, Script: "s.yaml"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, CreateOptions{Cwd: a, Script: "s.yaml"}); !errors.Is(err, ErrShuttingDown) {
		t.Fatalf("Create after Shutdown: %v", err)
	}
	again := newManager(t, state)
	if got := again.projects.list(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("remembered projects %v", got)
	}
	infos, err := again.List(ctx, "")
	if err != nil || len(infos) != 3 {
		t.Fatalf("List after restart: %d sessions, %v", len(infos), err)
	}
	only, err := again.List(ctx, b)
	if err != nil || len(only) != 1 || only[0].Cwd != b {
		t.Fatalf("List of %s: %+v, %v", b, only, err)
	}
}

func TestCreateOptionErrorsNameTheOption(t *testing.T) {
	m := newManager(t, "")
	dir := scriptProject(t)
	cases := map[string]CreateOptions{
		"Cwd":            {Cwd: "rel"},
		"PermissionMode": {Cwd: dir, Script: "s.yaml", PermissionMode: "yolo"},
		"Allow":          {Cwd: dir, Script: "s.yaml", Allow: []string{"Bash("}},
		"Deny":           {Cwd: dir, Script: "s.yaml", Deny: []string{"Edit("}},
		"Script":         {Cwd: dir, Script: "missing.yaml"},
		"Provider":       {Cwd: dir, Provider: "nope"},
		"Fork":           {Cwd: dir, Script: "s.yaml", Fork: true},
		"Resume":         {Cwd: dir, Script: "s.yaml", Resume: "a/b"},
	}
	for field, o := range cases {
		_, err := m.Create(context.Background(), o)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: error %v, want a FieldError naming it", field, err)
		}
	}
	if _, err := m.Create(context.Background(), CreateOptions{Cwd: dir, Script: "s.yaml", Resume: "unknown"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown resume id: %v", err)
	}
	if err := m.Close(context.Background(), "unknown", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Close unknown: %v", err)
	}
	if err := m.Delete(context.Background(), "unknown"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete unknown: %v", err)
	}
}

// Past the live-session limit Create fails with ErrTooManySessions, before any session is
// loaded; a live session is still returned on resume, and closing one frees a slot.
func TestLiveSessionLimit(t *testing.T) {
	ctx := context.Background()
	dir := scriptProject(t)
	m, err := New(Config{Home: t.TempDir(), Env: noEnv, StateDir: t.TempDir(), MaxLive: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(ctx)
	a, err := m.Create(ctx, CreateOptions{Cwd: dir, Script: "s.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, CreateOptions{Cwd: dir, Script: "s.yaml"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, CreateOptions{Cwd: dir, Script: "s.yaml"}); !errors.Is(err, ErrTooManySessions) {
		t.Fatalf("third session: %v, want ErrTooManySessions", err)
	}
	if l, err := m.Create(ctx, CreateOptions{Cwd: dir, Script: "s.yaml", Resume: a.ID()}); err != nil || l != a {
		t.Fatalf("resuming a live session at the limit: %v", err)
	}
	if err := m.Close(ctx, a.ID(), "other"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, CreateOptions{Cwd: dir, Script: "s.yaml"}); err != nil {
		t.Fatalf("after a close: %v", err)
	}
	if m.LiveCount() != 2 {
		t.Fatalf("%d live, want 2", m.LiveCount())
	}
}

// DESIGN decision 3 over the engine: a session started in the temporary directory is
// stored under the user's ~/.robota; the engine lists, continues and deletes it there,
// and creates no .robota in the temporary directory.
func TestSessionsOutsideAProjectLiveInTheUserStore(t *testing.T) {
	ctx := context.Background()
	state, home, tmp := t.TempDir(), t.TempDir(), scriptProject(t)
	t.Setenv("TMPDIR", tmp)
	open := func() *Manager {
		m, err := New(Config{Home: home, Env: noEnv, StateDir: state})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := open()
	l, err := m.Create(ctx, CreateOptions{Cwd: tmp, Script: "s.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	id := l.ID()
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(home, ".robota", "sessions", id+".jsonl")
	if _, err := os.Stat(record); err != nil {
		t.Fatalf("record not in the user's store: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(tmp, ".robota")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a .robota was created in the temporary directory (%v)", err)
	}
	again := open()
	t.Cleanup(func() { _ = again.Shutdown(context.Background()) })
	infos, err := again.List(ctx, tmp)
	if err != nil || len(infos) != 1 || infos[0].ID != id {
		t.Fatalf("List of %s: %+v, %v; want %s", tmp, infos, err, id)
	}
	cont, err := again.Create(ctx, CreateOptions{Cwd: tmp, Script: "s.yaml", Continue: true})
	if err != nil || cont.ID() != id {
		t.Fatalf("Continue in %s: %v, %v; want %s", tmp, cont, err, id)
	}
	if err := again.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Delete left the record: %v", err)
	}
}
