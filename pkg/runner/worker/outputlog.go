package worker

import "sync"

// defaultLogCap bounds the bytes a job's log keeps in memory. Past it the
// oldest half is dropped, so a chatty long-running process keeps its tail.
const defaultLogCap = 8 << 20

// outputLog is an append-only byte log addressed by absolute offsets, of which
// only the newest cap bytes are retained.
type outputLog struct {
	mu     sync.Mutex
	data   []byte
	base   int64 // absolute offset of data[0]
	cap    int
	notify chan struct{}
}

func newOutputLog(capBytes int) *outputLog {
	return &outputLog{cap: capBytes, notify: make(chan struct{}, 1)}
}

// Write appends p and wakes the streamer without blocking the process.
func (l *outputLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.data = append(l.data, p...)
	if over := len(l.data) - l.cap; over > 0 {
		drop := max(over, len(l.data)/2)
		l.data = append(l.data[:0:0], l.data[drop:]...)
		l.base += int64(drop)
	}
	l.mu.Unlock()
	select {
	case l.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

// ReadAt copies up to limit bytes from the absolute offset. An offset that
// was already dropped reads from the oldest retained byte; next is the offset
// after the returned bytes.
func (l *outputLog) ReadAt(offset, limit int64) (data []byte, next int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	offset = max(offset, l.base)
	end := l.base + int64(len(l.data))
	if offset >= end {
		return nil, end
	}
	stop := min(end, offset+limit)
	out := make([]byte, stop-offset)
	copy(out, l.data[offset-l.base:stop-l.base])
	return out, stop
}

// Tail returns the last n retained bytes.
func (l *outputLog) Tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.data) <= n {
		return string(l.data)
	}
	return string(l.data[len(l.data)-n:])
}

// End is the absolute offset after the last byte written.
func (l *outputLog) End() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.base + int64(len(l.data))
}

// Retained is how many bytes the log holds in memory.
func (l *outputLog) Retained() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(len(l.data))
}
