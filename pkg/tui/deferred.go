package tui

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Deferred is a session still being made: the UI shows its first frame at once (the
// banner, the prompt box) while the session assembles (settings, tools, MCP servers,
// the sandbox probe), so the person at the terminal can start typing. Calls wait for
// the session; its first event is EvReady (or EvReady with the setup error).
type Deferred struct {
	info   Info
	ready  chan struct{}
	sess   Session
	notes  []string
	err    error
	events chan Event
	once   sync.Once
	start  func() (Session, []string, error)
	began  sync.Once
}

// NewDeferred makes start's session in the background once the UI has drawn its first
// frame (or at the first call that needs the session, whichever comes first): on two
// cores the assembly would otherwise compete with that frame. info is what is known
// before it ends (the directory, the permission mode asked for). start returns the
// session and notes for the user (warnings), shown once it is made.
func NewDeferred(info Info, start func() (Session, []string, error)) *Deferred {
	return &Deferred{info: info, ready: make(chan struct{}), events: make(chan Event, 64), start: start}
}

// firstFrameGrace is how long after the first size the session's assembly starts: three
// of the renderer's 60 Hz ticks, so the first frame is on the screen first.
const firstFrameGrace = 50 * time.Millisecond

// begin starts making the session; later calls do nothing.
func (d *Deferred) begin() {
	d.began.Do(func() {
		go func() {
			d.sess, d.notes, d.err = d.start()
			close(d.ready)
			d.forward()
		}()
	})
}

// forward announces the session (or its failure), then passes its events on.
func (d *Deferred) forward() {
	defer close(d.events)
	if d.err != nil {
		d.events <- Event{Kind: EvReady, Text: d.err.Error()}
		return
	}
	info := d.sess.Info()
	d.events <- Event{Kind: EvReady, Info: &info, Text: strings.Join(d.notes, "\n")}
	for e := range d.sess.Events() {
		d.events <- e
	}
}

// Err is the setup error, once the session was tried (nil while it assembles).
func (d *Deferred) Err() error {
	select {
	case <-d.ready:
		return d.err
	default:
		return nil
	}
}

// wait returns the session once made.
func (d *Deferred) wait() (Session, error) {
	d.begin()
	<-d.ready
	return d.sess, d.err
}

// Session is the session once made (nil if it failed), waiting for it.
func (d *Deferred) Session() Session {
	s, _ := d.wait()
	return s
}

func (d *Deferred) Info() Info {
	select {
	case <-d.ready:
		if d.err == nil {
			return d.sess.Info()
		}
	default:
	}
	return d.info
}

func (d *Deferred) Events() <-chan Event { return d.events }

func (d *Deferred) Submit(prompt string) (string, error) {
	s, err := d.wait()
	if err != nil {
		return "", err
	}
	return s.Submit(prompt)
}

func (d *Deferred) Abort() error {
	s, err := d.wait()
	if err != nil {
		return err
	}
	return s.Abort()
}

func (d *Deferred) Respond(id string, a Answer, message string) error {
	s, err := d.wait()
	if err != nil {
		return err
	}
	return s.Respond(id, a, message)
}

func (d *Deferred) SetPermissionMode(mode string) error {
	s, err := d.wait()
	if err != nil {
		return err
	}
	return s.SetPermissionMode(mode)
}

// Commands are the UI's own until the session is made (EvReady brings the rest).
func (d *Deferred) Commands() []Command {
	select {
	case <-d.ready:
		if d.err == nil {
			return d.sess.Commands()
		}
	default:
	}
	return nil
}

func (d *Deferred) Execute(ctx context.Context, name, args string) (CommandResult, error) {
	s, err := d.wait()
	if err != nil {
		return CommandResult{}, err
	}
	return s.Execute(ctx, name, args)
}

func (d *Deferred) Context() ContextState {
	select {
	case <-d.ready:
		if d.err == nil {
			return d.sess.Context()
		}
	default:
	}
	return ContextState{}
}

func (d *Deferred) Close(ctx context.Context) error {
	var err error
	d.once.Do(func() {
		s, serr := d.wait()
		if serr == nil {
			err = s.Close(ctx)
		}
	})
	return err
}

// TaskOutput and StopTask reach the session's tasks once it is made.
func (d *Deferred) TaskOutput(ctx context.Context, id string, max int) (string, error) {
	s, err := d.wait()
	if err != nil {
		return "", err
	}
	tc, ok := s.(TaskControl)
	if !ok {
		return "", errNoTasks
	}
	return tc.TaskOutput(ctx, id, max)
}

func (d *Deferred) StopTask(ctx context.Context, id string) error {
	s, err := d.wait()
	if err != nil {
		return err
	}
	tc, ok := s.(TaskControl)
	if !ok {
		return errNoTasks
	}
	return tc.StopTask(ctx, id)
}
