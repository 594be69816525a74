package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// NewStore returns an empty store using opts (its clock must be honoured).
type NewStore func(t *testing.T, opts store.Options) store.Store

// Run runs the conformance suite against stores made by newStore.
func Run(t *testing.T, newStore NewStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store, clock *Clock)
	}{
		{"SaveLoadRoundTrip", testRoundTrip},
		{"SaveStampsTimestamps", testStamps},
		{"LoadMissingIsNotFound", testLoadMissing},
		{"DeleteMissingIsNoop", testDeleteMissing},
		{"DeleteRemoves", testDelete},
		{"OverwriteKeepsOneRecord", testOverwrite},
		{"ListNewestFirst", testListOrder},
		{"InvalidIDsRejected", testInvalidIDs},
		{"ReturnedRecordsAreCopies", testCopies},
		{"LatestForCwd", testLatestForCwd},
		{"ForkLeavesOriginalUnchanged", testFork},
		{"ForkErrors", testForkErrors},
		{"ConcurrentSaves", testConcurrentSaves},
		{"CancelledContext", testCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := NewClock(Epoch)
			tt.fn(t, newStore(t, store.Options{Now: clock.Now}), clock)
		})
	}
}

func mustSave(t *testing.T, s store.Store, r *store.Record) {
	t.Helper()
	if err := s.Save(context.Background(), r); err != nil {
		t.Fatalf("Save(%s): %v", r.ID, err)
	}
}

func mustLoad(t *testing.T, s store.Store, id string) store.Record {
	t.Helper()
	r, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatalf("Load(%s): %v", id, err)
	}
	return r
}

func mustList(t *testing.T, s store.Store) store.Listing {
	t.Helper()
	l, err := s.List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(l.Corrupt) != 0 {
		t.Fatalf("List reported corrupt records: %v", l.Corrupt)
	}
	return l
}

func ids(recs []store.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// equalRecords compares records through their JSON form (the contract of every backend).
func equalRecords(t *testing.T, got, want store.Record) {
	t.Helper()
	g, err1 := json.Marshal(got)
	w, err2 := json.Marshal(want)
	if err1 != nil || err2 != nil {
		t.Fatalf("marshal: %v %v", err1, err2)
	}
	var gv, wv any
	_ = json.Unmarshal(g, &gv)
	_ = json.Unmarshal(w, &wv)
	if !reflect.DeepEqual(gv, wv) {
		t.Errorf("records differ:\n got %s\nwant %s", g, w)
	}
}

func testRoundTrip(t *testing.T, s store.Store, _ *Clock) {
	rec := SampleRecord("s1")
	mustSave(t, s, &rec)
	equalRecords(t, mustLoad(t, s, "s1"), rec)
	if got := compact(t, mustLoad(t, s, "s1").Extra["provider"]); got != `{"name":"script","model":"m1"}` {
		t.Errorf("Extra member = %s", got)
	}
	empty := store.Record{ID: "empty", Cwd: "/w"}
	mustSave(t, s, &empty)
	if got := mustLoad(t, s, "empty"); got.Messages == nil || got.History == nil {
		t.Errorf("empty record: messages %v history %v, want empty non-nil slices", got.Messages, got.History)
	}
}

func testStamps(t *testing.T, s store.Store, clock *Clock) {
	rec := store.Record{ID: "s1", Cwd: "/w"}
	mustSave(t, s, &rec)
	if !rec.CreatedAt.Equal(Epoch) || !rec.UpdatedAt.Equal(Epoch) {
		t.Fatalf("first save: createdAt %v updatedAt %v, want %v", rec.CreatedAt, rec.UpdatedAt, Epoch)
	}
	clock.Advance(time.Minute)
	mustSave(t, s, &rec)
	got := mustLoad(t, s, "s1")
	if !got.CreatedAt.Equal(Epoch) || !got.UpdatedAt.Equal(Epoch.Add(time.Minute)) {
		t.Errorf("second save: createdAt %v updatedAt %v", got.CreatedAt, got.UpdatedAt)
	}
	if !rec.UpdatedAt.Equal(got.UpdatedAt) {
		t.Errorf("Save did not report the stamp to the caller: %v vs %v", rec.UpdatedAt, got.UpdatedAt)
	}
}

func testLoadMissing(t *testing.T, s store.Store, _ *Clock) {
	_, err := s.Load(context.Background(), "nope")
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load(missing) = %v, want ErrNotFound", err)
	}
}

func testDeleteMissing(t *testing.T, s store.Store, _ *Clock) {
	if err := s.Delete(context.Background(), "nope"); err != nil {
		t.Fatalf("Delete(missing) = %v, want nil", err)
	}
}

func testDelete(t *testing.T, s store.Store, _ *Clock) {
	a, b := SampleRecord("a"), SampleRecord("b")
	mustSave(t, s, &a)
	mustSave(t, s, &b)
	if err := s.Delete(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(context.Background(), "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load after Delete = %v, want ErrNotFound", err)
	}
	if got := ids(mustList(t, s).Records); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("List after Delete = %v", got)
	}
}

func testOverwrite(t *testing.T, s store.Store, clock *Clock) {
	rec := SampleRecord("s1")
	mustSave(t, s, &rec)
	clock.Advance(time.Second)
	rec.Messages = append(rec.Messages, llm.Message{ID: "m5", Role: llm.RoleUser, State: llm.StateComplete, Content: []llm.Part{llm.TextPart("more")}})
	mustSave(t, s, &rec)
	l := mustList(t, s)
	if len(l.Records) != 1 || len(l.Records[0].Messages) != 5 {
		t.Fatalf("after overwrite: %d records, want 1 with 5 messages", len(l.Records))
	}
}

func testListOrder(t *testing.T, s store.Store, clock *Clock) {
	if l := mustList(t, s); len(l.Records) != 0 {
		t.Fatalf("empty store lists %v", ids(l.Records))
	}
	for _, id := range []string{"old", "mid", "new"} {
		r := SampleRecord(id)
		mustSave(t, s, &r)
		clock.Advance(time.Second)
	}
	tieA, tieB := SampleRecord("tie-b"), SampleRecord("tie-a")
	clock.Advance(-10 * time.Second) // both older than everything else, same instant
	mustSave(t, s, &tieA)
	mustSave(t, s, &tieB)
	clock.Advance(20 * time.Second)
	old := mustLoad(t, s, "old")
	mustSave(t, s, &old) // touching "old" makes it the newest
	want := []string{"old", "new", "mid", "tie-a", "tie-b"}
	if got := ids(mustList(t, s).Records); !reflect.DeepEqual(got, want) {
		t.Errorf("List order = %v, want %v", got, want)
	}
}

func testInvalidIDs(t *testing.T, s store.Store, _ *Clock) {
	ctx := context.Background()
	for _, id := range InvalidIDs {
		rec := SampleRecord("x")
		rec.ID = id
		if err := s.Save(ctx, &rec); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Save(%q) = %v, want ErrInvalidID", id, err)
		}
		if _, err := s.Load(ctx, id); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Load(%q) = %v, want ErrInvalidID", id, err)
		}
		if err := s.Delete(ctx, id); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidID", id, err)
		}
	}
	if l := mustList(t, s); len(l.Records) != 0 {
		t.Errorf("invalid IDs left records: %v", ids(l.Records))
	}
}

func testCopies(t *testing.T, s store.Store, _ *Clock) {
	rec := SampleRecord("s1")
	mustSave(t, s, &rec)
	rec.Messages[0].Content[0].Text = "mutated after save"
	got := mustLoad(t, s, "s1")
	if got.Messages[0].Text() == "mutated after save" {
		t.Fatal("store shares memory with the saved record")
	}
	got.Messages[1].Content[0].Text = "mutated after load"
	if mustLoad(t, s, "s1").Messages[1].Text() == "mutated after load" {
		t.Fatal("store shares memory with a loaded record")
	}
}

func testLatestForCwd(t *testing.T, s store.Store, clock *Clock) {
	ctx := context.Background()
	if _, err := store.LatestForCwd(ctx, s, "/p"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("LatestForCwd on empty store = %v, want ErrNotFound", err)
	}
	for i, cwd := range []string{"/p", "/q", "/p/", "/q"} {
		r := store.Record{ID: fmt.Sprintf("r%d", i), Cwd: cwd}
		mustSave(t, s, &r)
		clock.Advance(time.Second)
	}
	got, err := store.LatestForCwd(ctx, s, "/p")
	if err != nil || got.ID != "r2" {
		t.Errorf("LatestForCwd(/p) = %q, %v; want r2", got.ID, err)
	}
	if got, err := store.LatestForCwd(ctx, s, "/q"); err != nil || got.ID != "r3" {
		t.Errorf("LatestForCwd(/q) = %q, %v; want r3", got.ID, err)
	}
	if _, err := store.LatestForCwd(ctx, s, "/elsewhere"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LatestForCwd(/elsewhere) = %v, want ErrNotFound", err)
	}
}

func testFork(t *testing.T, s store.Store, clock *Clock) {
	orig := SampleRecord("orig")
	mustSave(t, s, &orig)
	before := mustLoad(t, s, "orig")
	clock.Advance(time.Hour)
	fork, err := store.Fork(context.Background(), s, "orig", "forked")
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID != "forked" || !fork.CreatedAt.Equal(Epoch.Add(time.Hour)) || !fork.UpdatedAt.Equal(Epoch.Add(time.Hour)) {
		t.Errorf("fork id %q createdAt %v updatedAt %v", fork.ID, fork.CreatedAt, fork.UpdatedAt)
	}
	equalRecords(t, mustLoad(t, s, "orig"), before)
	loaded := mustLoad(t, s, "forked")
	if !reflect.DeepEqual(messagesJSON(t, loaded), messagesJSON(t, before)) || loaded.Cwd != before.Cwd ||
		compact(t, loaded.Extra["provider"]) != compact(t, before.Extra["provider"]) {
		t.Error("fork does not carry the original's conversation")
	}
	if got := ids(mustList(t, s).Records); !reflect.DeepEqual(got, []string{"forked", "orig"}) {
		t.Errorf("List after fork = %v", got)
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return b.String()
}

func messagesJSON(t *testing.T, r store.Record) string {
	t.Helper()
	b, err := json.Marshal(r.Messages)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testForkErrors(t *testing.T, s store.Store, _ *Clock) {
	ctx := context.Background()
	if _, err := store.Fork(ctx, s, "missing", "new"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Fork(missing) = %v, want ErrNotFound", err)
	}
	a, b := SampleRecord("a"), SampleRecord("b")
	mustSave(t, s, &a)
	mustSave(t, s, &b)
	if _, err := store.Fork(ctx, s, "a", "b"); !errors.Is(err, store.ErrExists) {
		t.Errorf("Fork onto existing = %v, want ErrExists", err)
	}
	if _, err := store.Fork(ctx, s, "a", "a"); !errors.Is(err, store.ErrExists) {
		t.Errorf("Fork onto itself = %v, want ErrExists", err)
	}
	if _, err := store.Fork(ctx, s, "a", "../x"); !errors.Is(err, store.ErrInvalidID) {
		t.Errorf("Fork to invalid id = %v, want ErrInvalidID", err)
	}
	equalRecords(t, mustLoad(t, s, "b"), b)
}

func testConcurrentSaves(t *testing.T, s store.Store, _ *Clock) {
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r := SampleRecord(fmt.Sprintf("c%d", i))
			errs <- s.Save(context.Background(), &r)
		}()
		go func() {
			defer wg.Done()
			r := SampleRecord("shared")
			r.Name = fmt.Sprintf("writer %d", i)
			errs <- s.Save(context.Background(), &r)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if l := mustList(t, s); len(l.Records) != 21 {
		t.Errorf("List has %d records, want 21", len(l.Records))
	}
	mustLoad(t, s, "shared")
}

func testCancelled(t *testing.T, s store.Store, _ *Clock) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := SampleRecord("s1")
	if err := s.Save(ctx, &rec); !errors.Is(err, context.Canceled) {
		t.Errorf("Save with cancelled ctx = %v", err)
	}
	if _, err := s.Load(context.Background(), "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("cancelled Save wrote a record: %v", err)
	}
}
