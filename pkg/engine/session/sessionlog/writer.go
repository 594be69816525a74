package sessionlog

import (
	"fmt"
	"sync"
	"time"
)

// QueueLength bounds the events a Background logger holds that its writer has not yet
// written. A caller that finds the queue full waits for room: events are never dropped,
// and the memory they take is bounded.
const QueueLength = 1024

// writer is a Background logger's queue and the goroutine that empties it. One goroutine
// writes, in queue order, so lines keep the order in which Log was called; the state the
// logger keeps about what it wrote (references, history, native bodies, held pieces) is
// read and changed as it was by synchronous callers, under l.mu.
type writer struct {
	// mu serializes enqueueing, so stamps follow queue order, and guards closed. The
	// writer goroutine never takes it.
	mu     sync.Mutex
	closed bool
	q      chan job
	done   chan struct{}
}

// job is one queued event, or a barrier (fn) run by the writer in its turn.
type job struct {
	event string
	data  any
	stamp time.Time
	fn    func() error
	reply chan error // Append and barriers wait for their result here
}

func startWriter(l *FileLogger) *writer {
	w := &writer{q: make(chan job, QueueLength), done: make(chan struct{})}
	go l.drain(w)
	return w
}

func (l *FileLogger) drain(w *writer) {
	defer close(w.done)
	for j := range w.q {
		var err error
		if j.fn != nil {
			err = j.fn()
		} else {
			err = l.append(j.event, j.data, j.stamp)
		}
		switch {
		case j.reply != nil:
			j.reply <- err
		case err != nil && l.onError != nil:
			l.onError(j.event, err)
		}
	}
}

// enqueue stamps data, takes a copy the caller cannot change (own) and queues it.
func (l *FileLogger) enqueue(event string, data any, reply chan error) error {
	if !validEvent(event) {
		return fmt.Errorf("%w: %q", ErrInvalidEvent, event)
	}
	owned, err := own(data)
	if err != nil {
		return fmt.Errorf("session log: encode %s: %w", event, err)
	}
	return l.bg.put(job{event: event, data: owned, reply: reply}, l.now)
}

// barrier runs fn in the writer after the events queued before it and returns its error.
func (l *FileLogger) barrier(fn func() error) error {
	reply := make(chan error, 1)
	if err := l.bg.put(job{fn: fn, reply: reply}, nil); err != nil {
		return err
	}
	return <-reply
}

func (w *writer) put(j job, now func() time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if now != nil {
		j.stamp = now().UTC()
	}
	w.q <- j // waits while the queue is full
	return nil
}

// stop closes the queue and waits until the writer has written everything in it.
func (w *writer) stop() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.q)
	}
	w.mu.Unlock()
	<-w.done
}
