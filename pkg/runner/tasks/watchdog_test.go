package tasks

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestWatchdogs(t *testing.T) {
	spam := func(unit step, n int) []step {
		s := []step{started(1)}
		for range n {
			s = append(s, unit, sleepFor(time.Second))
		}
		return append(s, hang)
	}
	tests := []struct {
		name     string
		wd       Watchdog
		steps    []step
		reason   TimeoutReason
		after    time.Duration // fake time from spawn to the trip
		detail   string
		wantLog  string
		noCancel bool
	}{{
		name:    "idle",
		wd:      Watchdog{IdleTimeout: 30 * time.Second},
		steps:   []step{started(1), text("working\n"), sleepFor(20 * time.Second), text("still\n"), hang},
		reason:  TimeoutIdle,
		after:   50 * time.Second, // 20 s to the last event, then 30 s of silence
		detail:  "no event for 30s",
		wantLog: "working\nstill\n",
	}, {
		name:    "max runtime",
		wd:      Watchdog{MaxRuntime: 59500 * time.Millisecond, IdleTimeout: 30 * time.Second},
		steps:   spam(text("tick\n"), 1000), // a tick a second from 0 s: the 60th at 59 s
		reason:  TimeoutMaxRuntime,
		after:   59500 * time.Millisecond,
		detail:  "ran longer than 59.5s",
		wantLog: strings.Repeat("tick\n", 60),
	}, {
		name:    "output limit",
		wd:      Watchdog{OutputLimit: 10},
		steps:   []step{started(1), text("12345"), sleepFor(time.Second), text("67890"), sleepFor(time.Second), text("X"), hang},
		reason:  TimeoutOutputLimit,
		after:   2 * time.Second,
		detail:  "11 bytes of output, over the limit of 10",
		wantLog: "1234567890X",
	}, {
		name:    "text deltas",
		wd:      Watchdog{MaxTextDeltas: 3},
		steps:   spam(text("a"), 10),
		reason:  TimeoutMaxTextDeltas,
		after:   3 * time.Second,
		detail:  "4 text deltas, over the limit of 3",
		wantLog: "aaaa",
	}, {
		name: "repeated text line",
		wd:   Watchdog{RepetitionThreshold: 3},
		// Lines split across deltas still count as one line; blank lines do not count.
		steps: []step{started(1), text("I will try ag"), text("ain\n\n"), text("I will try again\nI will"),
			sleepFor(time.Second), text(" try again\n"), hang},
		reason:  TimeoutRepetition,
		after:   time.Second,
		detail:  `"text I will try again" 3 times in the last 3 steps`,
		wantLog: "I will try again\n\nI will try again\nI will try again\n",
	}, {
		name:   "repeated tool call in a window",
		wd:     Watchdog{RepetitionThreshold: 3, RepetitionWindow: 5},
		steps:  []step{started(1), toolStart("1", "Read", "a.go"), toolStart("2", "Grep", "x"), toolStart("3", "Read", "a.go"), sleepFor(time.Second), toolStart("4", "Read", "b.go"), toolStart("5", "Read", "a.go"), hang},
		reason: TimeoutRepetition,
		after:  time.Second,
		detail: `"tool Read(a.go)" 3 times in the last 5 steps`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake(fixed(tt.steps...))
				m := newManager(t, Config{Runner: f})
				req := processReq("job")
				req.Watchdog = tt.wd
				task, _ := m.Spawn(req)
				start := time.Now()
				got, err := m.Wait(t.Context(), task.ID)
				if err != nil {
					t.Fatal(err)
				}
				if took := time.Since(start); took != tt.after {
					t.Errorf("tripped after %v, want %v", took, tt.after)
				}
				g := got[0]
				want := "watchdog " + string(tt.reason) + ": " + tt.detail
				if g.State != StateFailed || g.TimeoutReason != tt.reason || g.Error != want || g.ErrorCategory != "watchdog" {
					t.Errorf("task = %s %s %q, want failed %s %q", g.State, g.TimeoutReason, g.Error, tt.reason, want)
				}
				// The job is cancelled and its output so far stays readable.
				synctest.Wait()
				if calls := f.cancelCalls(); len(calls) != 1 || calls[0] != task.ID+":watchdog "+string(tt.reason) {
					t.Errorf("runner cancels = %v", calls)
				}
				page, err := m.ReadLog(t.Context(), task.ID, 0, 0)
				if err != nil || string(page.Data) != tt.wantLog {
					t.Errorf("log = %q, %v; want %q", page.Data, err, tt.wantLog)
				}
				f.logErr = errWorkerGone
				if page, _ := m.ReadLog(t.Context(), task.ID, 0, 0); string(page.Data) != tt.wantLog || !page.EOF {
					t.Errorf("manager tail = %q eof %v; want %q", page.Data, page.EOF, tt.wantLog)
				}
			})
		})
	}
}

// A request's watchdog overrides the manager's default field by field.
func TestWatchdogDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(1), hang))
		m := newManager(t, Config{Runner: f, Watchdog: Watchdog{IdleTimeout: time.Hour, MaxRuntime: 10 * time.Second}})
		req := processReq("x")
		req.Watchdog = Watchdog{IdleTimeout: 5 * time.Second}
		task, _ := m.Spawn(req)
		got, _ := m.Wait(t.Context(), task.ID)
		if got[0].TimeoutReason != TimeoutIdle {
			t.Errorf("reason = %s", got[0].TimeoutReason)
		}
		other, _ := m.Spawn(processReq("y"))
		got, _ = m.Wait(t.Context(), other.ID)
		if got[0].TimeoutReason != TimeoutMaxRuntime {
			t.Errorf("reason = %s", got[0].TimeoutReason)
		}
	})
}
