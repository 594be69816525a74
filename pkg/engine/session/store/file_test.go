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

// TestFileStoreGolden pins the on-disk format: the spec's member names, messages and
// history always present, extension members kept.
func TestFileStoreGolden(t *testing.T) {
	s, dir := newFileStore(t)
	rec := storetest.SampleRecord("golden")
	if err := s.Save(context.Background(), &rec); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "record.golden.json")
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
		t.Errorf("record file differs from %s (run with -update to accept):\n%s", golden, got)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(got, &members); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"id", "cwd", "name", "createdAt", "updatedAt", "messages", "history",
		"systemPrompt", "toolSchemas", "backgroundTasks", "backgroundTaskEvents", "backgroundJobGroups",
		"backgroundJobGroupEvents", "memoryEvents", "usedMemoryReferences", "contextReferences",
		"sandboxSnapshotId", "provider"} {
		if _, ok := members[name]; !ok {
			t.Errorf("record file lacks member %q", name)
		}
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
	if err != nil || path != filepath.Join(dir, "abc-123.json") {
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
	other := storetest.SampleRecord("other")
	otherJSON, _ := json.Marshal(other)
	files := map[string]string{
		"garbage.json":   "{not json",
		"truncated.json": `{"id":"truncated","cwd":"/w","createdAt":"2026-03-01T12:00:00Z","upd`,
		"wrongid.json":   string(otherJSON), // holds session "other"
		"nostamp.json":   `{"id":"nostamp","cwd":"/w","messages":[],"history":[]}`,
		// Not records at all: ignored, not reported.
		".good.json.tmp-123": "{partial",
		"notes.txt":          "hello",
		"bad..name.json":     "{}",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
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
	want := "garbage.json,nostamp.json,truncated.json,wrongid.json"
	if got := strings.Join(paths, ","); got != want {
		t.Errorf("corrupt paths = %s, want %s", got, want)
	}
	_, err = s.Load(ctx, "garbage")
	var ce *store.CorruptError
	if !errors.As(err, &ce) || ce.Path != filepath.Join(dir, "garbage.json") {
		t.Errorf("Load(garbage) = %v, want *CorruptError with its path", err)
	}
	if _, err := store.LatestForCwd(ctx, s, "/work/project"); err != nil {
		t.Errorf("LatestForCwd with corrupt neighbours: %v", err)
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
	stale := filepath.Join(dir, ".s1.json.tmp-111")
	fresh := filepath.Join(dir, ".s1.json.tmp-222") // maybe a concurrent save: kept
	other := filepath.Join(dir, ".s2.json.tmp-333") // another record's: kept
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
