package tasks

import "github.com/robota-sdk/robota-go/pkg/runner/runnerapi"

// DefaultLogTail is how many bytes of a task's streamed output the manager keeps
// itself, for ReadLog when the runner no longer has the log (its worker died).
const DefaultLogTail = 1 << 20

// tail keeps the last max bytes of a stream and how many bytes it has seen, so
// offsets stay those of the whole stream.
type tail struct {
	max   int
	buf   []byte
	total int64
}

func (t *tail) write(p string) {
	t.total += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
}

// read returns up to limit bytes from offset. An offset before the kept tail reads
// from the tail's start (NextOffset says where the page ended); ended marks EOF once
// the whole stream was read.
func (t *tail) read(offset, limit int64, ended bool) runnerapi.LogPage {
	start := t.total - int64(len(t.buf))
	if offset < start {
		offset = start
	}
	if offset > t.total {
		offset = t.total
	}
	end := t.total
	if limit > 0 && offset+limit < end {
		end = offset + limit
	}
	data := append([]byte(nil), t.buf[offset-start:end-start]...)
	return runnerapi.LogPage{Data: data, NextOffset: end, EOF: ended && end == t.total}
}
