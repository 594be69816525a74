package pool

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
)

// Worker is one worker process as the pool uses it.
type Worker interface {
	runnerapi.Runner
	// Pid is the worker's process id.
	Pid() int
	// ExitReason says how the process ended; empty while it runs.
	ExitReason() string
	// Check returns nil while the worker is alive and answers.
	Check() error
	// Close stops the worker.
	Close() error
}

// LaunchFunc starts a worker (the pool's seam: a fresh launch, a warm spare, a remote one).
type LaunchFunc func(ctx context.Context) (Worker, error)

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("worker pool closed")

// Pool runs jobs in worker processes. It is safe for concurrent use.
type Pool struct {
	launch LaunchFunc
	// sharedFrom, when set, supplies the process jobs' worker (an engine's supervised
	// one); the pool neither launches nor stops that worker.
	sharedFrom LaunchFunc

	mu      sync.Mutex
	shared  Worker            // the process jobs' worker
	jobs    map[string]Worker // job id → the worker running it
	own     map[Worker]bool   // workers dedicated to one agent job
	closed  bool
	running sync.WaitGroup
}

// New returns a Pool that starts workers with launch; nothing is launched yet.
func New(launch LaunchFunc) *Pool {
	return &Pool{launch: launch, jobs: map[string]Worker{}, own: map[Worker]bool{}}
}

// NewShared returns a Pool whose agent jobs get workers from launch and whose process
// jobs run in the worker shared returns (an engine's supervised worker, which replaces
// it when it dies): the pool never stops that one.
func NewShared(launch, shared LaunchFunc) *Pool {
	p := New(launch)
	p.sharedFrom = shared
	return p
}

var _ runnerapi.Runner = (*Pool)(nil)

// Start runs job in a worker (see the package doc for which one) and streams its events.
func (p *Pool) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	w, err := p.workerFor(ctx, job)
	if err != nil {
		return err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.release(w, job.Agent != nil)
		return ErrClosed
	}
	p.jobs[job.ID] = w
	p.running.Add(1)
	p.mu.Unlock()
	defer p.running.Done()
	defer func() {
		p.mu.Lock()
		delete(p.jobs, job.ID)
		p.mu.Unlock()
		p.release(w, job.Agent != nil)
	}()

	var last runnerapi.Event
	terminal := false
	err = w.Start(ctx, job, func(ev runnerapi.Event) error {
		last = ev
		terminal = ev.Kind.Terminal()
		return emit(ev)
	})
	if terminal || (err != nil && last.Sequence == 0 && w.Check() == nil) {
		// Ended normally, or refused before starting by a live worker: its error stands.
		return err
	}
	if err == nil {
		err = errors.New("the worker ended the job's stream without a terminal event")
	}
	if ctx.Err() != nil {
		return emit(runnerapi.Event{JobID: job.ID, Sequence: last.Sequence + 1, Kind: runnerapi.EventCancelled,
			Reason: context.Cause(ctx).Error()})
	}
	return emit(runnerapi.Event{JobID: job.ID, Sequence: last.Sequence + 1, Kind: runnerapi.EventFailed,
		Error: p.deathReason(w, err), Category: "worker_crashed", Recoverable: true})
}

// deathReason names what happened to w while it ran a job whose stream broke with err.
// A worker that died (SIGKILL lets it end nothing) leaves its jobs' processes running:
// they are killed here, found by the mark the worker put in their environment.
func (p *Pool) deathReason(w Worker, err error) string {
	if reason := waitExitReason(w); reason != "" {
		workerproc.KillStrays(w.Pid())
		return fmt.Sprintf("worker process (pid %d) %s", w.Pid(), reason)
	}
	return fmt.Sprintf("lost the worker process (pid %d): %v", w.Pid(), err)
}

// waitExitReason gives a dying worker a moment to be reaped, so its signal can be named.
func waitExitReason(w Worker) string {
	for range 50 {
		if r := w.ExitReason(); r != "" {
			return r
		}
		if w.Check() == nil {
			return ""
		}
		sleep()
	}
	return w.ExitReason()
}

// workerFor returns the worker that runs job: a dedicated one for an agent job, the shared
// one (launched or replaced as needed) for a process job.
func (p *Pool) workerFor(ctx context.Context, job runnerapi.Job) (Worker, error) {
	if job.Agent != nil {
		w, err := p.launch(ctx)
		if err != nil {
			return nil, fmt.Errorf("start a worker for agent job %s: %w", job.ID, err)
		}
		p.mu.Lock()
		p.own[w] = true
		p.mu.Unlock()
		return w, nil
	}
	if p.sharedFrom != nil {
		w, err := p.sharedFrom(ctx)
		if err != nil {
			return nil, fmt.Errorf("the engine's shared worker: %w", err)
		}
		return w, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if p.shared != nil && p.shared.Check() == nil {
		return p.shared, nil
	}
	if p.shared != nil {
		_ = p.shared.Close()
		p.shared = nil
	}
	w, err := p.launch(ctx)
	if err != nil {
		return nil, fmt.Errorf("start a worker for background commands: %w", err)
	}
	p.shared = w
	return w, nil
}

// release stops an agent job's dedicated worker once its job is over.
func (p *Pool) release(w Worker, dedicated bool) {
	if !dedicated {
		return
	}
	p.mu.Lock()
	delete(p.own, w)
	p.mu.Unlock()
	_ = w.Close()
}

func (p *Pool) worker(jobID string) (Worker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w, ok := p.jobs[jobID]; ok {
		return w, nil
	}
	if p.shared != nil {
		// A finished process job's log stays readable in the shared worker.
		return p.shared, nil
	}
	if p.sharedFrom != nil {
		p.mu.Unlock()
		w, err := p.sharedFrom(context.Background())
		p.mu.Lock()
		if err == nil {
			return w, nil
		}
	}
	return nil, fmt.Errorf("job %s: %w", jobID, runnerapi.ErrUnknownJob)
}

// Cancel cancels a running job in its worker.
func (p *Pool) Cancel(ctx context.Context, jobID, reason string) (bool, error) {
	w, err := p.worker(jobID)
	if err != nil {
		return false, nil
	}
	return w.Cancel(ctx, jobID, reason)
}

// Send forwards input to a running job.
func (p *Pool) Send(ctx context.Context, jobID, input string) error {
	w, err := p.worker(jobID)
	if err != nil {
		return err
	}
	return w.Send(ctx, jobID, input)
}

// ReadLog reads a page of a job's output log from its worker.
func (p *Pool) ReadLog(ctx context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error) {
	w, err := p.worker(jobID)
	if err != nil {
		return runnerapi.LogPage{}, err
	}
	return w.ReadLog(ctx, jobID, offset, limit)
}

// Close stops every worker; the jobs still running end as their workers go.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	workers := make([]Worker, 0, len(p.own)+1)
	for w := range p.own {
		workers = append(workers, w)
	}
	if p.shared != nil {
		workers = append(workers, p.shared)
	}
	p.mu.Unlock()
	var errs []error
	for _, w := range workers {
		errs = append(errs, w.Close())
	}
	return errors.Join(errs...)
}
