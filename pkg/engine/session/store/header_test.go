package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

// The encoder reuses the last header's payload when the header is unchanged; every
// change, including one made in place to bytes the previous Append was given, must
// still reach the journal, and an unchanged header writes no header line.
func TestFileStoreWritesEveryHeaderChange(t *testing.T) {
	newHeader := func() *store.Record {
		return &store.Record{ID: "s1", Cwd: "/p", CreatedAt: storetest.Epoch, SystemPrompt: "sys",
			ToolSchemas:  []llm.ToolSchema{{Name: "Read", Description: "reads", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			MemoryEvents: []json.RawMessage{json.RawMessage(`{"a":1}`)}}
	}
	tests := []struct {
		name    string
		change  func(h *store.Record)
		headers int // header lines in the journal after the second append
	}{
		{"unchanged", func(*store.Record) {}, 1},
		{"name", func(h *store.Record) { h.Name = "renamed" }, 2},
		{"tool description", func(h *store.Record) { h.ToolSchemas[0].Description = "reads files" }, 2},
		{"schema bytes changed in place", func(h *store.Record) { copy(h.ToolSchemas[0].InputSchema[9:], "OBJECT") }, 2},
		{"tool added", func(h *store.Record) {
			h.ToolSchemas = append(h.ToolSchemas, llm.ToolSchema{Name: "Write", InputSchema: json.RawMessage(`{}`)})
		}, 2},
		{"memory event bytes changed in place", func(h *store.Record) { h.MemoryEvents[0][5] = '2' }, 2},
		{"memory events emptied", func(h *store.Record) { h.MemoryEvents = []json.RawMessage{} }, 2},
		{"extra added", func(h *store.Record) { h.Extra = map[string]json.RawMessage{"x": json.RawMessage(`true`)} }, 2},
		{"created in another zone", func(h *store.Record) { h.CreatedAt = h.CreatedAt.In(time.FixedZone("X", 3600)) }, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := newFileStore(t)
			ctx := context.Background()
			h := newHeader()
			msgs := storetest.Round(0)
			if err := s.Append(ctx, &store.Delta{ID: "s1", Header: h, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			tt.change(h)
			want := *h
			want.ToolSchemas = append([]llm.ToolSchema(nil), h.ToolSchemas...)
			if err := s.Append(ctx, &store.Delta{ID: "s1", Header: h, Base: len(msgs), Messages: storetest.Round(1)}); err != nil {
				t.Fatal(err)
			}
			// A fresh store reads the journal from disk.
			rec, err := store.NewFileStore(dir, store.Options{}).Load(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			if rec.Name != want.Name || !reflect.DeepEqual(rec.ToolSchemas, want.ToolSchemas) || !rec.CreatedAt.Equal(want.CreatedAt) ||
				len(rec.MemoryEvents) != len(want.MemoryEvents) || (len(want.MemoryEvents) > 0 && !bytes.Equal(rec.MemoryEvents[0], want.MemoryEvents[0])) ||
				len(rec.Extra) != len(want.Extra) {
				t.Errorf("loaded header %+v\nwant %+v", rec, want)
			}
			raw, err := os.ReadFile(filepath.Join(dir, "s1.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(raw, []byte(`{"k":"h"`)); n != tt.headers {
				t.Errorf("%d header lines, want %d:\n%s", n, tt.headers, raw)
			}
		})
	}
}
