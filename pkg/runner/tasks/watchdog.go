package tasks

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// maxUnit bounds a text line the repetition watchdog remembers.
const maxUnit = 4 << 10

// armWatchdogsLocked starts t's timers when it starts running.
func (m *BackgroundTaskManager) armWatchdogsLocked(t *task) {
	if d := t.wd.MaxRuntime; d > 0 {
		t.stopMax = m.cfg.Clock.AfterFunc(d, func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			if !t.snap.State.Terminal() {
				m.tripLocked(t, TimeoutMaxRuntime, fmt.Sprintf("ran longer than %s", d))
			}
		})
	}
	if d := t.wd.IdleTimeout; d > 0 {
		m.armIdleLocked(t, d)
	}
}

func (m *BackgroundTaskManager) armIdleLocked(t *task, d time.Duration) {
	t.stopIdle = m.cfg.Clock.AfterFunc(d, func() { m.checkIdle(t) })
}

// checkIdle trips the idle watchdog, or re-arms it for the rest of the idle time
// when an event came since it was armed (one timer per task, not one per event).
func (m *BackgroundTaskManager) checkIdle(t *task) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t.snap.State.Terminal() {
		return
	}
	idle := t.wd.IdleTimeout
	if t.paused {
		m.armIdleLocked(t, idle)
		return
	}
	since := m.cfg.Clock.Now().Sub(t.lastActivity)
	if since >= idle {
		m.tripLocked(t, TimeoutIdle, fmt.Sprintf("no event for %s", idle))
		return
	}
	m.armIdleLocked(t, idle-since)
}

// checkOutputLocked runs the output, delta-count and text repetition watchdogs
// after a text delta.
func (m *BackgroundTaskManager) checkOutputLocked(t *task, text string) {
	if lim := t.wd.OutputLimit; lim > 0 && t.snap.OutputBytes > lim {
		m.tripLocked(t, TimeoutOutputLimit, fmt.Sprintf("%d bytes of output, over the limit of %d", t.snap.OutputBytes, lim))
		return
	}
	if lim := t.wd.MaxTextDeltas; lim > 0 && t.snap.TextDeltas > lim {
		m.tripLocked(t, TimeoutMaxTextDeltas, fmt.Sprintf("%d text deltas, over the limit of %d", t.snap.TextDeltas, lim))
		return
	}
	if t.rep.threshold == 0 {
		return
	}
	s := t.partial + text
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(s[:i])
		s = s[i+1:]
		if line != "" && m.checkRepetitionLocked(t, "text "+line) {
			return
		}
	}
	if len(s) > maxUnit {
		s = s[:maxUnit]
	}
	t.partial = s
}

// checkRepetitionLocked feeds one unit to the repetition watchdog; it reports
// whether the task tripped.
func (m *BackgroundTaskManager) checkRepetitionLocked(t *task, unit string) bool {
	if len(unit) > maxUnit {
		unit = unit[:maxUnit]
	}
	n, tripped := t.rep.see(unit)
	if !tripped {
		return false
	}
	shown := unit
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	m.tripLocked(t, TimeoutRepetition, fmt.Sprintf("%q %d times in the last %d steps", shown, n, t.rep.window))
	return true
}

// tripLocked fails t for a watchdog and stops its job. The output so far stays
// readable (ReadLog: the runner's log, else the manager's tail).
func (m *BackgroundTaskManager) tripLocked(t *task, reason TimeoutReason, detail string) {
	t.snap.State, t.snap.TimeoutReason = StateFailed, reason
	t.snap.Error, t.snap.ErrorCategory = fmt.Sprintf("watchdog %s: %s", reason, detail), "watchdog"
	m.finishLocked(t, EventFailed, m.cfg.Clock.Now())
	m.runs.Add(1)
	go func() {
		defer m.runs.Done()
		m.stopJob(t, "watchdog "+string(reason))
	}()
}

// stopJob asks t's runner to cancel the job; when the runner cannot, or the job has
// not ended CancelGrace later, it cancels the job's Start context (the go-plugin
// runner then cuts the stream and the worker kills the process group).
func (m *BackgroundTaskManager) stopJob(t *task, reason string) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := m.cfg.Clock.AfterFunc(m.cfg.CancelGrace, cancel)
	defer stop()
	defer cancel()
	if ok, err := t.runner.Cancel(ctx, t.id, reason); err != nil || !ok {
		t.cancel()
		return
	}
	select {
	case <-t.returned:
	case <-ctx.Done():
		t.cancel()
	}
}

// repetition counts units in a sliding window.
type repetition struct {
	threshold, window int
	ring              []string
	next              int
}

func newRepetition(w Watchdog) repetition {
	if w.RepetitionThreshold <= 1 {
		return repetition{}
	}
	return repetition{threshold: w.RepetitionThreshold, window: w.RepetitionWindow}
}

// see adds unit and returns how often it is in the window, and whether that
// reaches the threshold.
func (r *repetition) see(unit string) (int, bool) {
	if r.threshold == 0 {
		return 0, false
	}
	if len(r.ring) < r.window {
		r.ring = append(r.ring, unit)
	} else {
		r.ring[r.next] = unit
		r.next = (r.next + 1) % r.window
	}
	n := 0
	for _, u := range r.ring {
		if u == unit {
			n++
		}
	}
	return n, n >= r.threshold
}
