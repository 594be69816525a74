package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestDeferredStartsAfterTheFirstFrame: the session is made once the banner is out (not
// while the first frame is drawn), calls wait for it, and EvReady brings its info.
func TestDeferredStartsAfterTheFirstFrame(t *testing.T) {
	f := newFake()
	started := make(chan struct{}, 1)
	d := NewDeferred(Info{Cwd: "/p"}, func() (Session, []string, error) {
		started <- struct{}{}
		return f, []string{"a warning"}, nil
	})
	m := newModel(d, newPrinter(), newStyles(false), nil, func() time.Time { return time.Unix(0, 0) })
	select {
	case <-started:
		t.Fatal("the session was made before the first frame")
	case <-time.After(20 * time.Millisecond):
	}
	if m.info.ID != "" || m.info.Cwd != "/p" {
		t.Fatalf("provisional info = %+v", m.info)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the session was never made after the first frame")
	}
	ev := <-d.Events()
	if ev.Kind != EvReady || ev.Info == nil || ev.Info.ID != "s1" || ev.Text != "a warning" {
		t.Fatalf("first event = %+v", ev)
	}
	if cmd := m.event(ev); cmd != nil {
		t.Fatalf("ready returned a command: %v", cmd)
	}
	if m.info.ID != "s1" || m.mode != "default" {
		t.Fatalf("info after ready = %+v, mode %q", m.info, m.mode)
	}
	if !containsString(m.out.drain(), "a warning") {
		t.Fatal("the session's warning is not shown")
	}
	if id, err := d.Submit("hi"); err != nil || id != "p1" || len(f.submitted) != 1 {
		t.Fatalf("Submit = %q, %v; submitted %v", id, err, f.submitted)
	}
}

// TestDeferredCallBeforeTheFrameMakesTheSession: a call that needs the session makes it
// (nothing waits for a frame that may never come).
func TestDeferredCallBeforeTheFrameMakesTheSession(t *testing.T) {
	f := newFake()
	d := NewDeferred(Info{}, func() (Session, []string, error) { return f, nil, nil })
	done := make(chan error, 1)
	go func() { _, err := d.Submit("x"); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Submit waited for a session no one made")
	}
}

// TestDeferredSetupErrorEndsTheUI: a session that cannot be made ends the UI; calls
// return the error; the events end after EvReady.
func TestDeferredSetupErrorEndsTheUI(t *testing.T) {
	bad := errors.New("settings: .claude/settings.json: permissions.allow: want array")
	d := NewDeferred(Info{}, func() (Session, []string, error) { return nil, nil, bad })
	m := newModel(d, newPrinter(), newStyles(false), nil, func() time.Time { return time.Unix(0, 0) })
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	ev := <-d.Events()
	if ev.Kind != EvReady || ev.Info != nil || ev.Text != bad.Error() {
		t.Fatalf("first event = %+v", ev)
	}
	if _, ok := <-d.Events(); ok {
		t.Fatal("events go on after a setup error")
	}
	cmd := m.event(ev)
	if cmd == nil {
		t.Fatal("a setup error does not end the UI")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("a setup error does not quit")
	}
	if _, err := d.Submit("x"); !errors.Is(err, bad) {
		t.Fatalf("Submit after a setup error = %v", err)
	}
	if d.Err() != bad {
		t.Fatalf("Err = %v", d.Err())
	}
}

func containsString(lines []string, want string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) })
}
