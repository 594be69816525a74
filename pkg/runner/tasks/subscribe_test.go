package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

var update = flag.Bool("update", false, "rewrite golden files")

// A subscriber that reads nothing while two tasks stream gets each task's deltas
// merged between its lifecycle events, every lifecycle event, and each task's
// events in order.
func TestSlowSubscriberCoalescesDeltas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(func(job runnerapi.Job) []step {
			p := job.Process.Command
			return []step{started(1), text(p + "1 "), sleepFor(time.Second), text(p + "2 "), toolStart("c", "x", ""),
				text(p + "3 "), sleepFor(time.Second), text(p + "4 "), completed(p)}
		})
		m := newManager(t, Config{Runner: f})
		sub := m.Subscribe(SubscribeOptions{})
		a, _ := m.Spawn(processReq("a"))
		b, _ := m.Spawn(processReq("b"))
		if _, err := m.Wait(t.Context(), a.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		evs := drain(t, sub)
		for _, task := range []Task{a, b} {
			var got []string
			for _, e := range evs {
				if e.TaskID != task.ID {
					continue
				}
				if e.Type == EventTextDelta {
					got = append(got, "delta "+e.Text)
				} else {
					got = append(got, string(e.Type))
				}
			}
			p := task.Command
			want := []string{string(EventQueued), string(EventStarted), string(EventSpawned), "delta " + p + "1 " + p + "2 ",
				string(EventToolStart), "delta " + p + "3 " + p + "4 ", string(EventCompleted)}
			if !slices.Equal(got, want) {
				t.Errorf("task %s events = %q, want %q", p, got, want)
			}
		}
	})
}

// A subscriber that keeps up sees every delta as it was sent.
func TestFastSubscriberGetsEveryDelta(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(1), text("a"), sleepFor(time.Second), text("b"), sleepFor(time.Second), text("c"), completed("")))
		m := newManager(t, Config{Runner: f})
		sub := m.Subscribe(SubscribeOptions{})
		var deltas []string
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				ev, err := sub.Next(context.Background())
				if err != nil {
					return
				}
				if ev.Type == EventTextDelta {
					deltas = append(deltas, ev.Text)
				}
				if ev.Type == EventCompleted {
					return
				}
			}
		}()
		_, _ = m.Spawn(processReq("x"))
		<-done
		if !slices.Equal(deltas, []string{"a", "b", "c"}) {
			t.Errorf("deltas = %q", deltas)
		}
	})
}

func TestSubscriptionBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		steps := []step{started(1)}
		for range 10 {
			steps = append(steps, text("0123456789"))
		}
		f := newFake(fixed(append(steps, completed("done"))...))
		m := newManager(t, Config{Runner: f})
		small := m.Subscribe(SubscribeOptions{MaxDeltaBytes: 16})
		tiny := m.Subscribe(SubscribeOptions{MaxPending: 2})
		task, _ := m.Spawn(processReq("x"))
		_, _ = m.Wait(t.Context(), task.ID)
		synctest.Wait()

		evs := drain(t, small)
		var d Event
		for _, e := range evs {
			if e.Type == EventTextDelta {
				d = e
			}
		}
		if d.Text != "4567890123456789" || d.DroppedBytes != 84 || len(evs) != 5 {
			t.Errorf("capped delta = %q dropped %d; %d events", d.Text, d.DroppedBytes, len(evs))
		}

		// Two lifecycle events fit; the third ends the subscription, which says so
		// after handing out what it holds.
		var got []EventType
		for {
			ev, err := tiny.Next(t.Context())
			if err != nil {
				if !errors.Is(err, ErrSubscriberOverflow) {
					t.Errorf("err = %v", err)
				}
				break
			}
			got = append(got, ev.Type)
		}
		if !slices.Equal(got, []EventType{EventQueued, EventStarted}) {
			t.Errorf("before overflow: %v", got)
		}

		small.Close()
		if _, err := small.Next(t.Context()); !errors.Is(err, ErrSubscriptionClosed) {
			t.Errorf("after close: %v", err)
		}
	})
}

// fixedClock ticks one second per reading, from a fixed instant.
type fixedClock struct {
	realClock
	now time.Time
}

func (c *fixedClock) Now() time.Time {
	c.now = c.now.Add(time.Second)
	return c.now
}

// The event stream of an agent task, as the engine would persist and serve it.
func TestEventsGolden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(4242), text("Looking"), toolStart("toolu_1", "Grep", "TODO"),
			toolEnd("toolu_1", "Grep", ""), text(" done."), completed("Found 3 TODOs.")))
		m := newManager(t, Config{Runner: f, Clock: &fixedClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
			NewID: func(r Request) string { return "agent_" + r.Job.Agent.AgentType }})
		sub := m.Subscribe(SubscribeOptions{})
		req := agentReq("find the TODOs")
		req.ParentSessionID, req.ParentToolUseID, req.GroupID = "sess_1", "toolu_parent", "group_1"
		req.Job.Agent.Model = "haiku"
		task, _ := m.Spawn(req)
		_, _ = m.Wait(t.Context(), task.ID)
		synctest.Wait()
		var b strings.Builder
		for _, ev := range drain(t, sub) {
			line, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		golden := filepath.Join("testdata", "agent_events.golden.jsonl")
		if *update {
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("events differ from %s (go test -update):\n%s", golden, b.String())
		}
	})
}
