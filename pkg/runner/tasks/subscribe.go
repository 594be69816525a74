package tasks

import (
	"context"
	"sync"
	"unicode/utf8"
)

// Default subscription bounds.
const (
	// DefaultMaxPending is how many lifecycle events a subscriber may leave unread
	// before its subscription ends with ErrSubscriberOverflow.
	DefaultMaxPending = 4096
	// DefaultMaxDeltaBytes caps the text of one coalesced pending delta; beyond it
	// the oldest text of that delta is dropped (counted in Event.DroppedBytes).
	DefaultMaxDeltaBytes = 64 << 10
)

// SubscribeOptions bounds a subscription; zero fields take the defaults.
type SubscribeOptions struct {
	MaxPending    int
	MaxDeltaBytes int
}

// Subscription receives the manager's events. Publishing never blocks on it: a
// slow reader gets consecutive text deltas of a task merged into one (per task
// order is kept: a delta is only merged into a pending delta of the same task with
// no event of that task after it), and lifecycle events queue up to MaxPending.
type Subscription struct {
	m        *BackgroundTaskManager
	maxLife  int
	maxDelta int

	mu     sync.Mutex
	q      []Event
	popped int            // events taken from the front so far (absolute index base)
	delta  map[string]int // task id → absolute index of its mergeable pending delta
	life   int            // pending lifecycle events
	err    error          // set on overflow or Close; Next returns it once q is drained
	signal chan struct{}
}

// Subscribe returns a subscription to every event published from now on.
func (m *BackgroundTaskManager) Subscribe(opts SubscribeOptions) *Subscription {
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	if opts.MaxDeltaBytes <= 0 {
		opts.MaxDeltaBytes = DefaultMaxDeltaBytes
	}
	s := &Subscription{m: m, maxLife: opts.MaxPending, maxDelta: opts.MaxDeltaBytes,
		delta: map[string]int{}, signal: make(chan struct{}, 1)}
	m.mu.Lock()
	m.subs[s] = struct{}{}
	m.mu.Unlock()
	return s
}

// push queues ev; called with the manager's lock held, so events queue in
// publication order.
func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if ev.Type == EventTextDelta {
		if abs, ok := s.delta[ev.TaskID]; ok {
			d := &s.q[abs-s.popped]
			d.Text += ev.Text
			d.DroppedBytes += ev.DroppedBytes
			if over := len(d.Text) - s.maxDelta; over > 0 {
				cut := over
				for cut < len(d.Text) && !utf8.RuneStart(d.Text[cut]) {
					cut++
				}
				d.Text = d.Text[cut:]
				d.DroppedBytes += int64(cut)
			}
			return
		}
		s.delta[ev.TaskID] = s.popped + len(s.q)
		s.q = append(s.q, ev)
		s.wake()
		return
	}
	if s.life >= s.maxLife {
		s.err = ErrSubscriberOverflow
		s.wake()
		return
	}
	// A later lifecycle event of the task closes its pending delta to merging, so
	// the task's events stay in order.
	delete(s.delta, ev.TaskID)
	s.q = append(s.q, ev)
	s.life++
	s.wake()
}

func (s *Subscription) wake() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Next returns the next event, waiting for one until ctx ends. After an overflow
// or Close it returns the events still queued, then the error.
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		s.mu.Lock()
		if len(s.q) > 0 {
			ev := s.q[0]
			s.q[0] = Event{}
			s.q = s.q[1:]
			if abs, ok := s.delta[ev.TaskID]; ok && abs == s.popped {
				delete(s.delta, ev.TaskID)
			}
			s.popped++
			if ev.Type.Lifecycle() {
				s.life--
			}
			s.mu.Unlock()
			return ev, nil
		}
		err := s.err
		s.mu.Unlock()
		if err != nil {
			return Event{}, err
		}
		select {
		case <-s.signal:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Close ends the subscription: Next returns what is queued, then
// ErrSubscriptionClosed.
func (s *Subscription) Close() {
	s.m.mu.Lock()
	delete(s.m.subs, s)
	s.m.mu.Unlock()
	s.mu.Lock()
	if s.err == nil {
		s.err = ErrSubscriptionClosed
	}
	s.mu.Unlock()
	s.wake()
}
