package interactive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func fixedHub(limits DeliveryLimits) *hub { return newHub(fixedNow, limits) }

// wakePending reports whether a wake-up waits to be taken (and takes it).
func (s *Subscription) wakePending() bool {
	select {
	case <-s.wake:
		return true
	default:
		return false
	}
}

// drain takes every queued event without waiting.
func drain(t *testing.T, sub *Subscription) ([]Event, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Next returns at once when nothing is queued
	var got []Event
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return got, nil
			}
			return got, err
		}
		got = append(got, ev)
	}
}

func types(events []Event) string {
	var b []string
	for _, e := range events {
		s := string(e.Type)
		if e.Text != "" {
			s += "(" + e.Text + ")"
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}

// What a subscriber that does not keep up receives: deltas merged into the undelivered
// one of the same kind and prompt, context updates replaced by the newest, everything
// else as it is, in order; past its bound it is disconnected with a clear error while
// other subscribers go on.
func TestSubscriberDelivery(t *testing.T) {
	delta := func(text string) Event { return Event{Type: EventTextDelta, PromptID: "p", Text: text} }
	for _, tc := range []struct {
		name    string
		limits  DeliveryLimits
		publish []Event
		want    string
		wantErr error
	}{
		{name: "deltas merge while undelivered",
			publish: []Event{delta("a"), delta("b"), delta("c")},
			want:    "text_delta(abc)"},
		{name: "a lifecycle event separates deltas",
			publish: []Event{delta("a"), {Type: EventToolStart, PromptID: "p"}, delta("b"), delta("c"), {Type: EventToolEnd, PromptID: "p"}},
			want:    "text_delta(a) tool_start text_delta(bc) tool_end"},
		{name: "thinking and text do not merge",
			publish: []Event{{Type: EventThinkingDelta, PromptID: "p", Text: "t"}, delta("a"), delta("b")},
			want:    "thinking_delta(t) text_delta(ab)"},
		{name: "prompts do not merge",
			publish: []Event{delta("a"), {Type: EventTextDelta, PromptID: "q", Text: "b"}},
			want:    "text_delta(a) text_delta(b)"},
		{name: "context updates keep the newest",
			publish: []Event{{Type: EventContextUpdate, PromptID: "p"}, {Type: EventContextUpdate, PromptID: "p"}, {Type: EventComplete, PromptID: "p"}},
			want:    "context_update complete"},
		{name: "lifecycle events are never merged or dropped",
			limits:  DeliveryLimits{SubscriberEvents: 4},
			publish: []Event{{Type: EventToolEnd}, {Type: EventPermissionRequest}, {Type: EventComplete}, {Type: EventInterrupted}},
			want:    "tool_end permission_request complete interrupted"},
		{name: "past the event bound the subscriber is cut off",
			limits:  DeliveryLimits{SubscriberEvents: 3},
			publish: []Event{{Type: EventToolStart}, {Type: EventToolEnd}, {Type: EventToolStart}, {Type: EventToolEnd}},
			wantErr: ErrSubscriberTooSlow},
		{name: "past the byte bound the subscriber is cut off",
			limits:  DeliveryLimits{SubscriberBytes: 1000},
			publish: []Event{delta(strings.Repeat("x", 600)), delta(strings.Repeat("y", 600))},
			wantErr: ErrSubscriberTooSlow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := fixedHub(tc.limits)
			slow, fast := h.subscribe(false, 0)
			if fast != nil {
				t.Fatal(fast)
			}
			quick, _ := h.subscribe(false, 0)
			var quickGot []Event
			for _, e := range tc.publish {
				h.publish(e)
				ev, err := quick.Next(context.Background()) // this one keeps up
				if err != nil {
					t.Fatal(err)
				}
				quickGot = append(quickGot, ev)
			}
			if len(quickGot) != len(tc.publish) {
				t.Fatalf("the subscriber that keeps up got %d events of %d", len(quickGot), len(tc.publish))
			}
			checkSeq(t, quickGot)
			got, err := drain(t, slow)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || len(got) != 0 {
					t.Fatalf("got %q, %v; want %v", types(got), err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), "subscribe after it") {
					t.Fatalf("the error does not say how to recover: %v", err)
				}
				return
			}
			if err != nil || types(got) != tc.want {
				t.Fatalf("got %q (%v), want %q", types(got), err, tc.want)
			}
			checkSeq(t, got)
			if last := got[len(got)-1]; last.Seq != uint64(len(tc.publish)) {
				t.Fatalf("the last event delivered has Seq %d, want %d (a merged delta carries the last Seq)", last.Seq, len(tc.publish))
			}
		})
	}
}

// An Exact subscriber (stdout's front ends) gets every delta as it was published, even
// when it reads late; context updates still keep only the newest.
func TestExactSubscriberKeepsEveryDelta(t *testing.T) {
	h := fixedHub(DeliveryLimits{})
	h.mu.Lock()
	sub, err := h.subscribeLocked(false, 0, nil, SubscribeOptions{Exact: true})
	h.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Event{
		{Type: EventTextDelta, PromptID: "p", Text: "a"}, {Type: EventTextDelta, PromptID: "p", Text: "b"},
		{Type: EventThinkingDelta, PromptID: "p", Text: "t"}, {Type: EventThinkingDelta, PromptID: "p", Text: "u"},
		{Type: EventContextUpdate, PromptID: "p"}, {Type: EventContextUpdate, PromptID: "p"},
		{Type: EventTextDelta, PromptID: "p", Text: "c"},
	} {
		h.publish(e)
	}
	got, err := drain(t, sub)
	if want := "text_delta(a) text_delta(b) thinking_delta(t) thinking_delta(u) context_update text_delta(c)"; err != nil || types(got) != want {
		t.Fatalf("got %q (%v), want %q", types(got), err, want)
	}
}

// A late subscriber replays the kept events after a sequence number, then continues
// live; a sequence whose successors are gone, or one ahead of the session, is refused.
func TestSubscribeAfterReplay(t *testing.T) {
	for _, tc := range []struct {
		after   uint64
		want    string
		wantErr bool
	}{
		{after: 3, want: "4 5 6 7 8"},
		{after: 6, want: "7 8"},
		{after: 8, want: ""},
		{after: 2, wantErr: true}, // 3 is no longer kept
		{after: 9, wantErr: true}, // ahead of the session
	} {
		h := fixedHub(DeliveryLimits{ReplayEvents: 5})
		for range 8 {
			h.publish(Event{Type: EventToolEnd})
		}
		sub, err := h.subscribe(true, tc.after)
		if tc.wantErr {
			if !errors.Is(err, ErrReplayUnavailable) {
				t.Fatalf("after %d: %v, want ErrReplayUnavailable", tc.after, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got, _ := drain(t, sub)
		var seqs []string
		for _, e := range got {
			seqs = append(seqs, fmt.Sprint(e.Seq))
		}
		if strings.Join(seqs, " ") != tc.want {
			t.Fatalf("after %d replayed %v, want %s", tc.after, seqs, tc.want)
		}
		h.publish(Event{Type: EventComplete})
		live, _ := drain(t, sub)
		if len(live) != 1 || live[0].Type != EventComplete {
			t.Fatalf("after %d: live events %q", tc.after, types(live))
		}
	}
}

// Close ends subscriptions after their queued events; Next on a closed subscription
// says so; a context ends a wait.
func TestSubscriptionEnds(t *testing.T) {
	h := fixedHub(DeliveryLimits{})
	sub, _ := h.subscribe(false, 0)
	h.publish(Event{Type: EventComplete})
	h.close()
	if ev, err := sub.Next(context.Background()); err != nil || ev.Type != EventComplete {
		t.Fatalf("queued event before the end: %v %v", ev.Type, err)
	}
	if _, err := sub.Next(context.Background()); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("after close: %v", err)
	}
	h2 := fixedHub(DeliveryLimits{})
	sub2, _ := h2.subscribe(false, 0)
	sub2.Close()
	if _, err := sub2.Next(context.Background()); !errors.Is(err, ErrUnsubscribed) {
		t.Fatalf("after Close: %v", err)
	}
	sub3, _ := h2.subscribe(false, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := sub3.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait with a deadline: %v", err)
	}
}

// A slow subscriber gets a task's consecutive text coalesced; state changes, tool events
// and other tasks' text are kept as they are, in order.
func TestTaskEventsCoalescePerTask(t *testing.T) {
	h := fixedHub(DeliveryLimits{})
	sub, _ := h.subscribe(false, 0)
	pub := func(te TaskEvent) { h.publish(Event{Type: EventBackgroundTask, Task: &te}) }
	pub(TaskEvent{TaskID: "a", State: &TaskState{TaskID: "a", Status: TaskRunning}})
	pub(TaskEvent{TaskID: "a", Text: "he"})
	pub(TaskEvent{TaskID: "a", Text: "llo"})
	pub(TaskEvent{TaskID: "b", Text: "x"})
	pub(TaskEvent{TaskID: "b", Text: "y"})
	pub(TaskEvent{TaskID: "a", ToolStart: &ToolState{ToolName: "Read"}})
	pub(TaskEvent{TaskID: "a", Text: "!"})
	pub(TaskEvent{TaskID: "a", State: &TaskState{TaskID: "a", Status: TaskCompleted}})
	got, err := drain(t, sub)
	if err != nil {
		t.Fatal(err)
	}
	var b []string
	for _, e := range got {
		te := e.Task
		switch {
		case te.State != nil:
			b = append(b, te.TaskID+":"+string(te.State.Status))
		case te.ToolStart != nil:
			b = append(b, te.TaskID+":tool")
		default:
			b = append(b, te.TaskID+":"+te.Text)
		}
	}
	want := "a:running a:hello b:xy a:tool a:! a:completed"
	if strings.Join(b, " ") != want {
		t.Fatalf("delivered %q, want %q", strings.Join(b, " "), want)
	}
	if got[1].Seq != 3 || got[2].Seq != 5 {
		t.Fatalf("merged events carry seq %d and %d, want the last merged (3, 5)", got[1].Seq, got[2].Seq)
	}
}

// NextBatch takes everything queued at once, in order, merged deltas joined, and then
// the queue's bytes are free again; a closed session's batch is still delivered before
// ErrSessionClosed.
func TestNextBatchTakesTheQueue(t *testing.T) {
	h := fixedHub(DeliveryLimits{SubscriberBytes: 1 << 10})
	sub, err := h.subscribe(false, 0)
	if err != nil {
		t.Fatal(err)
	}
	delta := func(text string) Event { return Event{Type: EventTextDelta, PromptID: "p", Text: text} }
	for _, e := range []Event{delta("a"), delta("b"), {Type: EventToolStart, PromptID: "p", Tool: &ToolState{}}, delta("c")} {
		h.publish(e)
	}
	got, err := sub.NextBatch(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := types(got); s != "text_delta(ab) tool_start text_delta(c)" {
		t.Fatalf("batch %q", s)
	}
	if got[0].Seq != 2 || got[2].Seq != 4 {
		t.Fatalf("sequences %d, %d; want 2 (the merged delta's last) and 4", got[0].Seq, got[2].Seq)
	}
	// The bytes taken are free again: as much again fits under the bound.
	for range 2 {
		h.publish(delta(strings.Repeat("x", 600)))
		if got, err = sub.NextBatch(context.Background(), got[:0]); err != nil || len(got) != 1 {
			t.Fatalf("batch %d events, err %v", len(got), err)
		}
	}
	h.publish(delta("d"))
	h.close()
	if got, err = sub.NextBatch(context.Background(), got[:0]); err != nil || types(got) != "text_delta(d)" {
		t.Fatalf("closed session's batch %q, err %v", types(got), err)
	}
	if _, err = sub.NextBatch(context.Background(), got[:0]); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("after the last batch: %v, want ErrSessionClosed", err)
	}
}

// A subscription without a type never queues it (nor is woken by it); NextBatchWithin
// gives up, taking nothing, when nothing comes in time, and takes what is queued.
func TestSubscribeWithoutAndNextBatchWithin(t *testing.T) {
	h := fixedHub(DeliveryLimits{})
	sub, err := h.subscribeSeeded([]Event{{Type: EventMessage, PromptID: "p", Seq: 1}}, SubscribeOptions{Skip: []EventType{EventMessage}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := sub.NextBatchWithin(context.Background(), 20*time.Millisecond, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("nothing queued: %q, %v", types(got), err)
	}
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Fatalf("gave up after %v, before the 20ms", waited)
	}
	h.publish(Event{Type: EventMessage, PromptID: "p"})
	h.publish(Event{Type: EventTextDelta, PromptID: "p", Text: "a"})
	h.publish(Event{Type: EventMessage, PromptID: "p"})
	h.publish(Event{Type: EventContextUpdate, PromptID: "p"})
	if got, err = sub.NextBatchWithin(context.Background(), time.Hour, got[:0]); err != nil || types(got) != "text_delta(a) context_update" {
		t.Fatalf("batch %q, %v; want the delta and the update, no message", types(got), err)
	}
	sub.wakePending() // the update's wake-up, left by a batch taken without waiting
	h.publish(Event{Type: EventMessage, PromptID: "p"})
	if sub.wakePending() {
		t.Fatal("a skipped event woke the subscriber")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err = sub.NextBatchWithin(ctx, time.Hour, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
}

// A lazy event is queued without waking the reader: it comes with the next event, or
// on its own after the lazy delay.
func TestLazyEventsWaitForCompany(t *testing.T) {
	h := fixedHub(DeliveryLimits{})
	sub, err := h.subscribeSeeded(nil, SubscribeOptions{Lazy: []EventType{EventContextUpdate}, LazyDelay: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h.publish(Event{Type: EventContextUpdate, PromptID: "p"})
	if sub.wakePending() {
		t.Fatal("a lazy event woke the reader")
	}
	h.publish(Event{Type: EventTextDelta, PromptID: "p", Text: "a"})
	got, err := sub.NextBatch(context.Background(), nil)
	if err != nil || types(got) != "context_update text_delta(a)" {
		t.Fatalf("batch %q, %v; want the update with the delta", types(got), err)
	}
	sub.wakePending()
	// A reader that waits is woken for lazy events only once their delay has passed.
	type batch struct {
		evs []Event
		err error
		at  time.Time
	}
	taken := make(chan batch)
	go func() {
		evs, err := sub.NextBatch(context.Background(), nil)
		taken <- batch{evs, err, time.Now()}
	}()
	time.Sleep(50 * time.Millisecond) // the reader waits
	start := time.Now()
	h.publish(Event{Type: EventContextUpdate, PromptID: "p"})
	h.publish(Event{Type: EventContextUpdate, PromptID: "p"}) // merged, still lazy
	b := <-taken
	if b.err != nil || types(b.evs) != "context_update" || b.evs[0].Seq != 4 {
		t.Fatalf("batch %q, %v; want the latest update alone", types(b.evs), b.err)
	}
	if waited := b.at.Sub(start); waited < 30*time.Millisecond {
		t.Fatalf("the lazy update came after %v, before its delay", waited)
	}
}

// A lazy event that comes while the reader waits with a limit no later than the lazy
// delay needs no timer of its own: the reader's limit brings it. With a later limit
// the lazy delay still applies.
func TestLazyEventRidesTheReadersLimit(t *testing.T) {
	for _, tc := range []struct {
		name             string
		limit, lazyDelay time.Duration
		wantTimer        bool
		wantAfter        time.Duration
	}{
		{"the reader's limit comes first", 40 * time.Millisecond, time.Hour, false, 40 * time.Millisecond},
		{"the lazy delay comes first", time.Hour, 30 * time.Millisecond, true, 30 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := fixedHub(DeliveryLimits{})
			sub, err := h.subscribeSeeded(nil, SubscribeOptions{Lazy: []EventType{EventContextUpdate}, LazyDelay: tc.lazyDelay})
			if err != nil {
				t.Fatal(err)
			}
			type batch struct {
				evs []Event
				err error
				at  time.Time
			}
			taken := make(chan batch, 1)
			start := time.Now()
			go func() {
				evs, err := sub.NextBatchWithin(context.Background(), tc.limit, nil)
				taken <- batch{evs, err, time.Now()}
			}()
			waiting := func() bool { sub.mu.Lock(); defer sub.mu.Unlock(); return !sub.waitUntil.IsZero() }
			for !waiting() {
				time.Sleep(time.Millisecond)
			}
			h.publish(Event{Type: EventContextUpdate, PromptID: "p"})
			sub.mu.Lock()
			armed := sub.lazyDue != nil
			sub.mu.Unlock()
			if armed != tc.wantTimer {
				t.Fatalf("lazy timer armed: %v, want %v", armed, tc.wantTimer)
			}
			select {
			case b := <-taken:
				if b.err != nil || types(b.evs) != "context_update" {
					t.Fatalf("batch %q, %v; want the update", types(b.evs), b.err)
				}
				if waited := b.at.Sub(start); waited < tc.wantAfter {
					t.Fatalf("the update came after %v, before %v", waited, tc.wantAfter)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the lazy update never reached the waiting reader")
			}
			if waiting() {
				t.Fatal("the reader still counts as waiting after it took its batch")
			}
		})
	}
}
