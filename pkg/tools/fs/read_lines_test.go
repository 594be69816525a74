package fs

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
)

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A multi-megabyte line costs Read what its kept start costs, whether it is shown
// (truncated) or skipped by offset: memory does not grow with the longest line.
func TestReadLongLineBoundedAllocation(t *testing.T) {
	const lineLen = 16 << 20
	const bound = 2 << 20 // the line is 16 MiB; reading it whole would allocate at least that
	e := newEnv(t)
	read, err := NewRead(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	path := e.write(t, "huge.txt", []byte(strings.Repeat("x", lineLen)+"\nsecond\n"))
	for _, c := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"first line, limit 1", map[string]any{"file_path": path, "limit": 1},
			fmt.Sprintf("     1\t%s... [%d characters truncated]\n", strings.Repeat("x", MaxLineLength), lineLen-MaxLineLength)},
		{"line after it, offset 2", map[string]any{"file_path": path, "offset": 2, "limit": 1}, "     2\tsecond\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := args(t, c.params)
			var out string
			n := allocated(func() {
				res := exec(read, a)
				if !res.Success {
					t.Fatalf("Read failed: %s", res.Error)
				}
				out = res.Output
			})
			if !strings.HasPrefix(out, c.want) {
				t.Errorf("output starts %q, want %q", out[:min(len(out), 120)], c.want[:min(len(c.want), 120)])
			}
			if n > bound {
				t.Errorf("Read allocated %d bytes for a %d-byte line, want at most %d", n, lineLen, bound)
			}
		})
	}
}

// A line read in pieces is truncated exactly as the whole line would be: the same kept
// characters, the same count of cut ones, the \r of \r\n dropped wherever it falls.
func TestReadTruncatesLinesReadInPieces(t *testing.T) {
	e := newEnv(t)
	read, err := NewRead(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, line, rest string // rest: what follows the line
		lines            int
	}{
		{"two-byte characters across buffer refills", strings.Repeat("é", 100_000), "\r\nnext\n", 2},
		{"four-byte characters just over the kept bytes", strings.Repeat("😀", 2_500), "\nnext\n", 2},
		{"\\r alone at the end of a full buffer", strings.Repeat("a", 64*1024-1), "\r\nnext\n", 2},
		{"\\r as the last kept byte", strings.Repeat("a", keepBytes-1), "\r\nnext\n", 2},
		{"last line without newline", strings.Repeat("ab", 40_000), "", 1},
		{"mixed widths", strings.Repeat("a€😀ß", 3_000), "\nnext\n", 2},
		{"exactly the maximum", strings.Repeat("€", MaxLineLength), "\nnext\n", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := e.write(t, "piece.txt", []byte(c.line+c.rest))
			res := exec(read, args(t, map[string]any{"file_path": filepath.Clean(path), "limit": 1}))
			if !res.Success {
				t.Fatalf("Read failed: %s", res.Error)
			}
			want := fmt.Sprintf("%6d\t%s\n", 1, toolkit.TruncateLine(c.line, MaxLineLength))
			if !strings.HasPrefix(res.Output, want) {
				got := res.Output[:strings.IndexByte(res.Output, '\n')+1]
				t.Errorf("line 1 = …%q, want …%q", got[max(0, len(got)-60):], want[max(0, len(want)-60):])
			}
			if total := res.Metadata["totalLines"]; total != c.lines {
				t.Errorf("totalLines = %v, want %d", total, c.lines)
			}
		})
	}
}
