package interactive

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Delivery bounds (DESIGN.md decision 6). A subscriber's queue holds what it has not yet
// taken; deltas and context updates merge into an undelivered event of the same kind, so
// a slow reader gets fewer, larger deltas; anything else is queued as it is, and a
// subscriber whose queue passes a bound is disconnected (ErrSubscriberTooSlow) while the
// session and the other subscribers go on.
const (
	DefaultSubscriberEvents = 1024
	DefaultSubscriberBytes  = 8 << 20
	// The replay buffer keeps the latest events for SubscribeAfter.
	DefaultReplayEvents = 1024
	DefaultReplayBytes  = 1 << 20
)

// hub numbers events, keeps the replay buffer and fans events out to subscribers.
// publish never blocks on a subscriber.
type hub struct {
	now    func() time.Time
	limits DeliveryLimits

	mu     sync.Mutex
	seq    uint64
	replay ring
	subs   map[*Subscription]struct{}
	closed bool
}

// DeliveryLimits bound what the session keeps for its subscribers. Zero fields take the
// defaults above.
type DeliveryLimits struct {
	SubscriberEvents, SubscriberBytes int
	ReplayEvents, ReplayBytes         int
}

func (l DeliveryLimits) withDefaults() DeliveryLimits {
	def := func(v, d int) int {
		if v <= 0 {
			return d
		}
		return v
	}
	l.SubscriberEvents = def(l.SubscriberEvents, DefaultSubscriberEvents)
	l.SubscriberBytes = def(l.SubscriberBytes, DefaultSubscriberBytes)
	l.ReplayEvents = def(l.ReplayEvents, DefaultReplayEvents)
	l.ReplayBytes = def(l.ReplayBytes, DefaultReplayBytes)
	return l
}

func newHub(now func() time.Time, limits DeliveryLimits) *hub {
	l := limits.withDefaults()
	return &hub{now: now, limits: l, replay: ring{maxEvents: l.ReplayEvents, maxBytes: l.ReplayBytes},
		subs: map[*Subscription]struct{}{}}
}

// publish numbers e, keeps it for replay and queues it for every subscriber.
func (h *hub) publish(e Event) Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return e
	}
	h.seq++
	e.Seq, e.Time = h.seq, h.now()
	h.replay.push(e)
	for s := range h.subs {
		if !s.offer(e) {
			delete(h.subs, s)
		}
	}
	return e
}

// lastSeq is the sequence number of the latest event (0 before the first).
func (h *hub) lastSeq() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}

// subscribe registers a subscriber; with replay, the kept events after `after` are
// queued first, atomically with the registration (no event is missed or repeated).
func (h *hub) subscribe(replay bool, after uint64) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.subscribeLocked(replay, after, nil)
}

// subscribeSeeded registers a live subscriber whose queue starts with seed (events
// already published, still relevant: the waiting permission requests).
func (h *hub) subscribeSeeded(seed []Event, o SubscribeOptions) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.subscribeLocked(false, 0, seed, o)
}

// SubscribeOptions shape a subscription for a reader that forwards events over a
// transport, where every wake-up and message costs.
type SubscribeOptions struct {
	// Skip lists event types the reader never takes: they are not queued for it and do
	// not wake it.
	Skip []EventType
	// Lazy lists event types that need not reach the reader at once: they are queued
	// without waking it, and taken with the next event, or LazyDelay after they came
	// when none follows.
	Lazy      []EventType
	LazyDelay time.Duration
	// Exact keeps every text and thinking delta as the provider streamed it: none is
	// merged into an undelivered one. For a front end whose output is the stream itself
	// (stream-json's --include-partial-messages: one stream_event per provider event);
	// its queue still has the subscriber bounds.
	Exact bool
}

func (h *hub) subscribeLocked(replay bool, after uint64, seed []Event, o ...SubscribeOptions) (*Subscription, error) {
	s := &Subscription{hub: h, limits: h.limits, wake: make(chan struct{}, 1), delivered: after}
	if len(o) > 0 {
		s.skip, s.lazy, s.lazyDelay, s.exact = o[0].Skip, o[0].Lazy, o[0].LazyDelay, o[0].Exact
	}
	if replay {
		if after > h.seq {
			return nil, fmt.Errorf("%w: sequence %d is ahead of the session's latest event %d", ErrReplayUnavailable, after, h.seq)
		}
		if oldest := h.replay.oldestSeq(h.seq); after+1 < oldest {
			return nil, fmt.Errorf("%w: the events after %d are no longer kept (the replay buffer starts at %d)", ErrReplayUnavailable, after, oldest)
		}
		for _, e := range h.replay.after(after) {
			if !s.offer(e) {
				return nil, fmt.Errorf("%w: replaying after %d", s.err, after)
			}
		}
	}
	for _, e := range seed {
		s.offer(e)
	}
	if h.closed {
		s.end(ErrSessionClosed, true)
		return s, nil
	}
	h.subs[s] = struct{}{}
	return s, nil
}

func (h *hub) unsubscribe(s *Subscription) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// close ends every subscription once its queued events are taken.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		s.end(ErrSessionClosed, true)
		delete(h.subs, s)
	}
}

// Subscription receives a session's events in order through a bounded queue. Take them
// with Next; a subscription that stops taking them is disconnected past its bound, never
// slowing the session.
type Subscription struct {
	hub    *hub
	limits DeliveryLimits
	wake   chan struct{} // one pending wake-up
	// skip lists the event types the reader never takes: they are not queued and do not
	// wake it; lazy those it takes with the next event, or after lazyDelay: they are
	// queued without waking it (both fixed at creation).
	skip, lazy []EventType
	lazyDelay  time.Duration
	exact      bool        // deltas are never merged (SubscribeOptions.Exact)
	lazyDue    *time.Timer // wakes the reader for a lazy event no other event followed (mu held)
	// waitUntil is when the blocked reader wakes by itself (NextBatchWithin), zero while
	// it is not blocked or waits without a limit (mu held): a lazy event that comes while
	// it waits no longer than the lazy delay needs no timer of its own.
	waitUntil time.Time

	mu        sync.Mutex
	queue     []queued
	bytes     int
	delivered uint64 // Seq of the latest event taken (or the replay start)
	err       error
	drain     bool // deliver the queue before err (session closed), not after (cut off)
}

// queued is one undelivered event; buf holds merged delta text (joined once, on delivery).
type queued struct {
	ev  Event
	buf *textPieces
}

// textPieces collects the texts of merged deltas. A growing buffer would copy a long
// answer several times over as it grows; the pieces are joined once, into a string of
// exactly their size, when the merged event is taken.
type textPieces struct {
	parts []string
	n     int
}

func (t *textPieces) add(s string) {
	t.parts = append(t.parts, s)
	t.n += len(s)
}

func (t *textPieces) String() string {
	if len(t.parts) == 1 {
		return t.parts[0]
	}
	var b strings.Builder
	b.Grow(t.n)
	for _, s := range t.parts {
		b.WriteString(s)
	}
	return b.String()
}

// Next returns the next event, waiting until there is one. It fails with
// ErrSubscriberTooSlow after a disconnection, ErrSessionClosed once the closed
// session's events are all taken, ErrUnsubscribed after Close, or ctx's error.
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	var one [1]Event
	evs, err := s.take(ctx, one[:0], 1)
	if err != nil {
		return Event{}, err
	}
	return evs[0], nil
}

// NextBatch appends every event queued now to into (at least one: it waits until
// there is one) and returns it. A reader that sends what it takes over a transport
// takes all of it per wake-up, instead of one event and one hand-off each. It fails
// as Next does, and only when it takes nothing.
func (s *Subscription) NextBatch(ctx context.Context, into []Event) ([]Event, error) {
	return s.take(ctx, into, 0)
}

// NextBatchWithin is NextBatch that waits at most d: it returns into unchanged (and no
// error) when nothing came in time. A transport uses it to let something it holds back
// wait for company, but not for long.
func (s *Subscription) NextBatchWithin(ctx context.Context, d time.Duration, into []Event) ([]Event, error) {
	t := withinTimer(d)
	defer releaseWithin(t)
	return s.takeUntilDeadline(ctx, into, 0, t.C, time.Now().Add(d))
}

// withinTimers keeps NextBatchWithin's timers: a transport's reader waits with one for
// nearly every batch of every prompt.
var withinTimers sync.Pool

func withinTimer(d time.Duration) *time.Timer {
	if t, ok := withinTimers.Get().(*time.Timer); ok {
		t.Reset(d) // stopped when put back; since Go 1.23 no stale tick survives Stop
		return t
	}
	return time.NewTimer(d)
}

func releaseWithin(t *time.Timer) {
	t.Stop()
	withinTimers.Put(t)
}

// take appends up to limit queued events (all of them when limit is 0) to into,
// waiting until there is at least one.
func (s *Subscription) take(ctx context.Context, into []Event, limit int) ([]Event, error) {
	return s.takeUntilDeadline(ctx, into, limit, nil, time.Time{})
}

// takeUntilDeadline is take that also gives up, taking nothing, when timeout fires, at
// deadline (both none for a wait without limit): lazy events coming meanwhile may rely
// on it instead of a timer of their own.
func (s *Subscription) takeUntilDeadline(ctx context.Context, into []Event, limit int, timeout <-chan time.Time, deadline time.Time) ([]Event, error) {
	for timedOut := false; ; {
		s.mu.Lock()
		if len(s.queue) > 0 && (s.err == nil || s.drain) {
			n := len(s.queue)
			if limit > 0 && limit < n {
				n = limit
			}
			for i := range n {
				into = append(into, s.deliver(&s.queue[i]))
				s.queue[i] = queued{}
			}
			if n == len(s.queue) && s.lazyDue != nil { // the lazy events went: no wake-up is due
				s.lazyDue.Stop()
				s.lazyDue = nil
			}
			if n == len(s.queue) && cap(s.queue) <= 64 {
				s.queue = s.queue[:0] // a small queue is reused; a burst's is let go
			} else if s.queue = s.queue[n:]; len(s.queue) == 0 {
				s.queue = nil
			}
			s.mu.Unlock()
			return into, nil
		}
		err := s.err
		if err == nil && !timedOut {
			s.waitUntil = deadline
		}
		s.mu.Unlock()
		if err != nil {
			return into, err
		}
		if timedOut {
			return into, nil
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			s.stopWaiting()
			return into, ctx.Err()
		case <-timeout:
			timedOut = true // take what was queued without a wake-up (lazy events), if any
		}
		s.stopWaiting()
	}
}

// stopWaiting records that the reader no longer waits (see waitUntil). A lazy event
// that relied on its deadline is taken by this reader's next look at the queue, which
// follows at once; a later wait without a deadline returns it without blocking.
func (s *Subscription) stopWaiting() {
	s.mu.Lock()
	s.waitUntil = time.Time{}
	s.mu.Unlock()
}

// deliver builds q's event as it is taken (mu held): merged text is joined here.
func (s *Subscription) deliver(q *queued) Event {
	ev := q.ev
	switch {
	case q.buf != nil && ev.Task != nil:
		merged := *ev.Task
		merged.Text = q.buf.String()
		ev.Task = &merged
	case q.buf != nil:
		ev.Text = q.buf.String()
	}
	s.bytes -= eventSize(ev)
	s.delivered = ev.Seq
	return ev
}

// Close ends the subscription; Next then fails with ErrUnsubscribed.
func (s *Subscription) Close() {
	s.hub.unsubscribe(s)
	s.end(ErrUnsubscribed, false)
}

// offer queues e; false means the subscription is (now) ended.
func (s *Subscription) offer(e Event) bool {
	if slices.Contains(s.skip, e.Type) {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false
	}
	if n := len(s.queue); n > 0 && e.Type == EventBackgroundTask {
		last := &s.queue[n-1]
		if last.ev.Type == e.Type && mergeableTask(last.ev.Task, e.Task) {
			if last.buf == nil {
				last.buf = &textPieces{}
				last.buf.add(last.ev.Task.Text)
			}
			last.buf.add(e.Task.Text)
			last.ev.Seq, last.ev.Time = e.Seq, e.Time
			s.bytes += len(e.Task.Text)
			return s.admit(e)
		}
	}
	if n := len(s.queue); n > 0 && e.Type.mergeable() && !(s.exact && e.Type != EventContextUpdate) {
		last := &s.queue[n-1]
		if last.ev.Type == e.Type && last.ev.PromptID == e.PromptID {
			if e.Type == EventContextUpdate {
				s.bytes += eventSize(e) - eventSize(last.ev)
				last.ev = e
			} else {
				if last.buf == nil {
					last.buf = &textPieces{}
					last.buf.add(last.ev.Text)
					last.ev.Text = ""
				}
				last.buf.add(e.Text)
				last.ev.Seq, last.ev.Time = e.Seq, e.Time
				s.bytes += len(e.Text)
			}
			return s.admit(e)
		}
	}
	s.queue = append(s.queue, queued{ev: e})
	s.bytes += eventSize(e)
	return s.admit(e)
}

// admit wakes the reader for the event just queued, or arms its lazy wake-up (mu held);
// false means the queue passed its bound and the subscription ended.
func (s *Subscription) admit(e Event) bool {
	if len(s.lazy) > 0 && slices.Contains(s.lazy, e.Type) && s.withinBounds() {
		if s.lazyDue == nil && !s.wakesBy(s.lazyDelay) {
			s.lazyDue = time.AfterFunc(s.lazyDelay, s.wakeLazy)
		}
		return true
	}
	return s.checkBounds()
}

// wakesBy reports whether the reader waits and wakes by itself within d from now
// (mu held).
func (s *Subscription) wakesBy(d time.Duration) bool {
	return !s.waitUntil.IsZero() && !s.waitUntil.After(time.Now().Add(d))
}

// wakeLazy wakes the reader for the lazy events still queued (lazyDue's timer).
func (s *Subscription) wakeLazy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lazyDue = nil
	if len(s.queue) > 0 {
		s.signal()
	}
}

// withinBounds reports whether the queue is within its bounds (mu held).
func (s *Subscription) withinBounds() bool {
	return len(s.queue) <= s.limits.SubscriberEvents && s.bytes <= s.limits.SubscriberBytes
}

// checkBounds disconnects a subscriber whose queue is over its bound (mu held).
func (s *Subscription) checkBounds() bool {
	if s.withinBounds() {
		s.signal()
		return true
	}
	s.endLocked(fmt.Errorf("%w: %d events (%d bytes) not taken; the last one taken was %d: subscribe after it to replay what is still kept",
		ErrSubscriberTooSlow, len(s.queue), s.bytes, s.delivered), false)
	return false
}

func (s *Subscription) end(err error, drain bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLocked(err, drain)
}

func (s *Subscription) endLocked(err error, drain bool) {
	if s.err != nil {
		return
	}
	if s.lazyDue != nil {
		s.lazyDue.Stop()
		s.lazyDue = nil
	}
	s.err, s.drain = err, drain
	if !drain {
		s.queue, s.bytes = nil, 0
	}
	s.signal()
}

func (s *Subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// eventSize approximates what an event holds in memory, for the byte bounds.
func eventSize(e Event) int {
	n := 64 + len(e.Text) + len(e.PromptID)
	if t := e.Tool; t != nil {
		n += len(t.Args) + len(t.FirstArg) + len(t.Reason) + len(t.ToolResultData) + len(t.Message)
		for _, d := range t.DiffLines {
			n += len(d.Text) + 16
		}
	}
	if p := e.Permission; p != nil {
		n += len(p.Input) + len(p.Reason) + len(p.SessionRule)
	}
	if m := e.Message; m != nil {
		for _, p := range m.Content {
			n += 32 + len(p.Text) + len(p.Signature)
			if p.ToolCall != nil {
				n += len(p.ToolCall.Input)
			}
			if p.ToolResult != nil {
				n += len(p.ToolResult.Content)
			}
		}
	}
	if g := e.Group; g != nil {
		for _, r := range g.Group.Results {
			n += 64 + len(r.Summary) + len(r.Error) + len(r.Label)
		}
	}
	if r := e.Result; r != nil {
		n += len(r.Response) + len(r.Error)
		for _, t := range r.Tools {
			n += 64 + len(t.Args) + len(t.FirstArg) + len(t.ToolResultData)
		}
	}
	if t := e.Task; t != nil {
		n += 128 + len(t.Text)
		if t.State != nil {
			n += len(t.State.Label) + len(t.State.Error) + len(t.State.OutputSummary) + len(t.State.CurrentAction)
		}
	}
	return n
}

// ring keeps the latest events within a count and a byte bound: a circular buffer that
// grows (doubling) up to the count bound and then overwrites its oldest slot, so a busy
// session neither reallocates nor copies it per event, and an idle one keeps it small.
type ring struct {
	maxEvents, maxBytes int
	buf                 []Event
	head, n, bytes      int
}

func (r *ring) len() int { return r.n }

func (r *ring) at(i int) *Event { return &r.buf[(r.head+i)%len(r.buf)] }

func (r *ring) push(e Event) {
	if r.n == len(r.buf) {
		if len(r.buf) < r.maxEvents {
			r.grow()
		} else {
			r.dropOldest()
		}
	}
	*r.at(r.n) = e
	r.n++
	r.bytes += eventSize(e)
	for r.n > 1 && r.bytes > r.maxBytes {
		r.dropOldest()
	}
}

func (r *ring) grow() {
	size := min(max(8, 2*len(r.buf)), r.maxEvents)
	buf := make([]Event, size)
	for i := range r.n {
		buf[i] = *r.at(i)
	}
	r.buf, r.head = buf, 0
}

func (r *ring) dropOldest() {
	r.bytes -= eventSize(r.buf[r.head])
	r.buf[r.head] = Event{}
	r.head = (r.head + 1) % len(r.buf)
	r.n--
}

// oldestSeq is the Seq of the oldest kept event; latest+1 when none is kept.
func (r *ring) oldestSeq(latest uint64) uint64 {
	if r.n == 0 {
		return latest + 1
	}
	return r.at(0).Seq
}

// after returns the kept events with Seq > seq, oldest first.
func (r *ring) after(seq uint64) []Event {
	var out []Event
	for i := range r.n {
		if e := r.at(i); e.Seq > seq {
			out = append(out, *e)
		}
	}
	return out
}
