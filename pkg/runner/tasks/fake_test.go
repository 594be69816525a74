package tasks

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// step is one scripted action of a fake job: wait (fake time under synctest), then
// emit ev. hang blocks until the job is cancelled or its context ends.
type step struct {
	wait time.Duration
	ev   runnerapi.Event
	hang bool
}

func started(pid int) step { return step{ev: runnerapi.Event{Kind: runnerapi.EventStarted, PID: pid}} }
func text(s string) step   { return step{ev: runnerapi.Event{Kind: runnerapi.EventTextDelta, Text: s}} }
func toolStart(id, name, arg string) step {
	return step{ev: runnerapi.Event{Kind: runnerapi.EventToolStart, Tool: &runnerapi.ToolProgress{CallID: id, Name: name, FirstArg: arg}}}
}
func toolEnd(id, name, errText string) step {
	return step{ev: runnerapi.Event{Kind: runnerapi.EventToolEnd, Tool: &runnerapi.ToolProgress{CallID: id, Name: name, Error: errText}}}
}
func completed(out string) step {
	return step{ev: runnerapi.Event{Kind: runnerapi.EventCompleted, Output: out}}
}
func failed(msg string, code int) step {
	return step{ev: runnerapi.Event{Kind: runnerapi.EventFailed, Error: msg, Category: "process", ExitCode: code}}
}
func sleepFor(d time.Duration) step { return step{wait: d, ev: runnerapi.Event{}} }

var hang = step{hang: true}

// fakeRunner runs scripted jobs. Cancel makes a running job emit its cancelled
// event (unless ignoreCancel); ReadLog serves the text the job emitted.
type fakeRunner struct {
	script       func(job runnerapi.Job) []step
	startErr     error
	ignoreCancel bool
	logErr       error

	mu        sync.Mutex
	jobs      map[string]*fakeJob
	startedN  int
	running   int
	maxActive int
	cancels   []string // "jobID:reason"
	sent      []string
}

type fakeJob struct {
	job      runnerapi.Job
	cancel   chan string
	log      strings.Builder
	finished bool
}

func newFake(script func(runnerapi.Job) []step) *fakeRunner {
	return &fakeRunner{script: script, jobs: map[string]*fakeJob{}}
}

func (f *fakeRunner) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	if f.startErr != nil {
		return f.startErr
	}
	j := &fakeJob{job: job, cancel: make(chan string, 1)}
	f.mu.Lock()
	f.jobs[job.ID] = j
	f.startedN++
	f.running++
	f.maxActive = max(f.maxActive, f.running)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.running--
		j.finished = true
		f.mu.Unlock()
	}()
	seq := uint64(0)
	send := func(ev runnerapi.Event) error {
		seq++
		ev.JobID, ev.Sequence = job.ID, seq
		if ev.Kind == runnerapi.EventTextDelta {
			f.mu.Lock()
			j.log.WriteString(ev.Text)
			f.mu.Unlock()
		}
		return emit(ev)
	}
	for _, s := range f.script(job) {
		if s.wait > 0 || s.hang {
			var timer <-chan time.Time
			if !s.hang {
				timer = time.After(s.wait)
			}
			select {
			case <-timer:
			case reason := <-j.cancel:
				return send(runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: reason})
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if s.ev.Kind == 0 {
			continue
		}
		if err := send(s.ev); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeRunner) Cancel(_ context.Context, jobID, reason string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels = append(f.cancels, jobID+":"+reason)
	j, ok := f.jobs[jobID]
	if !ok || j.finished {
		return false, nil
	}
	if !f.ignoreCancel {
		select {
		case j.cancel <- reason:
		default:
		}
	}
	return true, nil
}

func (f *fakeRunner) Send(_ context.Context, jobID, input string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.jobs[jobID]; !ok {
		return runnerapi.ErrUnknownJob
	}
	f.sent = append(f.sent, jobID+":"+input)
	return nil
}

func (f *fakeRunner) ReadLog(_ context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.logErr != nil {
		return runnerapi.LogPage{}, f.logErr
	}
	j, ok := f.jobs[jobID]
	if !ok {
		return runnerapi.LogPage{}, runnerapi.ErrUnknownJob
	}
	s := j.log.String()
	offset = min(offset, int64(len(s)))
	end := int64(len(s))
	if limit > 0 {
		end = min(end, offset+limit)
	}
	return runnerapi.LogPage{Data: []byte(s[offset:end]), NextOffset: end, EOF: j.finished && end == int64(len(s))}, nil
}

func (f *fakeRunner) cancelCalls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cancels...)
}

var errWorkerGone = errors.New("worker exited")

func processReq(cmd string) Request {
	return Request{Job: runnerapi.Job{Process: &runnerapi.ProcessJob{Command: cmd, Cwd: "/repo"}}, Description: cmd, Mode: ModeBackground}
}

func agentReq(prompt string) Request {
	return Request{Job: runnerapi.Job{Agent: &runnerapi.AgentJob{AgentType: "Explore", Prompt: prompt, Cwd: "/repo"}}, Description: prompt}
}

// fixed returns a script that runs the same steps for every job.
func fixed(steps ...step) func(runnerapi.Job) []step {
	return func(runnerapi.Job) []step { return steps }
}
