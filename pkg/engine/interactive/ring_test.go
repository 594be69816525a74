package interactive

import (
	"slices"
	"testing"
)

// The replay ring keeps the latest events within both bounds, oldest first, across
// growth and wrap-around.
func TestRingKeepsLatestWithinBounds(t *testing.T) {
	seqs := func(r *ring) []uint64 {
		var out []uint64
		for _, e := range r.after(0) {
			out = append(out, e.Seq)
		}
		return out
	}
	cases := []struct {
		name             string
		maxEvents, bytes int
		push             int
		text             string
		want             []uint64
	}{
		{name: "below both bounds", maxEvents: 16, bytes: 1 << 20, push: 5, want: []uint64{1, 2, 3, 4, 5}},
		{name: "count bound wraps", maxEvents: 10, bytes: 1 << 20, push: 23, want: []uint64{14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
		{name: "byte bound", maxEvents: 100, bytes: 3 * (64 + 100), push: 50, text: string(make([]byte, 100)), want: []uint64{48, 49, 50}},
		{name: "one event over the byte bound is kept", maxEvents: 100, bytes: 10, push: 4, want: []uint64{4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &ring{maxEvents: c.maxEvents, maxBytes: c.bytes}
			for i := 1; i <= c.push; i++ {
				r.push(Event{Seq: uint64(i), Text: c.text})
			}
			if got := seqs(r); !slices.Equal(got, c.want) {
				t.Fatalf("kept %v, want %v", got, c.want)
			}
			if got := r.oldestSeq(uint64(c.push)); got != c.want[0] {
				t.Fatalf("oldestSeq %d, want %d", got, c.want[0])
			}
			if len(r.buf) > c.maxEvents {
				t.Fatalf("buffer of %d slots over the bound %d", len(r.buf), c.maxEvents)
			}
			last := c.want[len(c.want)-1]
			if got := r.after(last - 1); len(got) != 1 || got[0].Seq != last {
				t.Fatalf("after(%d) = %v, want only %d", last-1, got, last)
			}
		})
	}
}
