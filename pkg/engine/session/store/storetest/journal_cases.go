package storetest

// The suite's cases about the journal itself: appends that never rewrite, headers,
// conflicts, resets, replaced messages, torn tails, the old format, cheap listings.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// testAppend: each round adds bytes after the previous ones and never changes them; the
// load holds every round and the events in place.
func testAppend(t *testing.T, e *env) {
	ev := func(n int) store.Event {
		return store.Event{After: 2 * n, Entry: json.RawMessage(fmt.Sprintf(`{"id":"ev%d","category":"event","type":"note"}`, n))}
	}
	d := &store.Delta{ID: "s", Header: header("s"), Messages: Round(0)}
	mustAppend(t, e.s, d)
	prev := e.h.Raw(t, e.s, "s")
	for n := 1; n < 6; n++ {
		e.clock.Advance(time.Second)
		mustAppend(t, e.s, &store.Delta{ID: "s", Base: 2 * n, EventBase: n - 1, Messages: Round(n), Events: []store.Event{ev(n)}})
		raw := e.h.Raw(t, e.s, "s")
		if !bytes.HasPrefix(raw, prev) || len(raw) <= len(prev) {
			t.Fatalf("round %d rewrote earlier bytes", n)
		}
		prev = raw
	}
	rec := mustLoad(t, e.s, "s")
	if len(rec.Messages) != 12 || len(rec.Events) != 5 || rec.Events[0].After != 2 || rec.Events[4].After != 10 {
		t.Fatalf("loaded %d messages, events %v", len(rec.Messages), rec.Events)
	}
	for n := range 6 {
		if got := rec.Messages[2*n].Text(); got != fmt.Sprintf("round %d <a & b>", n) {
			t.Errorf("message %d = %q", 2*n, got)
		}
	}
	if !rec.UpdatedAt.Equal(Epoch.Add(5*time.Second)) || rec.Name != "sample s" {
		t.Errorf("updatedAt %v name %q", rec.UpdatedAt, rec.Name)
	}
	if len(e.warnings()) != 0 {
		t.Errorf("warnings on a clean journal: %v", e.warnings())
	}
	// An append that adds nothing writes nothing.
	mustAppend(t, e.s, &store.Delta{ID: "s", Base: 12, EventBase: 5, Header: header("s")})
	if !bytes.Equal(e.h.Raw(t, e.s, "s"), prev) {
		t.Error("an empty append with an unchanged header wrote bytes")
	}
}

func testHeaderSupersedes(t *testing.T, e *env) {
	if err := e.s.Append(context.Background(), &store.Delta{ID: "s", Messages: Round(0)}); !errors.Is(err, store.ErrNoHeader) {
		t.Fatalf("first append without a header = %v, want ErrNoHeader", err)
	}
	mustAppend(t, e.s, &store.Delta{ID: "s", Header: header("s"), Messages: Round(0)})
	h := header("s")
	h.Name = "renamed"
	h.Extra = map[string]json.RawMessage{"provider": json.RawMessage(`{"name":"other"}`)}
	mustAppend(t, e.s, &store.Delta{ID: "s", Header: h, Base: 2})
	rec := mustLoad(t, e.s, "s")
	if rec.Name != "renamed" || string(rec.Extra["provider"]) != `{"name":"other"}` || len(rec.Messages) != 2 || rec.SystemPrompt != "You are a test." {
		t.Errorf("after a header change: name %q extra %s messages %d", rec.Name, rec.Extra["provider"], len(rec.Messages))
	}
	if l := mustList(t, e.s); l.Sessions[0].Name != "renamed" {
		t.Errorf("List name = %q", l.Sessions[0].Name)
	}
}

func testAppendConflicts(t *testing.T, e *env) {
	mustAppend(t, e.s, &store.Delta{ID: "s", Header: header("s"), Messages: Round(0)})
	raw := e.h.Raw(t, e.s, "s")
	for _, d := range []*store.Delta{
		{ID: "s", Base: 0, Messages: Round(1)},
		{ID: "s", Base: 3, Messages: Round(1)},
		{ID: "s", Base: 2, EventBase: 1, Messages: Round(1)},
	} {
		if err := e.s.Append(context.Background(), d); !errors.Is(err, store.ErrConflict) {
			t.Errorf("Append(base %d, %d) = %v, want ErrConflict", d.Base, d.EventBase, err)
		}
	}
	// A session the store does not hold: a writer that resumed a record from elsewhere.
	if err := e.s.Append(context.Background(), &store.Delta{ID: "other", Header: header("other"), Base: 4, Messages: Round(1)}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("Append(base 4) to a new session = %v, want ErrConflict", err)
	}
	if !bytes.Equal(e.h.Raw(t, e.s, "s"), raw) {
		t.Error("a conflicting append wrote bytes")
	}
	if _, err := e.s.Load(context.Background(), "other"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a conflicting first append created the session: %v", err)
	}
}

// testReset: compaction appends a reset marker and the new history; nothing is rewritten.
func testReset(t *testing.T, e *env) {
	mustAppend(t, e.s, &store.Delta{ID: "s", Header: header("s"), Messages: Round(0),
		Events: []store.Event{{After: 1, Entry: json.RawMessage(`{"id":"e"}`)}}})
	mustAppend(t, e.s, &store.Delta{ID: "s", Base: 2, EventBase: 1, Messages: Round(1)})
	raw := e.h.Raw(t, e.s, "s")
	summary := []llm.Message{llm.NewSystemMessage("sys"), Round(9)[0]}
	mustAppend(t, e.s, &store.Delta{ID: "s", Reset: true, Messages: summary})
	after := e.h.Raw(t, e.s, "s")
	if !bytes.HasPrefix(after, raw) {
		t.Fatal("a reset rewrote the journal")
	}
	rec := mustLoad(t, e.s, "s")
	if texts(rec) != "sys|round 9 <a & b>" || len(rec.Events) != 0 {
		t.Fatalf("after reset: %s, events %v", texts(rec), rec.Events)
	}
	mustAppend(t, e.s, &store.Delta{ID: "s", Base: 2, Messages: Round(10)})
	if got := texts(mustLoad(t, e.s, "s")); got != "sys|round 9 <a & b>|round 10 <a & b>|content 10" {
		t.Errorf("after reset and a round: %s", got)
	}
	if l := mustList(t, e.s); l.Sessions[0].Messages != 4 {
		t.Errorf("List counts %d messages after reset, want 4", l.Sessions[0].Messages)
	}
}

func testReplace(t *testing.T, e *env) {
	rec := SampleRecord("s")
	mustSave(t, e.s, &rec)
	sys := llm.NewSystemMessage("a new system prompt")
	mustAppend(t, e.s, &store.Delta{ID: "s", Base: 4, EventBase: 1, Replace: []store.IndexedMessage{{Index: 0, Message: sys}}, Messages: Round(1)})
	got := mustLoad(t, e.s, "s")
	if got.Messages[0].Text() != "a new system prompt" || len(got.Messages) != 6 || got.Messages[1].Text() != "read the file" {
		t.Errorf("after replace: %s", texts(got))
	}
	if err := e.s.Append(context.Background(), &store.Delta{ID: "s", Base: 6, EventBase: 1, Replace: []store.IndexedMessage{{Index: 6, Message: sys}}}); err == nil {
		t.Error("replace past the end succeeded")
	}
}

// testTornTail cuts the journal at every byte of its last round (a crash inside the
// write): every load succeeds with the rounds before it and a warning, and the next append
// cuts the torn bytes off first.
func testTornTail(t *testing.T, e *env) {
	mustAppend(t, e.s, &store.Delta{ID: "s", Header: header("s"), Messages: Round(0)})
	mustAppend(t, e.s, &store.Delta{ID: "s", Base: 2, Messages: Round(1)})
	good := e.h.Raw(t, e.s, "s")
	mustAppend(t, e.s, &store.Delta{ID: "s", Base: 4, Messages: Round(2), Events: []store.Event{{After: 5, Entry: json.RawMessage(`{"id":"x"}`)}}})
	full := e.h.Raw(t, e.s, "s")
	for cut := len(good) + 1; cut < len(full); cut++ {
		torn := bytes.Clone(full[:cut])
		e.h.SetRaw(t, e.s, "s", torn)
		n := len(e.warnings())
		rec, err := e.s.Load(context.Background(), "s")
		if err != nil {
			t.Fatalf("cut at %d of %d: Load = %v", cut, len(full), err)
		}
		if texts(rec) != "round 0 <a & b>|content 0|round 1 <a & b>|content 1" || len(rec.Events) != 0 {
			t.Fatalf("cut at %d: loaded %s", cut, texts(rec))
		}
		w := e.warnings()
		var tt *store.TornTailError
		if len(w) != n+1 || !errors.As(w[n], &tt) || tt.Dropped != int64(cut-len(good)) {
			t.Fatalf("cut at %d: warnings %v, want one TornTailError of %d bytes", cut, w[n:], cut-len(good))
		}
		if l := mustList(t, e.s); l.Sessions[0].Messages != 4 {
			t.Fatalf("cut at %d: List counts %d messages", cut, l.Sessions[0].Messages)
		}
	}
	// Garbage after the last round (a torn line without a newline, then more).
	e.h.SetRaw(t, e.s, "s", append(bytes.Clone(good), `{"k":"m","i":4,"m":{"id":"x","ro`...))
	mustAppend(t, e.s, &store.Delta{ID: "s", Base: 4, Messages: Round(3)})
	raw := e.h.Raw(t, e.s, "s")
	if !bytes.HasPrefix(raw, good) || bytes.Contains(raw, []byte(`"ro{`)) {
		t.Fatalf("append after a torn tail did not cut it off:\n%s", raw[len(good):])
	}
	if got := texts(mustLoad(t, e.s, "s")); got != "round 0 <a & b>|content 0|round 1 <a & b>|content 1|round 3 <a & b>|content 3" {
		t.Errorf("after the append: %s", got)
	}
}

// LegacyRecord is SampleRecord(id) in the whole-record format of earlier versions (the
// format of store/testdata/record.golden.json), with a timeline holding chat entries.
func LegacyRecord(id string) []byte {
	return []byte(`{
  "id": "` + id + `",
  "cwd": "/work/project",
  "name": "legacy ` + id + `",
  "createdAt": "2026-03-01T12:00:00Z",
  "updatedAt": "2026-03-01T12:00:00Z",
  "messages": [
    {"id": "m0", "role": "system", "state": "complete", "content": [{"type": "text", "text": "You are a test."}], "createdAt": "2026-03-01T12:00:00Z"},
    {"id": "m1", "role": "user", "state": "complete", "content": [{"type": "text", "text": "read the file"}], "createdAt": "2026-03-01T12:00:00Z"}
  ],
  "history": [
    {"id": "m0", "timestamp": "2026-03-01T12:00:00Z", "category": "chat", "type": "system", "data": {}},
    {"id": "m1", "timestamp": "2026-03-01T12:00:00Z", "category": "chat", "type": "user", "data": {}},
    {"id": "e1", "timestamp": "2026-03-01T12:00:00Z", "category": "event", "type": "skill", "data": {"name": "review"}}
  ],
  "systemPrompt": "You are a test.",
  "toolSchemas": [{"name": "Read", "description": "read a file", "inputSchema": {"type": "object"}}],
  "sandboxSnapshotId": "snap-1",
  "provider": {"name": "script", "model": "m1"}
}
`)
}

func testOldFormat(t *testing.T, e *env) {
	e.h.SetLegacy(t, e.s, "old", LegacyRecord("old"))
	rec := mustLoad(t, e.s, "old")
	if texts(rec) != "You are a test.|read the file" || rec.Name != "legacy old" || rec.SandboxSnapshotID != "snap-1" ||
		len(rec.ToolSchemas) != 1 || string(rec.Extra["provider"]) != `{"name": "script", "model": "m1"}` {
		t.Fatalf("legacy record loaded as %+v", rec)
	}
	if len(rec.Events) != 1 || rec.Events[0].After != 2 || !strings.Contains(string(rec.Events[0].Entry), `"review"`) {
		t.Fatalf("legacy timeline events = %v", rec.Events)
	}
	if l := mustList(t, e.s); len(l.Sessions) != 1 || l.Sessions[0].ID != "old" || l.Sessions[0].Messages != 2 {
		t.Fatalf("List of a legacy record = %+v", l.Sessions)
	}
	// The first append migrates it; the history stays whole.
	e.clock.Advance(time.Minute)
	mustAppend(t, e.s, &store.Delta{ID: "old", Base: 2, EventBase: 1, Messages: Round(1)})
	got := mustLoad(t, e.s, "old")
	if texts(got) != "You are a test.|read the file|round 1 <a & b>|content 1" || got.Name != "legacy old" ||
		len(got.Events) != 1 || !got.CreatedAt.Equal(Epoch) || !got.UpdatedAt.Equal(Epoch.Add(time.Minute)) {
		t.Fatalf("after migration: %s, %+v", texts(got), got)
	}
	if raw := e.h.Raw(t, e.s, "old"); !bytes.HasPrefix(raw, []byte(`{"k":`)) {
		t.Errorf("the record was not migrated to a journal: %.80s", raw)
	}
	if fork, err := store.Fork(context.Background(), e.s, "old", "old-fork"); err != nil || len(fork.Messages) != 4 {
		t.Errorf("fork of a migrated record: %v", err)
	}
	e.h.SetLegacy(t, e.s, "old2", LegacyRecord("old2"))
	if fork, err := store.Fork(context.Background(), e.s, "old2", "old2-fork"); err != nil || len(fork.Messages) != 2 || fork.Parent != "old2" {
		t.Errorf("fork of a legacy record = %+v, %v", fork, err)
	}
}

// testListReadsNoMessages: a damaged message line in the middle of a journal does not
// keep List from describing the session (it reads only the header and the last commit;
// the damage keeps every offset),
// while Load reports the damage.
func testListReadsNoMessages(t *testing.T, e *env) {
	mustAppend(t, e.s, &store.Delta{ID: "s", Header: header("s"), Messages: Round(0)})
	mustAppend(t, e.s, &store.Delta{ID: "s", Base: 2, Messages: Round(1)})
	raw := e.h.Raw(t, e.s, "s")
	damaged := bytes.Replace(raw, []byte(`"content 0"`), []byte(`"content 0!`), 1)
	e.h.SetRaw(t, e.s, "s", damaged)
	l := mustList(t, e.s)
	if len(l.Sessions) != 1 || l.Sessions[0].Messages != 4 || l.Sessions[0].Name != "sample s" {
		t.Errorf("List = %+v", l.Sessions)
	}
	if _, err := e.s.Load(context.Background(), "s"); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("Load of a damaged journal = %v, want ErrCorrupt", err)
	}
}
