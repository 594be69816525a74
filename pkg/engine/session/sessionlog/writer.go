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

// DefaultWriteDelay is how long a Background logger lets a burst of events wait before
// its writer starts on them (Options.WriteDelay), unless batchLength are queued or a
// caller waits for the result (Append, Sync, Close) first. A burst is written in one
// run, and a quick turn's log is written after the turn has answered: Go schedules
// goroutines without priorities, so waiting is how the log keeps off the turn's path
// (a writer run beside the turn took CPU that its gRPC delivery lacked on two cores).
const DefaultWriteDelay = 2 * time.Millisecond

// batchLength queued events start the writer at once: a long stream is written while
// it runs, and its producer rarely finds the queue full.
const batchLength = QueueLength / 4

// writer is a Background logger's queue and the goroutine that empties it. One goroutine
// writes at a time, in queue order, so lines keep the order in which Log was called; the
// state the logger keeps about what it wrote (references, history, native bodies, held
// pieces) is read and changed as it was by synchronous callers, under l.mu.
//
// An idle logger costs nothing but the struct: the goroutine runs only while there are
// events to write (it is started by the put that finds the queue empty and ends when it
// has emptied it), and the queue is a slice that grows with what waits. An engine keeps
// many idle sessions, each with its log (issue 11: at most 50 KB per idle session).
type writer struct {
	l *FileLogger
	// memo is what own copied of the last provider request, shared with the next.
	memo ownMemo
	// mu guards everything below; it serializes enqueueing, so stamps follow queue
	// order. room is signalled when the queue shrinks or the goroutine ends.
	mu      sync.Mutex
	room    sync.Cond
	closed  bool
	running bool
	// q holds the queued jobs in a ring: n of them from head on. A stream's pieces pass
	// through at the rate they are written, and a ring takes them without reallocating
	// as a slice consumed from its front does.
	q       []job
	head, n int
	// peak is the most jobs queued at once in this burst, last that of the last burst:
	// the next burst's ring starts at it, so a stream written in many bursts does not
	// grow a ring from 16 in each.
	peak, last int
	delay      time.Duration // < 0: the writer starts with the first event
	// timer starts the writer delay after a burst's first event; armed while it is set.
	timer *time.Timer
	armed bool
}

// job is one queued event, or a barrier (fn) run by the writer in its turn.
type job struct {
	event string
	data  any
	stamp time.Time
	fn    func() error
	reply chan error // Append and barriers wait for their result here
}

func startWriter(l *FileLogger, delay time.Duration) *writer {
	w := &writer{l: l, delay: delay}
	if delay == 0 {
		w.delay = DefaultWriteDelay
	}
	w.room.L = &w.mu
	return w
}

// start runs the writer goroutine (w.mu held).
func (w *writer) start() {
	if w.running || w.n == 0 {
		return
	}
	if w.armed {
		w.timer.Stop()
		w.armed = false
	}
	w.running = true
	go w.drain()
}

// fire is the timer's: the burst has waited long enough.
func (w *writer) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	w.start()
}

// drain writes the queued jobs until the queue is empty, then ends.
func (w *writer) drain() {
	l := w.l
	for {
		w.mu.Lock()
		if w.n == 0 {
			w.last, w.peak = w.peak, 0
			w.q, w.head, w.running = nil, 0, false // the backing array goes with the burst
			w.room.Broadcast()
			w.mu.Unlock()
			return
		}
		j := w.q[w.head]
		w.q[w.head] = job{}
		w.head = (w.head + 1) % len(w.q)
		w.n--
		w.room.Broadcast()
		w.mu.Unlock()

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
	owned, err := own(data, &l.bg.memo)
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
	for !w.closed && w.n >= QueueLength {
		w.room.Wait() // the queue is full: wait for room, never drop
	}
	if w.closed {
		return ErrClosed
	}
	if now != nil {
		j.stamp = now().UTC()
	}
	w.push(j)
	switch {
	case w.running:
	case j.reply != nil || w.delay < 0 || w.n >= batchLength:
		w.start()
	case !w.armed:
		w.armed = true
		if w.timer == nil {
			w.timer = time.AfterFunc(w.delay, w.fire)
		} else {
			w.timer.Reset(w.delay)
		}
	}
	return nil
}

// push queues j at the ring's end, doubling the ring when it is full (w.mu held).
func (w *writer) push(j job) {
	if w.n == len(w.q) {
		size := max(16, 2*len(w.q)) // 16: a short turn's events
		if w.q == nil {
			size = max(16, w.last)
		}
		q := make([]job, size)
		for i := range w.n {
			q[i] = w.q[(w.head+i)%len(w.q)]
		}
		w.q, w.head = q, 0
	}
	w.q[(w.head+w.n)%len(w.q)] = j
	w.n++
	w.peak = max(w.peak, w.n)
}

// stop refuses further events and waits until the writer has written everything queued.
func (w *writer) stop() {
	w.mu.Lock()
	w.closed = true
	w.start() // what waits for the timer is written now
	for w.running {
		w.room.Wait()
	}
	w.mu.Unlock()
}
