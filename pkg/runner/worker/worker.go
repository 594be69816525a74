package worker

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

const (
	// outputTailBytes is how much of a finished process's output the terminal
	// event carries; the rest is paged with ReadLog.
	outputTailBytes = 32 << 10
	// deltaChunkBytes bounds one text-delta event.
	deltaChunkBytes  = 64 << 10
	defaultReadLimit = 64 << 10
	// defaultKillGrace is how long a process group has between SIGTERM and
	// SIGKILL.
	defaultKillGrace = 3 * time.Second
)

// Worker runs process jobs and agent jobs (agent.go). It is safe for concurrent use.
type Worker struct {
	log       hclog.Logger
	killGrace time.Duration
	// loopHook, if set, is called on every pass of a job's event loop; tests
	// count passes with it to prove the loop waits instead of spinning.
	loopHook func()

	mu   sync.Mutex
	jobs jobTable
}

// New returns a Worker that logs through log.
func New(log hclog.Logger) *Worker {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Worker{log: log, killGrace: defaultKillGrace, jobs: newJobTable(defaultKeepFinished, defaultKeepFinishedLogBytes)}
}

type processJob struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	output    *outputLog
	done      chan struct{}
	killGrace time.Duration

	mu           sync.Mutex
	cancelReason string
	cancelled    bool
}

// stop records why the job is being stopped and kills its process group:
// SIGTERM first, SIGKILL after its kill grace if it is still there.
func (j *processJob) stop(reason string) bool {
	j.mu.Lock()
	if j.cancelled {
		j.mu.Unlock()
		return false
	}
	j.cancelled, j.cancelReason = true, reason
	j.mu.Unlock()
	pgid := -j.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	go func() {
		select {
		case <-j.done:
		case <-time.After(j.killGrace):
			_ = syscall.Kill(pgid, syscall.SIGKILL)
		}
	}()
	return true
}

func (j *processJob) ended() <-chan struct{} { return j.done }

func (j *processJob) log() *outputLog { return j.output }

// send writes input to the process's stdin.
func (j *processJob) send(input string) error {
	_, err := io.WriteString(j.stdin, input)
	return err
}

func (j *processJob) stopReason() (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cancelReason, j.cancelled
}

// Start implements runnerapi.Runner.
func (w *Worker) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	switch {
	case job.Agent != nil && job.Process != nil:
		return fmt.Errorf("job %s: %w: a job is either an agent or a process, not both", job.ID, runnerapi.ErrUnsupportedJob)
	case job.Agent != nil:
		return w.startAgent(ctx, job, emit)
	case job.Process == nil:
		return fmt.Errorf("job %s: %w: the job has neither an agent nor a process", job.ID, runnerapi.ErrUnsupportedJob)
	}
	j, err := w.launch(job)
	if err != nil {
		return err
	}
	var seq uint64
	send := func(ev runnerapi.Event) error {
		seq++
		ev.JobID, ev.Sequence = job.ID, seq
		return emit(ev)
	}
	if err := send(runnerapi.Event{Kind: runnerapi.EventStarted, PID: j.cmd.Process.Pid}); err != nil {
		j.stop("engine stream closed")
		<-j.done
		return err
	}
	w.log.Info("process job started", "job_id", job.ID, "pid", j.cmd.Process.Pid)

	var timeout <-chan time.Time
	if job.Process.Timeout > 0 {
		t := time.NewTimer(job.Process.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var streamed int64
	flush := func() error {
		for {
			data, next := j.output.ReadAt(streamed, deltaChunkBytes)
			if len(data) == 0 {
				return nil
			}
			streamed = next
			if err := send(runnerapi.Event{Kind: runnerapi.EventTextDelta, Text: string(data)}); err != nil {
				return err
			}
		}
	}
	var timedOut bool
	// A done context stays ready forever: once it has stopped the job it is
	// dropped from the select, or the loop would spin until the group dies.
	engineGone := ctx.Done()
	for running := true; running; {
		if w.loopHook != nil {
			w.loopHook()
		}
		select {
		case <-j.output.notify:
			if err := flush(); err != nil {
				j.stop("engine stream closed")
			}
		case <-timeout:
			timedOut = true
			j.stop(fmt.Sprintf("timed out after %s", job.Process.Timeout))
		case <-engineGone:
			engineGone = nil
			j.stop("engine went away")
		case <-j.done:
			running = false
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return send(w.terminal(job, j, timedOut))
}

func (w *Worker) terminal(job runnerapi.Job, j *processJob, timedOut bool) runnerapi.Event {
	tail := j.output.Tail(outputTailBytes)
	exit := j.cmd.ProcessState.ExitCode()
	reason, stopped := j.stopReason()
	w.log.Info("process job ended", "job_id", job.ID, "exit_code", exit, "stopped", stopped)
	switch {
	case timedOut:
		return runnerapi.Event{Kind: runnerapi.EventFailed, Error: reason, Category: "timeout", Output: tail, ExitCode: exit}
	case stopped:
		return runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: reason}
	case exit != 0:
		return runnerapi.Event{Kind: runnerapi.EventFailed, Error: fmt.Sprintf("exit status %d", exit),
			Category: "process", Output: tail, ExitCode: exit}
	}
	return runnerapi.Event{Kind: runnerapi.EventCompleted, Output: tail}
}

// commandShell is the shell of background commands: bash from PATH, as the Bash tool
// runs foreground commands (a model writes one command for both: `[[ ]]`, arrays), else
// /bin/sh.
func commandShell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

func (w *Worker) launch(job runnerapi.Job) (*processJob, error) {
	p := job.Process
	shell := commandShell()
	env := processEnv(os.Environ())
	for k, v := range p.Env {
		env = append(env, k+"="+v)
	}
	var cmd *exec.Cmd
	if isolate := isolateFor(job.Sandbox); isolate != nil {
		// The sandbox's command: its directory, environment (with the policy) and
		// process attributes (its group dies with it) are set.
		var err error
		if cmd, err = isolate(context.Background(), shell, []string{shell, "-c", p.Command}, p.Cwd, env, p.Command); err != nil {
			return nil, fmt.Errorf("job %s: %w", job.ID, err)
		}
	}
	if cmd == nil {
		cmd = exec.Command(shell, "-c", p.Command)
		cmd.Dir, cmd.Env, cmd.SysProcAttr = p.Cwd, env, processAttrs()
	}
	// Grandchildren that keep the output pipe open must not hold Wait forever.
	cmd.WaitDelay = 2 * time.Second
	j := &processJob{cmd: cmd, output: newOutputLog(defaultLogCap), done: make(chan struct{}), killGrace: w.killGrace}
	cmd.Stdout, cmd.Stderr = j.output, j.output
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("job %s: stdin: %w", job.ID, err)
	}
	j.stdin = stdin

	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.checkIDFree(job.ID); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("job %s: start %q: %w", job.ID, p.Command, err)
	}
	w.jobs.add(job.ID, j)
	go func() {
		_ = cmd.Wait()
		// Retired before done is closed, so whoever sees the job end also
		// sees the table that keeps (or has evicted) older finished jobs.
		w.mu.Lock()
		w.jobs.retire(job.ID, j)
		w.mu.Unlock()
		close(j.done)
	}()
	return j, nil
}

// checkIDFree fails when a job with id is still running; w.mu is held.
func (w *Worker) checkIDFree(id string) error {
	if old, ok := w.jobs.get(id); ok {
		select {
		case <-old.ended():
		default:
			return fmt.Errorf("job %s is already running", id)
		}
	}
	return nil
}

func (w *Worker) job(id string) (tableJob, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	j, ok := w.jobs.get(id)
	if !ok {
		return nil, fmt.Errorf("job %q: %w", id, runnerapi.ErrUnknownJob)
	}
	return j, nil
}

// Cancel implements runnerapi.Runner.
func (w *Worker) Cancel(_ context.Context, jobID, reason string) (bool, error) {
	j, err := w.job(jobID)
	if err != nil {
		return false, err
	}
	select {
	case <-j.ended():
		return false, nil
	default:
	}
	if reason == "" {
		reason = "cancelled"
	}
	return j.stop(reason), nil
}

// Send implements runnerapi.Runner: input goes to a process job's stdin; agent jobs
// take none (ErrUnsupportedJob).
func (w *Worker) Send(_ context.Context, jobID, input string) error {
	j, err := w.job(jobID)
	if err != nil {
		return err
	}
	select {
	case <-j.ended():
		return fmt.Errorf("job %q has ended: %w", jobID, errJobEnded)
	default:
	}
	if err := j.send(input); err != nil {
		return fmt.Errorf("job %q: send: %w", jobID, err)
	}
	return nil
}

// ReadLog implements runnerapi.Runner.
func (w *Worker) ReadLog(_ context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error) {
	j, err := w.job(jobID)
	if err != nil {
		return runnerapi.LogPage{}, err
	}
	if limit <= 0 {
		limit = defaultReadLimit
	}
	limit = min(limit, workerplugin.MaxMessageBytes/2)
	data, next := j.log().ReadAt(offset, limit)
	ended := false
	select {
	case <-j.ended():
		ended = true
	default:
	}
	return runnerapi.LogPage{Data: data, NextOffset: next, EOF: ended && next >= j.log().End()}, nil
}
