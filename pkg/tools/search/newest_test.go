package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"
)

// keepAllSorted is the order Glob used to compute by keeping every match and sorting them
// all: the reference the bounded collector must reproduce.
func keepAllSorted(ms []globMatch) []globMatch {
	out := slices.Clone(ms)
	sort.Slice(out, func(i, j int) bool {
		if out[i].mtime != out[j].mtime {
			return out[i].mtime > out[j].mtime
		}
		return out[i].path < out[j].path
	})
	return out
}

// syntheticMatches returns n matches in random order whose mtimes repeat (so ties by path
// are exercised).
func syntheticMatches(n int, seed uint64) []globMatch {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]globMatch, n)
	for i := range out {
		out[i] = globMatch{path: fmt.Sprintf("/tree/d%03d/f%07d.go", r.IntN(1000), i), mtime: int64(r.IntN(n/3 + 1))}
	}
	r.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func TestNewestNKeepsTheNewestInGlobOrderAndNoMore(t *testing.T) {
	for _, c := range []struct{ n, limit int }{
		{0, 10}, {3, 10}, {10, 10}, {11, 10}, {1000, 1}, {5000, 1000}, {20000, 1000}, {500, 0},
	} {
		t.Run(fmt.Sprintf("%d matches, limit %d", c.n, c.limit), func(t *testing.T) {
			ms := syntheticMatches(c.n, uint64(c.n*31+c.limit))
			col := newNewestN(c.limit)
			most := 0
			for _, m := range ms {
				col.add(m)
				most = max(most, len(col.kept))
			}
			if most > c.limit {
				t.Fatalf("held %d matches at once, limit %d", most, c.limit)
			}
			if col.total != c.n {
				t.Fatalf("total = %d, want %d", col.total, c.n)
			}
			want := keepAllSorted(ms)[:min(c.n, c.limit)]
			if got := col.sorted(); !slices.Equal(got, want) {
				t.Fatalf("kept %d matches, differs from the first %d of a full sort", len(got), len(want))
			}
		})
	}
}

// TestGlobFilesEqualsKeepAllOnATree walks a tree with more matches than the limit, with
// equal mtimes among them, and checks the bounded walk returns exactly the head of the
// full sort of every match.
func TestGlobFilesEqualsKeepAllOnATree(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	var all []globMatch
	for i := range 600 {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%9), fmt.Sprintf("f%04d.txt", (i*7919)%600))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i%50) * time.Second) // 12 files per mtime
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
		all = append(all, globMatch{path: p, mtime: mt.UnixNano()})
	}
	want := keepAllSorted(all)
	for _, limit := range []int{1, 100, 599, 600, 1000} {
		got, total, err := globFiles(context.Background(), dir, "**/*.txt", nil, limit)
		if err != nil {
			t.Fatal(err)
		}
		if total != len(all) {
			t.Fatalf("limit %d: total = %d, want %d", limit, total, len(all))
		}
		if !slices.Equal(got, want[:min(limit, len(want))]) {
			t.Fatalf("limit %d: got %d matches, not the head of the full sort", limit, len(got))
		}
	}
}

// BenchmarkGlobCollect feeds the same stream of matches to the bounded collector and to
// the old keep-every-match-and-sort approach, and reports the bytes each allocates per
// stream: the collector's stay flat from 10k to 100k matches (it holds MaxGlobResults),
// the old approach's grow with the stream.
func BenchmarkGlobCollect(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("matches=%d", n), func(b *testing.B) {
			ms := syntheticMatches(n, 7)
			var heapBytes, allBytes uint64
			for i := 0; i < b.N; i++ {
				heapBytes += allocated(func() {
					col := newNewestN(MaxGlobResults)
					for _, m := range ms {
						col.add(m)
					}
					runtime.KeepAlive(col.sorted())
				})
				allBytes += allocated(func() {
					var kept []globMatch
					for _, m := range ms {
						kept = append(kept, m)
					}
					sort.Slice(kept, func(i, j int) bool { return newer(kept[i], kept[j]) })
					runtime.KeepAlive(kept[:MaxGlobResults])
				})
			}
			b.ReportMetric(float64(heapBytes)/float64(b.N), "heap-B/op")
			b.ReportMetric(float64(allBytes)/float64(b.N), "keepall-B/op")
			b.ReportMetric(float64(heapBytes)/float64(allBytes), "x-of-keepall")
			b.ReportMetric(float64(heapBytes)/float64(b.N)/MaxGlobResults, "heap-B/kept")
		})
	}
}

// BenchmarkGlobRetained globs every file of the benchmark tree and reports the heap still
// live while the result is held (what Glob keeps until it formats its answer): the newest
// 1,000 against keeping every match, measured in the same run.
func BenchmarkGlobRetained(b *testing.B) {
	dir := benchTree(b)
	var newest, all float64
	var matched int
	for i := 0; i < b.N; i++ {
		n, total := retained(b, dir, MaxGlobResults)
		a, _ := retained(b, dir, math.MaxInt)
		newest, all, matched = newest+n, all+a, total
	}
	b.ReportMetric(float64(matched), "matches")
	b.ReportMetric(newest/float64(b.N)/1024, "newest-KiB")
	b.ReportMetric(all/float64(b.N)/1024, "keepall-KiB")
	b.ReportMetric(newest/all, "x-of-keepall")
}

// retained is the live heap growth while globFiles' result is held.
func retained(b *testing.B, dir string, limit int) (bytes float64, total int) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, total, err := globFiles(context.Background(), dir, "**/*", nil, limit)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(got)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc), total
}

// allocated is the number of bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
