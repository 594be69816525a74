package remote

import (
	"context"
	"fmt"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Mode says where subagent jobs and background commands run (--dispatch).
type Mode string

// Dispatch modes.
const (
	ModeLocal  Mode = "local"  // local go-plugin workers only
	ModeRemote Mode = "remote" // host agents only
	ModeAuto   Mode = "auto"   // host agents while one is connected, else local workers
)

// ParseMode parses --dispatch.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeLocal, ModeRemote, ModeAuto:
		return m, nil
	}
	return "", fmt.Errorf("--dispatch %q: want local, remote or auto", s)
}

// Router is the engine's runner when NATS is configured: it sends each job to the
// local workers or to the Dispatcher by Mode, and a task's Cancel, Send and ReadLog to
// the runner its job went to.
type Router struct {
	Local  runnerapi.Runner // nil: no local workers
	Remote *Dispatcher
	Mode   Mode

	mu    sync.Mutex
	where map[string]runnerapi.Runner
}

var _ runnerapi.Runner = (*Router)(nil)

func (r *Router) pick() runnerapi.Runner {
	switch {
	case r.Mode == ModeLocal && r.Local != nil:
		return r.Local
	case r.Mode == ModeAuto && r.Local != nil && r.Remote.HostsAlive() == 0:
		return r.Local
	}
	return r.Remote
}

// runnerFor is pick for one job: in auto mode a job that requires labels goes to the
// host agents even while none is connected (it waits, visibly queued, for one that
// offers them, then fails naming them): the local machine was not asked for.
func (r *Router) runnerFor(job runnerapi.Job) runnerapi.Runner {
	if r.Mode == ModeAuto && len(job.Labels) > 0 {
		return r.Remote
	}
	return r.pick()
}

// Start implements runnerapi.Runner.
func (r *Router) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	run := r.runnerFor(job)
	r.mu.Lock()
	if r.where == nil {
		r.where = map[string]runnerapi.Runner{}
	}
	r.where[job.ID] = run
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.where, job.ID)
		r.mu.Unlock()
	}()
	return run.Start(ctx, job, emit)
}

func (r *Router) runnerOf(jobID string) runnerapi.Runner {
	r.mu.Lock()
	defer r.mu.Unlock()
	if run := r.where[jobID]; run != nil {
		return run
	}
	return r.pick()
}

// Cancel implements runnerapi.Runner.
func (r *Router) Cancel(ctx context.Context, jobID, reason string) (bool, error) {
	return r.runnerOf(jobID).Cancel(ctx, jobID, reason)
}

// Send implements runnerapi.Runner.
func (r *Router) Send(ctx context.Context, jobID, input string) error {
	return r.runnerOf(jobID).Send(ctx, jobID, input)
}

// ReadLog implements runnerapi.Runner.
func (r *Router) ReadLog(ctx context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error) {
	return r.runnerOf(jobID).ReadLog(ctx, jobID, offset, limit)
}
