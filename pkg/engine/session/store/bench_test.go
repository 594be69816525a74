package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

// BenchmarkAppendRound (issue 18, issue 10 §2): saving one tool round of a session whose
// history holds 10, 1k or 10k messages, against the floor: appending the same new bytes to
// a file and fsyncing it. Both are timed in the same iterations, interleaved, so load on
// the machine hits both alike. Target: ≤ 1.5 x-of-raw, flat across history sizes.
func BenchmarkAppendRound(b *testing.B) {
	for _, history := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("history=%d", history), func(b *testing.B) {
			dir := b.TempDir()
			s := store.NewFileStore(dir, store.Options{})
			ctx := context.Background()
			msgs := storetest.Conversation(history)
			if err := s.Append(ctx, &store.Delta{ID: "s", Header: &store.Record{Cwd: "/w", SystemPrompt: "sys"}, Messages: msgs}); err != nil {
				b.Fatal(err)
			}
			journal, err := os.Open(filepath.Join(dir, "s.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			defer journal.Close()
			raw, err := os.OpenFile(filepath.Join(dir, "raw"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				b.Fatal(err)
			}
			defer raw.Close()
			next := storetest.Conversation(3)[1:3] // one tool round: a call and a 3.5 KB result
			n := history
			var storeTimes, rawTimes []time.Duration
			var written int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				before, _ := journal.Stat()
				t0 := time.Now()
				if err := s.Append(ctx, &store.Delta{ID: "s", Base: n, Messages: next}); err != nil {
					b.Fatal(err)
				}
				storeTimes = append(storeTimes, time.Since(t0))
				n += len(next)
				after, _ := journal.Stat()
				batch := make([]byte, after.Size()-before.Size())
				if _, err := journal.ReadAt(batch, before.Size()); err != nil {
					b.Fatal(err)
				}
				written += int64(len(batch))
				t1 := time.Now()
				if _, err := raw.Write(batch); err != nil {
					b.Fatal(err)
				}
				if err := raw.Sync(); err != nil {
					b.Fatal(err)
				}
				rawTimes = append(rawTimes, time.Since(t1))
			}
			b.StopTimer()
			storeTime, rawTime := median(storeTimes), median(rawTimes)
			b.ReportMetric(float64(storeTime)/float64(rawTime), "x-of-raw")
			b.ReportMetric(float64(storeTime.Microseconds()), "save-µs/round")
			b.ReportMetric(float64(rawTime.Microseconds()), "raw-µs/round")
			b.ReportMetric(float64(written)/float64(b.N), "bytes/round")
		})
	}
}

// Figures are medians of interleaved samples (see median).

// BenchmarkSaveLoad10k (issue 18): a whole 10k-message session (about 20 MB) saved and
// loaded, against the floor: json.Marshal of the same messages written to a temp file,
// fsynced and renamed (save), and the file read and json.Unmarshal'ed (load). Target:
// ≤ 1.3 x-of-baseline each.
func BenchmarkSaveLoad10k(b *testing.B) {
	msgs := storetest.Conversation(10000)
	rec := store.Record{ID: "big", Cwd: "/w", SystemPrompt: "sys", Messages: msgs}
	ctx := context.Background()
	dir := b.TempDir()
	s := store.NewFileStore(dir, store.Options{})
	base := filepath.Join(dir, "baseline.json")

	// Each iteration times both three times, alternating which goes first, so that one
	// does not pay for the other's write-back.
	b.Run("save", func(b *testing.B) {
		var storeTimes, baseTimes []time.Duration
		saveStore := func() {
			t0 := time.Now()
			r := rec
			if err := s.Save(ctx, &r); err != nil {
				b.Fatal(err)
			}
			storeTimes = append(storeTimes, time.Since(t0))
		}
		saveBase := func() {
			t1 := time.Now()
			data, err := json.Marshal(msgs)
			if err != nil {
				b.Fatal(err)
			}
			if err := writeSynced(base, data); err != nil {
				b.Fatal(err)
			}
			baseTimes = append(baseTimes, time.Since(t1))
		}
		for i := 0; i < 3*b.N; i++ {
			if i%2 == 0 {
				saveStore()
				saveBase()
			} else {
				saveBase()
				saveStore()
			}
		}
		reportMedians(b, storeTimes, baseTimes)
	})
	b.Run("load", func(b *testing.B) {
		var storeTimes, baseTimes []time.Duration
		for i := 0; i < 3*b.N; i++ {
			t0 := time.Now()
			got, err := s.Load(ctx, "big")
			if err != nil || len(got.Messages) != len(msgs) {
				b.Fatalf("load: %d messages, %v", len(got.Messages), err)
			}
			storeTimes = append(storeTimes, time.Since(t0))
			t1 := time.Now()
			data, err := os.ReadFile(base)
			if err != nil {
				b.Fatal(err)
			}
			var back []llm.Message
			if err := json.Unmarshal(data, &back); err != nil {
				b.Fatal(err)
			}
			baseTimes = append(baseTimes, time.Since(t1))
		}
		reportMedians(b, storeTimes, baseTimes)
	})
}

// median is the middle sample: on a shared machine a few samples stall, and a median
// ignores them where a sum would not.
func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func reportMedians(b *testing.B, store, baseline []time.Duration) {
	st, bt := median(store), median(baseline)
	b.ReportMetric(float64(st)/float64(bt), "x-of-baseline")
	b.ReportMetric(float64(st.Milliseconds()), "store-ms")
	b.ReportMetric(float64(bt.Milliseconds()), "baseline-ms")
}

// writeSynced is the baseline's durable write: temp file, fsync, rename, directory fsync.
func writeSynced(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
