package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

// TestFileStoreStat: Stat describes a stored session as Load does (id, cwd, message
// count) from the journal's tail, and reports an unknown id as ErrNotFound.
func TestFileStoreStat(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "sessions")
	st := store.NewFileStore(dir, store.Options{})
	for _, n := range []int{1, 40, 2000} {
		msgs := storetest.SmallRounds(n)
		id := "stat-" + string(rune('a'+n%26))
		if err := st.Append(ctx, &store.Delta{ID: id, Header: &store.Record{Cwd: "/p", SystemPrompt: msgs[0].Text()},
			Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		info, err := st.Stat(ctx, id)
		if err != nil {
			t.Fatalf("%d messages: %v", n, err)
		}
		rec, err := st.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if info.ID != id || info.Cwd != "/p" || info.Messages != len(rec.Messages) {
			t.Errorf("%d messages: Stat = %+v; Load has %d messages", n, info, len(rec.Messages))
		}
	}
	if _, err := st.Stat(ctx, "no-such-session"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Stat of an unknown id: %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "no-such-session.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat created a file: %v", err)
	}
}
