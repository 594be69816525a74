package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// Harness is what the suite needs from a backend: empty stores, and access to the bytes
// a store keeps for a session so the suite can tear and inspect them.
type Harness struct {
	// New returns an empty store using opts (its clock and OnWarning must be honoured).
	New func(t *testing.T, opts store.Options) store.Store
	// Raw returns the bytes stored for id (the journal), nil when there are none.
	Raw func(t *testing.T, s store.Store, id string) []byte
	// SetRaw replaces the journal of id with data, as a crash could have left it.
	SetRaw func(t *testing.T, s store.Store, id string, data []byte)
	// SetLegacy stores data as id's record in the whole-record format of earlier versions.
	SetLegacy func(t *testing.T, s store.Store, id string, data []byte)
}

// env is one test's store, clock and collected warnings.
type env struct {
	h     Harness
	s     store.Store
	clock *Clock
	mu    sync.Mutex
	warns []error
}

func (e *env) warnings() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.warns...)
}

// Run runs the conformance suite against h.
func Run(t *testing.T, h Harness) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"SaveLoadRoundTrip", testRoundTrip},
		{"SaveStampsTimestamps", testStamps},
		{"LoadMissingIsNotFound", testLoadMissing},
		{"DeleteMissingIsNoop", testDeleteMissing},
		{"DeleteRemoves", testDelete},
		{"SaveReplaces", testOverwrite},
		{"ListNewestFirst", testListOrder},
		{"InvalidIDsRejected", testInvalidIDs},
		{"ReturnedRecordsAreCopies", testCopies},
		{"LatestForCwd", testLatestForCwd},
		{"ForkLeavesOriginalUnchanged", testFork},
		{"ForkSharesNotTheFuture", testForkIndependent},
		{"ForkErrors", testForkErrors},
		{"ConcurrentSaves", testConcurrentSaves},
		{"ConcurrentAppends", testConcurrentAppends},
		{"CancelledContext", testCancelled},
		{"AppendRoundsNeverRewrites", testAppend},
		{"AppendHeaderSupersedes", testHeaderSupersedes},
		{"AppendConflicts", testAppendConflicts},
		{"ResetAppendsAMarker", testReset},
		{"ReplaceMessage", testReplace},
		{"TornTailAtEveryByte", testTornTail},
		{"OldFormatLoadsAndMigrates", testOldFormat},
		{"ListReadsNoMessages", testListReadsNoMessages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{h: h, clock: NewClock(Epoch)}
			e.s = h.New(t, store.Options{Now: e.clock.Now, OnWarning: func(err error) {
				e.mu.Lock()
				e.warns = append(e.warns, err)
				e.mu.Unlock()
			}})
			tt.fn(t, e)
		})
	}
}

func mustSave(t *testing.T, s store.Store, r *store.Record) {
	t.Helper()
	if err := s.Save(context.Background(), r); err != nil {
		t.Fatalf("Save(%s): %v", r.ID, err)
	}
}

func mustAppend(t *testing.T, s store.Store, d *store.Delta) {
	t.Helper()
	if err := s.Append(context.Background(), d); err != nil {
		t.Fatalf("Append(%s): %v", d.ID, err)
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

func ids(infos []store.Info) []string {
	out := make([]string, len(infos))
	for i, r := range infos {
		out[i] = r.ID
	}
	return out
}

// canonical is a record's comparable form: its JSON with Extra and events spelled out.
func canonical(t *testing.T, r store.Record) string {
	t.Helper()
	type ev struct {
		After int
		Entry any
	}
	var evs []ev
	for _, e := range r.Events {
		var v any
		if err := json.Unmarshal(e.Entry, &v); err != nil {
			t.Fatalf("event entry %s: %v", e.Entry, err)
		}
		evs = append(evs, ev{e.After, v})
	}
	extra := map[string]any{}
	for k, raw := range r.Extra {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("extra %s: %v", k, err)
		}
		extra[k] = v
	}
	r.Events, r.Extra = nil, nil
	b, err := json.Marshal(struct {
		R      store.Record
		Events []ev
		Extra  map[string]any
	}{r, evs, extra})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	_ = json.Unmarshal(b, &v)
	out, _ := json.Marshal(v) // maps sorted: raw members compare by value
	return string(out)
}

func equalRecords(t *testing.T, got, want store.Record) {
	t.Helper()
	if g, w := canonical(t, got), canonical(t, want); g != w {
		t.Errorf("records differ:\n got %s\nwant %s", g, w)
	}
}

func header(id string) *store.Record {
	r := SampleRecord(id)
	r.Messages, r.Events = nil, nil
	return &r
}

func testRoundTrip(t *testing.T, e *env) {
	rec := SampleRecord("s1")
	mustSave(t, e.s, &rec)
	equalRecords(t, mustLoad(t, e.s, "s1"), rec)
	empty := store.Record{ID: "empty", Cwd: "/w"}
	mustSave(t, e.s, &empty)
	if got := mustLoad(t, e.s, "empty"); got.Messages == nil || len(got.Events) != 0 {
		t.Errorf("empty record: messages %v events %v, want an empty non-nil history", got.Messages, got.Events)
	}
}

func testStamps(t *testing.T, e *env) {
	rec := store.Record{ID: "s1", Cwd: "/w"}
	mustSave(t, e.s, &rec)
	if !rec.CreatedAt.Equal(Epoch) || !rec.UpdatedAt.Equal(Epoch) {
		t.Fatalf("first save: createdAt %v updatedAt %v, want %v", rec.CreatedAt, rec.UpdatedAt, Epoch)
	}
	e.clock.Advance(time.Minute)
	mustSave(t, e.s, &rec)
	got := mustLoad(t, e.s, "s1")
	if !got.CreatedAt.Equal(Epoch) || !got.UpdatedAt.Equal(Epoch.Add(time.Minute)) {
		t.Errorf("second save: createdAt %v updatedAt %v", got.CreatedAt, got.UpdatedAt)
	}
	if !rec.UpdatedAt.Equal(got.UpdatedAt) {
		t.Errorf("Save did not report the stamp to the caller: %v vs %v", rec.UpdatedAt, got.UpdatedAt)
	}
	e.clock.Advance(time.Minute)
	mustAppend(t, e.s, &store.Delta{ID: "s1", Messages: Round(1)})
	if got := mustLoad(t, e.s, "s1"); !got.UpdatedAt.Equal(Epoch.Add(2*time.Minute)) || !got.CreatedAt.Equal(Epoch) {
		t.Errorf("after append: createdAt %v updatedAt %v", got.CreatedAt, got.UpdatedAt)
	}
}

func testLoadMissing(t *testing.T, e *env) {
	_, err := e.s.Load(context.Background(), "nope")
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load(missing) = %v, want ErrNotFound", err)
	}
}

func testDeleteMissing(t *testing.T, e *env) {
	if err := e.s.Delete(context.Background(), "nope"); err != nil {
		t.Fatalf("Delete(missing) = %v, want nil", err)
	}
}

func testDelete(t *testing.T, e *env) {
	a, b := SampleRecord("a"), SampleRecord("b")
	mustSave(t, e.s, &a)
	mustSave(t, e.s, &b)
	mustAppend(t, e.s, &store.Delta{ID: "a", Base: len(a.Messages), EventBase: 1, Messages: Round(1)})
	if err := e.s.Delete(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Load(context.Background(), "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load after Delete = %v, want ErrNotFound", err)
	}
	if got := ids(mustList(t, e.s).Sessions); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("List after Delete = %v", got)
	}
	// A deleted session starts anew.
	mustAppend(t, e.s, &store.Delta{ID: "a", Header: header("a"), Messages: Round(2)})
	if got := mustLoad(t, e.s, "a"); len(got.Messages) != 2 {
		t.Errorf("recreated session has %d messages, want 2", len(got.Messages))
	}
}

func testOverwrite(t *testing.T, e *env) {
	rec := SampleRecord("s1")
	mustSave(t, e.s, &rec)
	e.clock.Advance(time.Second)
	rec.Messages = append(rec.Messages, Round(1)[0])
	mustSave(t, e.s, &rec)
	l := mustList(t, e.s)
	if len(l.Sessions) != 1 || l.Sessions[0].Messages != 5 {
		t.Fatalf("after overwrite: %v, want 1 session with 5 messages", l.Sessions)
	}
	// Appends continue from the saved history.
	mustAppend(t, e.s, &store.Delta{ID: "s1", Base: 5, EventBase: 1, Messages: Round(2)})
	if got := mustLoad(t, e.s, "s1"); len(got.Messages) != 7 {
		t.Errorf("after append: %d messages, want 7", len(got.Messages))
	}
}

func testListOrder(t *testing.T, e *env) {
	if l := mustList(t, e.s); len(l.Sessions) != 0 {
		t.Fatalf("empty store lists %v", ids(l.Sessions))
	}
	for _, id := range []string{"old", "mid", "new"} {
		r := SampleRecord(id)
		mustSave(t, e.s, &r)
		e.clock.Advance(time.Second)
	}
	tieA, tieB := SampleRecord("tie-b"), SampleRecord("tie-a")
	e.clock.Advance(-10 * time.Second) // both older than everything else, same instant
	mustSave(t, e.s, &tieA)
	mustSave(t, e.s, &tieB)
	e.clock.Advance(20 * time.Second)
	// A round appended to "old" makes it the newest.
	mustAppend(t, e.s, &store.Delta{ID: "old", Base: 4, EventBase: 1, Messages: Round(1)})
	want := []string{"old", "new", "mid", "tie-a", "tie-b"}
	l := mustList(t, e.s)
	if got := ids(l.Sessions); !reflect.DeepEqual(got, want) {
		t.Errorf("List order = %v, want %v", got, want)
	}
	first := l.Sessions[0]
	if first.Cwd != "/work/project" || first.Name != "sample old" || first.Messages != 6 ||
		!first.CreatedAt.Equal(Epoch) || !first.UpdatedAt.Equal(Epoch.Add(13*time.Second)) {
		t.Errorf("List info = %+v", first)
	}
	if first.FirstPrompt != "read the file" {
		t.Errorf("List first prompt = %q, want the first user message", first.FirstPrompt)
	}
	// After a reset (a compaction, /clear) the first prompt is the new history's.
	f := llm.Factory{NewID: func() string { return "r" }, Now: func() time.Time { return Epoch }}
	long := strings.Repeat("word ", 40) + "\n\tend"
	mustAppend(t, e.s, &store.Delta{ID: "mid", Reset: true, Messages: []llm.Message{f.System("s"), f.User(long)}})
	for _, in := range mustList(t, e.s).Sessions {
		if in.ID == "mid" && (!strings.HasPrefix(in.FirstPrompt, "word word") || !strings.HasSuffix(in.FirstPrompt, "…") ||
			strings.ContainsAny(in.FirstPrompt, "\n\t") || len([]rune(in.FirstPrompt)) != 80) {
			t.Errorf("first prompt after a reset = %q, want the new history's, on one line, 80 runes", in.FirstPrompt)
		}
	}
}

func testInvalidIDs(t *testing.T, e *env) {
	ctx := context.Background()
	for _, id := range InvalidIDs {
		rec := SampleRecord("x")
		rec.ID = id
		if err := e.s.Save(ctx, &rec); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Save(%q) = %v, want ErrInvalidID", id, err)
		}
		if err := e.s.Append(ctx, &store.Delta{ID: id, Header: &rec}); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Append(%q) = %v, want ErrInvalidID", id, err)
		}
		if _, err := e.s.Load(ctx, id); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Load(%q) = %v, want ErrInvalidID", id, err)
		}
		if err := e.s.Delete(ctx, id); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidID", id, err)
		}
	}
	if l := mustList(t, e.s); len(l.Sessions) != 0 {
		t.Errorf("invalid IDs left records: %v", ids(l.Sessions))
	}
}

func testCopies(t *testing.T, e *env) {
	rec := SampleRecord("s1")
	mustSave(t, e.s, &rec)
	rec.Messages[0].Content[0].Text = "mutated after save"
	got := mustLoad(t, e.s, "s1")
	if got.Messages[0].Text() == "mutated after save" {
		t.Fatal("store shares memory with the saved record")
	}
	got.Messages[1].Content[0].Text = "mutated after load"
	if mustLoad(t, e.s, "s1").Messages[1].Text() == "mutated after load" {
		t.Fatal("store shares memory with a loaded record")
	}
}

func testLatestForCwd(t *testing.T, e *env) {
	ctx := context.Background()
	if _, err := store.LatestForCwd(ctx, e.s, "/p"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("LatestForCwd on empty store = %v, want ErrNotFound", err)
	}
	for i, cwd := range []string{"/p", "/q", "/p/", "/q"} {
		mustAppend(t, e.s, &store.Delta{ID: fmt.Sprintf("r%d", i), Header: &store.Record{Cwd: cwd}})
		e.clock.Advance(time.Second)
	}
	got, err := store.LatestForCwd(ctx, e.s, "/p")
	if err != nil || got.ID != "r2" {
		t.Errorf("LatestForCwd(/p) = %q, %v; want r2", got.ID, err)
	}
	// A round appended to r0 makes it the latest of /p.
	mustAppend(t, e.s, &store.Delta{ID: "r0", Messages: Round(1)})
	if got, err := store.LatestForCwd(ctx, e.s, "/p"); err != nil || got.ID != "r0" {
		t.Errorf("LatestForCwd(/p) after an append = %q, %v; want r0", got.ID, err)
	}
	if got, err := store.LatestForCwd(ctx, e.s, "/q"); err != nil || got.ID != "r3" {
		t.Errorf("LatestForCwd(/q) = %q, %v; want r3", got.ID, err)
	}
	if _, err := store.LatestForCwd(ctx, e.s, "/elsewhere"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LatestForCwd(/elsewhere) = %v, want ErrNotFound", err)
	}
	// A session whose file is unreadable may be the newest: --continue must not skip it.
	e.h.SetRaw(t, e.s, "r9", []byte(`{"k":"h","v":1,"h":{"id":"r9","cwd":"/p"`))
	var ce *store.CorruptError
	if _, err := store.LatestForCwd(ctx, e.s, "/p"); !errors.As(err, &ce) || !strings.Contains(ce.Error(), "r9") {
		t.Errorf("LatestForCwd with a corrupt newest record = %v, want its *CorruptError", err)
	}
}

func testFork(t *testing.T, e *env) {
	orig := SampleRecord("orig")
	mustSave(t, e.s, &orig)
	mustAppend(t, e.s, &store.Delta{ID: "orig", Base: 4, EventBase: 1, Messages: Round(1)})
	before := mustLoad(t, e.s, "orig")
	rawBefore := e.h.Raw(t, e.s, "orig")
	e.clock.Advance(time.Hour)
	fork, err := store.Fork(context.Background(), e.s, "orig", "forked")
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID != "forked" || fork.Parent != "orig" || !fork.CreatedAt.Equal(Epoch.Add(time.Hour)) || !fork.UpdatedAt.Equal(Epoch.Add(time.Hour)) {
		t.Errorf("fork id %q parent %q createdAt %v updatedAt %v", fork.ID, fork.Parent, fork.CreatedAt, fork.UpdatedAt)
	}
	if !bytes.Equal(e.h.Raw(t, e.s, "orig"), rawBefore) {
		t.Error("Fork wrote to the original")
	}
	loaded := mustLoad(t, e.s, "forked")
	equalRecords(t, loaded, fork)
	want := before
	// The copy is unnamed: a name (/rename) names one session, for --resume NAME.
	if before.Name == "" || fork.Name != "" {
		t.Errorf("parent name %q, fork name %q: want a named parent and an unnamed fork", before.Name, fork.Name)
	}
	want.ID, want.Parent, want.CreatedAt, want.UpdatedAt, want.Name = "forked", "orig", fork.CreatedAt, fork.UpdatedAt, ""
	equalRecords(t, loaded, want)
	// The fork holds the parent's journal as it was: its history is copied, not re-encoded.
	if raw := e.h.Raw(t, e.s, "forked"); !bytes.HasPrefix(raw, rawBefore) {
		t.Error("the fork's journal does not start with the parent's bytes")
	}
	if got := ids(mustList(t, e.s).Sessions); !reflect.DeepEqual(got, []string{"forked", "orig"}) {
		t.Errorf("List after fork = %v", got)
	}
}

func testForkIndependent(t *testing.T, e *env) {
	mustAppend(t, e.s, &store.Delta{ID: "p", Header: header("p"), Messages: Round(1)})
	if _, err := store.Fork(context.Background(), e.s, "p", "c"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, e.s, &store.Delta{ID: "p", Base: 2, Messages: Round(2)})
	mustAppend(t, e.s, &store.Delta{ID: "c", Base: 2, Messages: Round(3)})
	if got := texts(mustLoad(t, e.s, "p")); got != "round 1 <a & b>|content 1|round 2 <a & b>|content 2" {
		t.Errorf("parent = %s", got)
	}
	if got := texts(mustLoad(t, e.s, "c")); got != "round 1 <a & b>|content 1|round 3 <a & b>|content 3" {
		t.Errorf("fork = %s", got)
	}
}

func texts(r store.Record) string {
	var out []string
	for _, m := range r.Messages {
		t := m.Text()
		if tr, ok := m.ToolResult(); ok {
			t = tr.Content
		}
		out = append(out, t)
	}
	return strings.Join(out, "|")
}

func testForkErrors(t *testing.T, e *env) {
	ctx := context.Background()
	if _, err := store.Fork(ctx, e.s, "missing", "new"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Fork(missing) = %v, want ErrNotFound", err)
	}
	a, b := SampleRecord("a"), SampleRecord("b")
	mustSave(t, e.s, &a)
	mustSave(t, e.s, &b)
	if _, err := store.Fork(ctx, e.s, "a", "b"); !errors.Is(err, store.ErrExists) {
		t.Errorf("Fork onto existing = %v, want ErrExists", err)
	}
	if _, err := store.Fork(ctx, e.s, "a", "a"); !errors.Is(err, store.ErrExists) {
		t.Errorf("Fork onto itself = %v, want ErrExists", err)
	}
	if _, err := store.Fork(ctx, e.s, "a", "../x"); !errors.Is(err, store.ErrInvalidID) {
		t.Errorf("Fork to invalid id = %v, want ErrInvalidID", err)
	}
	equalRecords(t, mustLoad(t, e.s, "b"), b)
}

func testConcurrentSaves(t *testing.T, e *env) {
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r := SampleRecord(fmt.Sprintf("c%d", i))
			errs <- e.s.Save(context.Background(), &r)
		}()
		go func() {
			defer wg.Done()
			r := SampleRecord("shared")
			r.Name = fmt.Sprintf("writer %d", i)
			errs <- e.s.Save(context.Background(), &r)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if l := mustList(t, e.s); len(l.Sessions) != 21 {
		t.Errorf("List has %d records, want 21", len(l.Sessions))
	}
	mustLoad(t, e.s, "shared")
}

// testConcurrentAppends: writers append rounds to their own sessions while readers load
// and list; every load sees whole rounds, and the end state has every round.
func testConcurrentAppends(t *testing.T, e *env) {
	const writers, rounds = 6, 15
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds*3)
	for w := range writers {
		wg.Add(2)
		id := fmt.Sprintf("w%d", w)
		go func() {
			defer wg.Done()
			d := &store.Delta{ID: id, Header: header(id)}
			for r := range rounds {
				d.Messages, d.Base = Round(r), 2*r
				if err := e.s.Append(ctx, d); err != nil {
					errs <- err
					return
				}
				d.Header = nil
			}
		}()
		go func() {
			defer wg.Done()
			for range rounds {
				rec, err := e.s.Load(ctx, id)
				if errors.Is(err, store.ErrNotFound) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				if len(rec.Messages)%2 != 0 {
					errs <- fmt.Errorf("%s: load saw half a round (%d messages)", id, len(rec.Messages))
				}
				if _, err := e.s.List(ctx); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range writers {
		if got := mustLoad(t, e.s, fmt.Sprintf("w%d", w)); len(got.Messages) != 2*rounds {
			t.Errorf("w%d has %d messages, want %d", w, len(got.Messages), 2*rounds)
		}
	}
}

func testCancelled(t *testing.T, e *env) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := SampleRecord("s1")
	if err := e.s.Save(ctx, &rec); !errors.Is(err, context.Canceled) {
		t.Errorf("Save with cancelled ctx = %v", err)
	}
	if err := e.s.Append(ctx, &store.Delta{ID: "s1", Header: &rec}); !errors.Is(err, context.Canceled) {
		t.Errorf("Append with cancelled ctx = %v", err)
	}
	if _, err := e.s.Load(context.Background(), "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("cancelled Save wrote a record: %v", err)
	}
}
