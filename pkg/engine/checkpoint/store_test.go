package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func fixedNow() time.Time { return time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) }

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// A prompt's edits are undone by restoring its checkpoint: changed files get their first
// pre-image back, created files go, later checkpoints are dropped, and a file someone
// else changed since is kept. A second store over the same directory (a resume) sees it all.
func TestStoreRestores(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")
	write(t, a, "a0")
	write(t, c, "c0")
	s := NewStore(dir, "sess", fixedNow)

	// prompt 1 edits a twice and creates b; prompt 2 edits c, which a person then changes.
	if err := s.Begin("p1", "first prompt", 2); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ path, content string }{{a, "a1"}, {a, "a2"}, {b, "b1"}} {
		if err := s.Capture(step.path); err != nil {
			t.Fatal(err)
		}
		write(t, step.path, step.content)
		if err := s.Wrote(step.path); err != nil {
			t.Fatal(err)
		}
	}
	s.End()
	if err := s.Begin("p2", "second", 4); err != nil {
		t.Fatal(err)
	}
	if err := s.Capture(c); err != nil {
		t.Fatal(err)
	}
	write(t, c, "c1")
	if err := s.Wrote(c); err != nil {
		t.Fatal(err)
	}
	s.End()
	write(t, c, "changed by a person")
	s.Close()

	resumed := NewStore(dir, "sess", fixedNow)
	list, err := resumed.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != "p1" || list[1].ID != "p2" || list[0].Messages != 2 ||
		!slices.Equal(list[0].FilePaths(), []string{a, b}) {
		t.Fatalf("listed %+v", list)
	}
	if _, _, _, _, err := resumed.Restore("nope"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unknown id: %v", err)
	}
	cp, restored, removed, kept, err := resumed.Restore("p1")
	if err != nil {
		t.Fatal(err)
	}
	if cp.ID != "p1" || !slices.Equal(restored, []string{a}) || !slices.Equal(removed, []string{b}) ||
		!slices.Equal(kept, []string{c}) {
		t.Fatalf("restore: cp %s restored %v removed %v kept %v", cp.ID, restored, removed, kept)
	}
	for _, want := range []struct {
		path, content string
		exists        bool
	}{{a, "a0", true}, {b, "", false}, {c, "changed by a person", true}} {
		got, ok := read(t, want.path)
		if ok != want.exists || got != want.content {
			t.Errorf("%s: %q (exists %v), want %q (exists %v)", filepath.Base(want.path), got, ok, want.content, want.exists)
		}
	}
	if list, _ := resumed.List(); len(list) != 1 || list[0].ID != "p1" {
		t.Fatalf("after restore: %+v", list)
	}
}

// A line cut short by a crash is skipped, and the next checkpoint is still recorded.
func TestStoreSkipsATornIndexLine(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir, "sess", fixedNow)
	if err := s.Begin("p1", "one", 0); err != nil {
		t.Fatal(err)
	}
	s.End()
	s.Close()
	index := filepath.Join(dir, ".robota", "checkpoints", "sess", IndexFile)
	f, err := os.OpenFile(index, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"p2","se`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	again := NewStore(dir, "sess", fixedNow)
	if err := again.Begin("p3", "three", 1); err != nil {
		t.Fatal(err)
	}
	again.End()
	again.Close()
	list, err := NewStore(dir, "sess", fixedNow).List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, cp := range list {
		ids = append(ids, cp.ID)
	}
	if !slices.Equal(ids, []string{"p1", "p3"}) {
		t.Fatalf("ids %v", ids)
	}
}
