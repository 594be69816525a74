package interactive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/checkpoint"
)

// resumeSession opens the stored session id again with its own ids.
func resumeSession(t *testing.T, dir, id, prefix string) *InteractiveSession {
	t.Helper()
	var n atomic.Int64
	r, err := New(context.Background(), Options{Cwd: dir, Resume: id, Home: t.TempDir(), Env: envOf(nil), LLM: scriptProvider(t, commandScript),
		NewID: func() string { return fmt.Sprintf("%s-%03d", prefix, n.Add(1)) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background(), "other") })
	return r
}

func checkpointIDs(t *testing.T, s *InteractiveSession) []string {
	t.Helper()
	list, err := s.EditCheckpoints()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, cp := range list {
		ids = append(ids, cp.ID)
	}
	return ids
}

// Prompts that edit nothing cost one index line each (no directory of their own), are
// listed after a resume, and the conversation can be rewound to one of them; the
// checkpoints a rewind drops stay dropped after the next resume.
func TestEditlessCheckpointsAfterResume(t *testing.T) {
	dir := t.TempDir()
	s := newTestSession(t, scriptProvider(t, commandScript), Options{Cwd: dir})
	first := submitAndWait(t, s, "one")
	kept := len(s.Session().Messages())
	second := submitAndWait(t, s, "two")
	third := submitAndWait(t, s, "three")
	if err := s.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	cpDir := filepath.Join(dir, ".robota", "checkpoints", s.ID())
	entries, err := os.ReadDir(cpDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != checkpoint.IndexFile {
		t.Fatalf("checkpoint directory holds %v, want only the index", entries)
	}

	r := resumeSession(t, dir, s.ID(), "r")
	if ids := checkpointIDs(t, r); !slices.Equal(ids, []string{third, second, first}) {
		t.Fatalf("checkpoints after resume %v, want %v", ids, []string{third, second, first})
	}
	fourth := submitAndWait(t, r, "four") // the index is open for appending from here
	res, err := r.ExecuteCommand(context.Background(), "rewind", second)
	if err != nil || !res.Success || res.Data["messages"] != kept {
		t.Fatalf("/rewind %s = %+v, %v", second, res, err)
	}
	// The rewind rewrote the index: the next prompt's line must land in the new file.
	again := submitAndWait(t, r, "again")
	if ids := checkpointIDs(t, r); !slices.Equal(ids, []string{again, second, first}) || slices.Contains(ids, fourth) {
		t.Fatalf("checkpoints after rewinding and a new prompt %v, want %v", ids, []string{again, second, first})
	}
	if err := r.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	r2 := resumeSession(t, dir, s.ID(), "r2")
	list, err := r2.EditCheckpoints()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != again || list[1].ID != second || list[2].ID != first || list[0].Seq != list[1].Seq+1 {
		t.Fatalf("checkpoints after rewind and resume %+v, want %v", list, []string{again, second, first})
	}
	if got := len(r2.Session().Messages()); got != list[0].Messages+2 || list[0].Messages != kept {
		t.Errorf("resumed conversation has %d messages; the last prompt began at %d, want %d", got, list[0].Messages, kept)
	}
}

// writeOldCheckpoint writes a checkpoint as versions before the index did: a directory
// with its manifest and nothing else.
func writeOldCheckpoint(t *testing.T, cpDir string, cp Checkpoint) {
	t.Helper()
	b, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cpDir, cp.ID, checkpoint.ManifestFile), string(b))
}

// Checkpoints written before the index (a manifest per prompt) still load, and stay
// listed once the session's next prompt has written the index.
func TestCheckpointsWithoutIndexLoad(t *testing.T) {
	dir := t.TempDir()
	s := newTestSession(t, scriptProvider(t, commandScript), Options{Cwd: dir})
	submitAndWait(t, s, "one") // stores the session
	if err := s.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	cpDir := filepath.Join(dir, ".robota", "checkpoints", s.ID())
	if err := os.RemoveAll(cpDir); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	target := filepath.Join(dir, "a.txt")
	writeOldCheckpoint(t, cpDir, Checkpoint{ID: "old-1", Seq: 1, Prompt: "first", Messages: 0, CreatedAt: at, Files: []CheckpointFile{}})
	writeOldCheckpoint(t, cpDir, Checkpoint{ID: "old-2", Seq: 2, Prompt: "second", Messages: 2, CreatedAt: at,
		Files: []CheckpointFile{{Path: target, Existed: false}}})
	writeFile(t, filepath.Join(cpDir, "torn", checkpoint.ManifestFile), `{"id": "torn", "se`) // died mid-write

	r := resumeSession(t, dir, s.ID(), "r")
	if ids := checkpointIDs(t, r); !slices.Equal(ids, []string{"old-2", "old-1"}) {
		t.Fatalf("old checkpoints %v", ids)
	}
	third := submitAndWait(t, r, "three")
	if err := r.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	r2 := resumeSession(t, dir, s.ID(), "r2")
	list, err := r2.EditCheckpoints()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != third || list[0].Seq != 3 || list[1].ID != "old-2" || list[2].ID != "old-1" {
		t.Fatalf("checkpoints after the index was written: %+v", list)
	}
	if f := list[1].FilePaths(); !slices.Equal(f, []string{target}) || list[1].Prompt != "second" || !list[1].CreatedAt.Equal(at) {
		t.Errorf("old checkpoint read back as %+v", list[1])
	}
	// Its pre-image still restores: a.txt did not exist before "second".
	writeFile(t, target, "made later\n")
	if res, _ := r2.ExecuteCommand(context.Background(), "rewind", "code old-2"); !res.Success {
		t.Fatalf("/rewind code old-2 = %+v", res)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("a.txt still exists after rewinding to before it: %v", err)
	}
}

// A line cut short by a crash is skipped, and the next prompt's line is readable.
func TestCheckpointIndexTornLine(t *testing.T) {
	dir := t.TempDir()
	s := newTestSession(t, scriptProvider(t, commandScript), Options{Cwd: dir})
	first := submitAndWait(t, s, "one")
	if err := s.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, ".robota", "checkpoints", s.ID(), checkpoint.IndexFile)
	f, err := os.OpenFile(index, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"cut","seq":2,"pro`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := resumeSession(t, dir, s.ID(), "r")
	if ids := checkpointIDs(t, r); !slices.Equal(ids, []string{first}) {
		t.Fatalf("checkpoints with a torn line %v, want %v", ids, []string{first})
	}
	second := submitAndWait(t, r, "two")
	if err := r.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	r2 := resumeSession(t, dir, s.ID(), "r2")
	if ids := checkpointIDs(t, r2); !slices.Equal(ids, []string{second, first}) {
		t.Fatalf("checkpoints after a prompt past the torn line %v, want %v", ids, []string{second, first})
	}
}
