package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestFileStoreConformance(t *testing.T) {
	path := func(t *testing.T, s store.Store, id, ext string) string {
		fs := s.(*store.FileStore)
		if err := os.MkdirAll(fs.Dir(), 0o700); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(fs.Dir(), id+ext)
	}
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T, opts store.Options) store.Store {
			return store.NewFileStore(filepath.Join(t.TempDir(), "sessions"), opts)
		},
		Raw: func(t *testing.T, s store.Store, id string) []byte {
			b, err := os.ReadFile(path(t, s, id, ".jsonl"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			return b
		},
		SetRaw: func(t *testing.T, s store.Store, id string, data []byte) {
			if err := os.WriteFile(path(t, s, id, ".jsonl"), data, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		SetLegacy: func(t *testing.T, s store.Store, id string, data []byte) {
			if err := os.WriteFile(path(t, s, id, ".json"), data, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	})
}

func newFileStore(t *testing.T) (*store.FileStore, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".robota", "sessions")
	clock := storetest.NewClock(storetest.Epoch)
	return store.NewFileStore(dir, store.Options{Now: clock.Now}), dir
}

// TestFileStoreGolden pins the on-disk format: a journal of one-line JSON values, the
// spec's member names in the header, extension members kept.
func TestFileStoreGolden(t *testing.T) {
	s, dir := newFileStore(t)
	rec := storetest.SampleRecord("golden")
	ctx := context.Background()
	if err := s.Append(ctx, &store.Delta{ID: "golden", Header: &rec, Messages: rec.Messages[:2], Events: rec.Events}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, &store.Delta{ID: "golden", Base: 2, EventBase: 1, Messages: rec.Messages[2:]}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "journal.golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("journal differs from %s (run with -update to accept):\n%s", golden, got)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
		var v map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("line %d is not one JSON object: %v", i+1, err)
		}
	}
	var h struct {
		H map[string]json.RawMessage `json:"h"`
	}
	for _, line := range strings.Split(string(got), "\n") {
		if strings.HasPrefix(line, `{"k":"h"`) {
			if err := json.Unmarshal([]byte(line), &h); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{"id", "cwd", "name", "createdAt", "systemPrompt", "toolSchemas", "backgroundTasks",
		"backgroundTaskEvents", "backgroundJobGroups", "backgroundJobGroupEvents", "memoryEvents",
		"usedMemoryReferences", "contextReferences", "sandboxSnapshotId", "extra"} {
		if _, ok := h.H[name]; !ok {
			t.Errorf("header lacks member %q", name)
		}
	}
}

// TestFileStoreReadsTheOldFormat: a record file of the whole-record format (the golden
// file earlier versions wrote) loads, lists, and turns into a journal on its first append.
func TestFileStoreReadsTheOldFormat(t *testing.T) {
	s, dir := newFileStore(t)
	old, err := os.ReadFile(filepath.Join("testdata", "record.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "golden.json"), old, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rec, err := s.Load(ctx, "golden")
	if err != nil {
		t.Fatal(err)
	}
	want := storetest.SampleRecord("golden")
	if len(rec.Messages) != 4 || rec.Messages[3].Role != llm.RoleTool || rec.Name != want.Name ||
		rec.SandboxSnapshotID != "snap-1" || len(rec.BackgroundTasks) != 1 || rec.Extra["provider"] == nil {
		t.Fatalf("old-format record loaded as %+v", rec)
	}
	if len(rec.Events) != 0 { // its one timeline entry is a chat entry
		t.Errorf("events = %v", rec.Events)
	}
	if l, err := s.List(ctx); err != nil || len(l.Sessions) != 1 || l.Sessions[0].Messages != 4 {
		t.Fatalf("List = %+v, %v", l, err)
	}
	if err := s.Append(ctx, &store.Delta{ID: "golden", Base: 4, Messages: storetest.Round(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "golden.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the old-format file is still there after the migration: %v", err)
	}
	if rec, err := s.Load(ctx, "golden"); err != nil || len(rec.Messages) != 6 || rec.Extra["provider"] == nil {
		t.Errorf("after migration: %d messages, %v", len(rec.Messages), err)
	}
}

func TestFileStoreLayoutAndModes(t *testing.T) {
	s, dir := newFileStore(t)
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("directory exists before the first save: %v", err)
	}
	if l, err := s.List(context.Background()); err != nil || len(l.Sessions) != 0 {
		t.Fatalf("List of a missing directory = %v, %v", l, err)
	}
	rec := store.Record{ID: "abc-123", Cwd: "/w"}
	if err := s.Save(context.Background(), &rec); err != nil {
		t.Fatal(err)
	}
	path, err := s.Path("abc-123")
	if err != nil || path != filepath.Join(dir, "abc-123.jsonl") {
		t.Fatalf("Path = %q, %v", path, err)
	}
	for p, want := range map[string]fs.FileMode{dir: 0o700 | fs.ModeDir, path: 0o600} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != want {
			t.Errorf("%s mode = %v, want %v", p, st.Mode(), want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after one save, want 1 (no temp files left)", len(entries))
	}
}

func TestFileStoreCorruptFiles(t *testing.T) {
	s, dir := newFileStore(t)
	ctx := context.Background()
	good := storetest.SampleRecord("good")
	if err := s.Save(ctx, &good); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"nocommit.jsonl": `{"k":"h","v":1,"h":{"id":"nocommit","cwd":"/w","createdAt":"2026-03-01T12:00:00Z"}}` + "\n",
		"garbage.json":   "{not json",
		"truncated.json": `{"id":"truncated","cwd":"/w","createdAt":"2026-03-01T12:00:00Z","upd`,
		"wrongid.json":   string(storetest.LegacyRecord("other")), // holds session "other"
		"nostamp.json":   `{"id":"nostamp","cwd":"/w","messages":[],"history":[]}`,
		// Not records at all: ignored, not reported.
		".good.jsonl.tmp-123": "{partial",
		"notes.txt":           "hello",
		"bad..name.json":      "{}",
	}
	old := storetest.Epoch.Add(-time.Hour) // older than the good session (saved at Epoch)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "subdir.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := s.List(ctx)
	if err != nil {
		t.Fatalf("List failed on corrupt files: %v", err)
	}
	if len(l.Sessions) != 1 || l.Sessions[0].ID != "good" {
		t.Errorf("List records = %v, want only good", l.Sessions)
	}
	var paths []string
	for _, c := range l.Corrupt {
		paths = append(paths, filepath.Base(c.Path))
		if !errors.Is(c, store.ErrCorrupt) || !strings.Contains(c.Error(), c.Path) {
			t.Errorf("corrupt error %v does not name its path or match ErrCorrupt", c)
		}
	}
	want := "garbage.json,nocommit.jsonl,nostamp.json,truncated.json,wrongid.json"
	if got := strings.Join(paths, ","); got != want {
		t.Errorf("corrupt paths = %s, want %s", got, want)
	}
	_, err = s.Load(ctx, "garbage")
	var ce *store.CorruptError
	if !errors.As(err, &ce) || ce.Path != filepath.Join(dir, "garbage.json") {
		t.Errorf("Load(garbage) = %v, want *CorruptError with its path", err)
	}
	if _, err := store.LatestForCwd(ctx, s, "/work/project"); err != nil {
		t.Errorf("LatestForCwd with older corrupt neighbours: %v", err)
	}
	// A corrupt file changed after the newest session may be the newest one: --continue
	// must say so rather than resume an older session.
	if err := os.Chtimes(filepath.Join(dir, "truncated.json"), time.Now().Add(time.Hour), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := store.LatestForCwd(ctx, s, "/work/project"); !errors.As(err, &ce) || ce.Path != filepath.Join(dir, "truncated.json") {
		t.Errorf("LatestForCwd with a newer corrupt record = %v, want its *CorruptError", err)
	}
	// File times come from the kernel's coarse clock: a file written just after the save
	// can read a few milliseconds older than the session's UpdatedAt, and still counts.
	good, err = s.Load(ctx, "good")
	if err != nil {
		t.Fatal(err)
	}
	justBefore := good.UpdatedAt.Add(-10 * time.Millisecond)
	if err := os.Chtimes(filepath.Join(dir, "truncated.json"), justBefore, justBefore); err != nil {
		t.Fatal(err)
	}
	if _, err := store.LatestForCwd(ctx, s, "/work/project"); !errors.As(err, &ce) || ce.Path != filepath.Join(dir, "truncated.json") {
		t.Errorf("LatestForCwd with a corrupt record written just after the save = %v, want its *CorruptError", err)
	}
}

// TestFileStoreRedactsSecrets: a key in a prompt, a tool output and a provider option must
// not reach disk, while the conversation stays readable.
func TestFileStoreRedactsSecrets(t *testing.T) {
	const key = "sk-ant-api03-SECRETSECRETSECRET0123456789abcdef"
	s, dir := newFileStore(t)
	f := llm.Factory{NewID: func() string { return "m" }, Now: func() time.Time { return storetest.Epoch }}
	rec := store.Record{
		ID:  "s1",
		Cwd: "/w",
		Messages: []llm.Message{
			f.User("please use " + key + " for the call"),
			f.Tool(llm.ToolResultPart{ToolCallID: "c1", ToolName: "Bash", Content: "ANTHROPIC_API_KEY=" + key}, map[string]any{"env": map[string]any{"apiKey": key}}),
		},
		Extra: map[string]json.RawMessage{"providerOptions": json.RawMessage(`{"apiKey":"` + key + `","headers":{"Authorization":"Bearer ` + key + `"}}`)},
	}
	if err := s.Save(context.Background(), &rec); err != nil {
		t.Fatal(err)
	}
	assertNoSecretUnder(t, filepath.Dir(dir), key)
	got, err := s.Load(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if text := got.Messages[0].Text(); text != "please use [REDACTED] for the call" {
		t.Errorf("redacted prompt = %q", text)
	}
}

func assertNoSecretUnder(t *testing.T, root, secret string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("secret found in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFileStoreRemovesStaleTempFiles(t *testing.T) {
	s, dir := newFileStore(t)
	rec := store.Record{ID: "s1", Cwd: "/w"}
	if err := s.Save(context.Background(), &rec); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".s1.jsonl.tmp-111")
	fresh := filepath.Join(dir, ".s1.jsonl.tmp-222") // maybe a concurrent save: kept
	other := filepath.Join(dir, ".s2.jsonl.tmp-333") // another record's: kept
	for _, p := range []string{stale, fresh, other} {
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{stale, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Save(context.Background(), &rec); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{stale: false, fresh: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

func TestDefaultDirs(t *testing.T) {
	if got := store.ProjectDir("/repo"); got != filepath.Join("/repo", ".robota", "sessions") {
		t.Errorf("ProjectDir = %s", got)
	}
	t.Setenv("HOME", "/home/tester")
	if got, err := store.UserDir(); err != nil || got != filepath.Join("/home/tester", ".robota", "sessions") {
		t.Errorf("UserDir = %s, %v", got, err)
	}
}

func TestValidateID(t *testing.T) {
	for _, id := range []string{"a", "0b8e9c1a-5f7d-4b6e-9c1d-2e3f4a5b6c7d", "session_1.v2", strings.Repeat("x", 128)} {
		if err := store.ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v", id, err)
		}
	}
	for _, id := range storetest.InvalidIDs {
		if err := store.ValidateID(id); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("ValidateID(%q) = %v, want ErrInvalidID", id, err)
		}
	}
}
