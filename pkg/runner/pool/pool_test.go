package pool_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/runner/pool"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// fakeWorker runs each job by calling script; it can be made to die mid-job.
type fakeWorker struct {
	pid    int
	script func(ctx context.Context, w *fakeWorker, job runnerapi.Job, emit func(runnerapi.Event) error) error
	mu     sync.Mutex
	dead   string
	closed bool
}

func (w *fakeWorker) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	return w.script(ctx, w, job, emit)
}
func (w *fakeWorker) Cancel(context.Context, string, string) (bool, error) { return true, nil }
func (w *fakeWorker) Send(context.Context, string, string) error           { return nil }
func (w *fakeWorker) ReadLog(context.Context, string, int64, int64) (runnerapi.LogPage, error) {
	return runnerapi.LogPage{Data: []byte("log"), EOF: true}, nil
}
func (w *fakeWorker) Pid() int { return w.pid }
func (w *fakeWorker) ExitReason() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dead
}
func (w *fakeWorker) Check() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dead != "" || w.closed {
		return errors.New("gone")
	}
	return nil
}
func (w *fakeWorker) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}
func (w *fakeWorker) die(reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dead = reason
}

func completes(_ context.Context, w *fakeWorker, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	if err := emit(runnerapi.Event{JobID: job.ID, Sequence: 1, Kind: runnerapi.EventStarted, PID: w.pid}); err != nil {
		return err
	}
	return emit(runnerapi.Event{JobID: job.ID, Sequence: 2, Kind: runnerapi.EventCompleted, Output: "done"})
}

func dies(_ context.Context, w *fakeWorker, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	_ = emit(runnerapi.Event{JobID: job.ID, Sequence: 1, Kind: runnerapi.EventStarted, PID: w.pid})
	w.die("killed by signal 9 (killed)")
	return errors.New("rpc error: code = Unavailable desc = error reading from server: EOF")
}

type launches struct {
	n       atomic.Int32
	script  func(ctx context.Context, w *fakeWorker, job runnerapi.Job, emit func(runnerapi.Event) error) error
	mu      sync.Mutex
	workers []*fakeWorker
}

func (l *launches) launch(context.Context) (pool.Worker, error) {
	w := &fakeWorker{pid: 1000 + int(l.n.Add(1)), script: l.script}
	l.mu.Lock()
	l.workers = append(l.workers, w)
	l.mu.Unlock()
	return w, nil
}

func run(t *testing.T, p *pool.Pool, job runnerapi.Job) []runnerapi.Event {
	t.Helper()
	var evs []runnerapi.Event
	if err := p.Start(context.Background(), job, func(ev runnerapi.Event) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		t.Fatalf("Start(%s) = %v", job.ID, err)
	}
	return evs
}

func agentJob(id string) runnerapi.Job {
	return runnerapi.Job{ID: id, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: "/"}}
}

func processJob(id string) runnerapi.Job {
	return runnerapi.Job{ID: id, Process: &runnerapi.ProcessJob{Command: "true", Cwd: "/"}}
}

func TestAgentJobsGetAWorkerEachAndStopIt(t *testing.T) {
	l := &launches{script: completes}
	p := pool.New(l.launch)
	var wg sync.WaitGroup
	pids := make([]int, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			evs := run(t, p, agentJob([]string{"a1", "a2"}[i]))
			pids[i] = evs[0].PID
		}()
	}
	wg.Wait()
	if pids[0] == pids[1] {
		t.Fatalf("both agent jobs ran in pid %d", pids[0])
	}
	for _, w := range l.workers {
		if !w.closed {
			t.Fatalf("worker %d still running after its agent job ended", w.pid)
		}
	}
}

func TestProcessJobsShareOneWorker(t *testing.T) {
	l := &launches{script: completes}
	p := pool.New(l.launch)
	a, b := run(t, p, processJob("b1")), run(t, p, processJob("b2"))
	if a[0].PID != b[0].PID || l.n.Load() != 1 {
		t.Fatalf("process jobs ran in pids %d and %d (%d launches), want one shared worker", a[0].PID, b[0].PID, l.n.Load())
	}
	if page, err := p.ReadLog(context.Background(), "b1", 0, 10); err != nil || string(page.Data) != "log" {
		t.Fatalf("ReadLog of a finished process job = %q, %v", page.Data, err)
	}
	if err := p.Close(); err != nil || !l.workers[0].closed {
		t.Fatalf("Close = %v, shared worker closed = %v", err, l.workers[0].closed)
	}
	if err := p.Start(context.Background(), processJob("b3"), func(runnerapi.Event) error { return nil }); !errors.Is(err, pool.ErrClosed) {
		t.Fatalf("Start after Close = %v, want ErrClosed", err)
	}
}

func TestWorkerDeathFailsTheJobNamingTheSignal(t *testing.T) {
	for _, job := range []runnerapi.Job{agentJob("a1"), processJob("b1")} {
		l := &launches{script: dies}
		p := pool.New(l.launch)
		evs := run(t, p, job)
		last := evs[len(evs)-1]
		if last.Kind != runnerapi.EventFailed || !strings.Contains(last.Error, "killed by signal 9") ||
			!strings.Contains(last.Error, "pid 1001") || last.Sequence != 2 {
			t.Fatalf("%s: last event = %+v, want failed naming pid 1001 and signal 9, sequence 2", job.ID, last)
		}
		l.script = completes
		next := run(t, p, processJob("next"))
		if next[0].PID == 1001 {
			t.Fatalf("%s: the job after a crash ran in the dead worker", job.ID)
		}
	}
}

func TestCancelledContextEndsWithCancelledEvent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	l := &launches{script: func(ctx context.Context, w *fakeWorker, job runnerapi.Job, emit func(runnerapi.Event) error) error {
		_ = emit(runnerapi.Event{JobID: job.ID, Sequence: 1, Kind: runnerapi.EventStarted})
		cancel()
		return ctx.Err()
	}}
	p := pool.New(l.launch)
	var last runnerapi.Event
	if err := p.Start(ctx, agentJob("a"), func(ev runnerapi.Event) error { last = ev; return nil }); err != nil {
		t.Fatal(err)
	}
	if last.Kind != runnerapi.EventCancelled {
		t.Fatalf("last event = %+v, want cancelled", last)
	}
}

func TestRefusalBeforeStartIsAnError(t *testing.T) {
	l := &launches{script: func(context.Context, *fakeWorker, runnerapi.Job, func(runnerapi.Event) error) error {
		return runnerapi.ErrUnsupportedJob
	}}
	p := pool.New(l.launch)
	err := p.Start(context.Background(), agentJob("a"), func(runnerapi.Event) error { return nil })
	if !errors.Is(err, runnerapi.ErrUnsupportedJob) {
		t.Fatalf("Start = %v, want the worker's refusal", err)
	}
}

func TestLaunchFailureNamesTheJob(t *testing.T) {
	p := pool.New(func(context.Context) (pool.Worker, error) { return nil, errors.New("no binary") })
	err := p.Start(context.Background(), agentJob("a7"), func(runnerapi.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "a7") || !strings.Contains(err.Error(), "no binary") {
		t.Fatalf("Start = %v", err)
	}
}
