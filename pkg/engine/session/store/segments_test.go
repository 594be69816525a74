package store_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

// A journal written before commits left out h and r when 0 (testdata/
// journal-before-29.jsonl, written by main at 299b0f8) loads as it did, takes new rounds
// and loads them after the old ones; the new commit lines carry neither member.
func TestJournalWrittenBeforeShortCommits(t *testing.T) {
	s, dir := newFileStore(t)
	old, err := os.ReadFile(filepath.Join("testdata", "journal-before-29.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rec, err := s.Load(ctx, "golden")
	if err != nil {
		t.Fatal(err)
	}
	want := storetest.SampleRecord("golden")
	if len(rec.Messages) != len(want.Messages) || rec.Name != want.Name || len(rec.Events) != 1 {
		t.Fatalf("loaded %d messages, name %q, %d events", len(rec.Messages), rec.Name, len(rec.Events))
	}
	more := llm.Message{ID: "m4", Role: llm.RoleUser, State: llm.StateComplete, Content: []llm.Part{llm.TextPart("again")}}
	if err := s.Append(ctx, &store.Delta{ID: "golden", Base: len(rec.Messages), EventBase: 1, Messages: []llm.Message{more}}); err != nil {
		t.Fatal(err)
	}
	after, err := s.Load(ctx, "golden")
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Messages) != len(rec.Messages)+1 || after.Messages[len(rec.Messages)].ID != "m4" ||
		!reflect.DeepEqual(after.Messages[:len(rec.Messages)], rec.Messages) {
		t.Fatalf("after an append: %d messages", len(after.Messages))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, `{"k":"c","n":5,"e":1,"t":"`) || strings.Contains(last, `"h":`) || strings.Contains(last, `"r":`) {
		t.Errorf("new commit line %s", last)
	}
}

// JournalSegments gives each conversation of a journal, a reset starting the next one,
// its messages as appended and their replacements apart; the last is Load's.
func TestJournalSegments(t *testing.T) {
	s, _ := newFileStore(t)
	ctx := context.Background()
	rec := storetest.SampleRecord("seg")
	if err := s.Append(ctx, &store.Delta{ID: "seg", Header: &rec, Messages: rec.Messages, Events: rec.Events}); err != nil {
		t.Fatal(err)
	}
	sys := llm.Message{ID: "sys2", Role: llm.RoleSystem, State: llm.StateComplete, Content: []llm.Part{llm.TextPart("new")}}
	if err := s.Append(ctx, &store.Delta{ID: "seg", Base: len(rec.Messages), EventBase: len(rec.Events),
		Replace: []store.IndexedMessage{{Index: 0, Message: sys}}}); err != nil {
		t.Fatal(err)
	}
	summary := llm.Message{ID: "sum", Role: llm.RoleAssistant, State: llm.StateComplete, Content: []llm.Part{llm.TextPart("summary")}}
	if err := s.Append(ctx, &store.Delta{ID: "seg", Reset: true, Messages: []llm.Message{sys, summary}}); err != nil {
		t.Fatal(err)
	}
	segs, err := s.Segments(ctx, "seg")
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2", len(segs))
	}
	first := append([]llm.Message{sys}, rec.Messages[1:]...)
	if !reflect.DeepEqual(segs[0].Messages, rec.Messages) || !reflect.DeepEqual(segs[0].Current(), first) ||
		len(segs[0].Replaced) != 1 || len(segs[0].Events) != len(rec.Events) {
		t.Errorf("first segment: %d messages (first %q), %d events", len(segs[0].Messages), segs[0].Messages[0].ID, len(segs[0].Events))
	}
	loaded, err := s.Load(ctx, "seg")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(segs[1].Messages, loaded.Messages) || len(segs[1].Events) != 0 {
		t.Errorf("last segment %+v, Load %+v", segs[1].Messages, loaded.Messages)
	}
	if _, err := store.JournalSegments([]byte(`{"k":"m","i":0,"m":{}}` + "\n")); err == nil {
		t.Error("a journal without a commit has segments")
	}
}
