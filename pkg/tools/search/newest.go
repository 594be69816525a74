package search

import (
	"container/heap"
	"slices"
)

// globMatch is one file Glob listed: its absolute path and modification time.
type globMatch struct {
	path  string
	mtime int64
}

// newer is Glob's order: newest first, ties by path.
func newer(a, b globMatch) bool {
	if a.mtime != b.mtime {
		return a.mtime > b.mtime
	}
	return a.path < b.path
}

// newestN keeps the limit newest matches of a stream of any length, and counts them all.
// Only limit entries are ever held, so memory does not grow with the number of matches:
// a min-heap under Glob's order keeps the oldest kept match at the root, and a newer match
// replaces it.
type newestN struct {
	limit int
	total int
	kept  matchHeap
}

func newNewestN(limit int) *newestN { return &newestN{limit: limit} }

// add offers one match.
func (n *newestN) add(m globMatch) {
	n.total++
	switch {
	case n.limit <= 0:
	case len(n.kept) < n.limit:
		heap.Push(&n.kept, m)
	case newer(m, n.kept[0]):
		n.kept[0] = m
		heap.Fix(&n.kept, 0)
	}
}

// sorted returns the kept matches in Glob's order; the collector is spent afterwards.
func (n *newestN) sorted() []globMatch {
	out := []globMatch(n.kept)
	n.kept = nil
	slices.SortFunc(out, func(a, b globMatch) int {
		switch {
		case newer(a, b):
			return -1
		case newer(b, a):
			return 1
		}
		return 0
	})
	return out
}

// matchHeap is a container/heap whose root is the oldest match (the first to give up).
type matchHeap []globMatch

func (h matchHeap) Len() int           { return len(h) }
func (h matchHeap) Less(i, j int) bool { return newer(h[j], h[i]) }
func (h matchHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *matchHeap) Push(x any)        { *h = append(*h, x.(globMatch)) }
func (h *matchHeap) Pop() any {
	old := *h
	m := old[len(old)-1]
	*h = old[:len(old)-1]
	return m
}
