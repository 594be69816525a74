package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

// BenchmarkLoadLongJournal (issue 29): loading the journal of a 2,000-round session (two
// small messages and two timeline events a round, one commit each, as a headless run of
// Read rounds writes it), against the floor: reading the same file. The load is the most
// of what resuming such a session costs before its first request.
func BenchmarkLoadLongJournal(b *testing.B) {
	const rounds = 2000
	dir := b.TempDir()
	s := store.NewFileStore(dir, store.Options{})
	ctx := context.Background()
	msgs := storetest.SmallRounds(2 + 2*rounds)
	if err := s.Append(ctx, &store.Delta{ID: "long", Header: &store.Record{Cwd: "/w", SystemPrompt: "sys"}, Messages: msgs[:2]}); err != nil {
		b.Fatal(err)
	}
	for r := range rounds {
		n := 2 + 2*r
		var events []store.Event
		for i, kind := range []string{"tool-start", "tool-end"} {
			events = append(events, store.Event{After: n + 1, Entry: fmt.Appendf(nil,
				`{"id":"e%d-%d","timestamp":"2026-11-29T05:05:44.118683885Z","category":"event","type":%q,"data":{"toolUseId":"call_%d","toolName":"Read","firstArg":"/p/f%d.txt","args":{"file_path":"/p/f%d.txt"},"isRunning":%t}}`,
				r, i, kind, n, r, r, i == 0)})
		}
		if err := s.Append(ctx, &store.Delta{ID: "long", Base: n, EventBase: 2 * r, Messages: msgs[n : n+2], Events: events}); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(dir, "long.jsonl")
	var loads, reads []time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		rec, err := s.Load(ctx, "long")
		if err != nil {
			b.Fatal(err)
		}
		loads = append(loads, time.Since(t0))
		if len(rec.Messages) != len(msgs) || len(rec.Events) != 2*rounds {
			b.Fatalf("loaded %d messages and %d events", len(rec.Messages), len(rec.Events))
		}
		t1 := time.Now()
		if _, err := os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
		reads = append(reads, time.Since(t1))
	}
	b.StopTimer()
	load, read := median(loads), median(reads)
	b.ReportMetric(float64(load.Microseconds())/1000, "load-ms")
	b.ReportMetric(float64(read.Microseconds())/1000, "read-ms")
	b.ReportMetric(float64(load)/float64(read), "x-of-read")
}
