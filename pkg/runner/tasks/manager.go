package tasks

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Runner is the port the managers run jobs through: runnerapi.Runner's method set,
// declared here where it is consumed. The go-plugin worker client, an in-process
// runner, the WorktreeSubagentRunner and a remote dispatcher all satisfy it.
type Runner interface {
	Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error
	Cancel(ctx context.Context, jobID, reason string) (bool, error)
	Send(ctx context.Context, jobID, input string) error
	ReadLog(ctx context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error)
}

// RunnerFor chooses the runner of one job. It is the launch path's seam: a remote
// dispatcher (the multi-host issue) plugs in here, or wraps the runner, without a
// change to the managers.
type RunnerFor func(job runnerapi.Job) (Runner, error)

// Defaults of Config.
const (
	DefaultMaxConcurrent = 4
	DefaultCancelGrace   = 5 * time.Second
)

// Config configures a BackgroundTaskManager. Runner or RunnerFor is required.
type Config struct {
	// Runner runs every job, unless RunnerFor is set.
	Runner Runner
	// RunnerFor picks a job's runner when the task is spawned; the task's Cancel,
	// Send and ReadLog go to the runner it picked.
	RunnerFor RunnerFor
	// MaxConcurrent bounds the tasks running (or waiting for a permission answer) at
	// once; the others wait in FIFO order in state queued. Default DefaultMaxConcurrent.
	MaxConcurrent int
	// NewID names a task (the spec's request-aware TBackgroundTaskIdFactory).
	// Default: "agent_1", "process_2", ... (one counter for the manager).
	NewID func(Request) string
	// Clock is the time source of timestamps and watchdogs (default: real time).
	Clock Clock
	// Watchdog is the default of every request's zero watchdog fields.
	Watchdog Watchdog
	// LogTail is how many bytes of each task's output the manager keeps for ReadLog
	// when the runner cannot serve it (default DefaultLogTail).
	LogTail int
	// CancelGrace is how long a cancelled job may take to end after the runner's
	// Cancel before its Start context is cancelled too (default DefaultCancelGrace).
	CancelGrace time.Duration
}

// BackgroundTaskManager is the registry and scheduler of background tasks (the
// spec's BackgroundTaskManager). It is safe for concurrent use.
type BackgroundTaskManager struct {
	cfg Config

	mu     sync.Mutex
	tasks  map[string]*task
	order  []*task // creation order, for List
	queue  []*task
	active int
	seq    uint64
	nextID int
	subs   map[*Subscription]struct{}
	closed bool
	runs   sync.WaitGroup
}

// task is the manager's record of one task; every field but the immutable ones
// (id, req, job, runner, wd, ctx, cancel, done, returned) is guarded by the
// manager's mutex.
type task struct {
	id       string
	req      Request
	job      runnerapi.Job
	runner   Runner
	wd       Watchdog
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{} // closed when the task reaches a terminal state
	returned chan struct{} // closed when the job's Start returned (or never ran)

	snap            Task
	open            []Action // tool calls started and not ended, oldest first
	log             tail
	lastActivity    time.Time
	paused          bool // waiting for a permission answer: the idle clock stops
	cancelRequested bool
	cancelReason    string
	stopIdle        func() bool
	stopMax         func() bool
	rep             repetition
	partial         string // text after the last newline, for the repetition watchdog
}

// New returns a manager; it runs nothing until Spawn.
func New(cfg Config) (*BackgroundTaskManager, error) {
	if cfg.Runner == nil && cfg.RunnerFor == nil {
		return nil, fmt.Errorf("background task manager: %w: no Runner or RunnerFor", ErrInvalidRequest)
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.LogTail <= 0 {
		cfg.LogTail = DefaultLogTail
	}
	if cfg.CancelGrace <= 0 {
		cfg.CancelGrace = DefaultCancelGrace
	}
	return &BackgroundTaskManager{cfg: cfg, tasks: map[string]*task{}, subs: map[*Subscription]struct{}{}}, nil
}

func (m *BackgroundTaskManager) runnerFor(job runnerapi.Job) (Runner, error) {
	if m.cfg.RunnerFor != nil {
		return m.cfg.RunnerFor(job)
	}
	return m.cfg.Runner, nil
}

func validate(req Request) error {
	switch req.Kind() {
	case KindAgent:
		if strings.TrimSpace(req.Job.Agent.Prompt) == "" {
			return fmt.Errorf("%w: an agent job needs a prompt", ErrInvalidRequest)
		}
	case KindProcess:
		if strings.TrimSpace(req.Job.Process.Command) == "" {
			return fmt.Errorf("%w: a process job needs a command", ErrInvalidRequest)
		}
	default:
		return fmt.Errorf("%w: the job must be exactly one of agent and process", ErrInvalidRequest)
	}
	return nil
}

// Spawn registers a task for req in state queued and starts it when a slot is free.
// It returns the task's snapshot at once; the job runs on after the call.
func (m *BackgroundTaskManager) Spawn(req Request) (Task, error) {
	if err := validate(req); err != nil {
		return Task{}, err
	}
	r, err := m.runnerFor(req.Job)
	if err != nil {
		return Task{}, fmt.Errorf("choose a runner: %w", err)
	}
	if r == nil {
		return Task{}, fmt.Errorf("%w: no runner for this job", ErrInvalidRequest)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Task{}, ErrManagerClosed
	}
	now := m.cfg.Clock.Now()
	m.nextID++
	id := fmt.Sprintf("%s_%d", req.Kind(), m.nextID)
	switch {
	case req.Job.ID != "":
		id = req.Job.ID
	case m.cfg.NewID != nil:
		id = m.cfg.NewID(req)
	}
	if _, dup := m.tasks[id]; dup || id == "" {
		return Task{}, fmt.Errorf("%w: task id %q is empty or taken", ErrInvalidRequest, id)
	}
	t := &task{id: id, req: req, job: req.Job, runner: r, wd: req.Watchdog.merged(m.cfg.Watchdog),
		done: make(chan struct{}), returned: make(chan struct{}), log: tail{max: m.cfg.LogTail}}
	t.job.ID = id
	t.rep = newRepetition(t.wd)
	t.ctx, t.cancel = context.WithCancel(withReporter(context.Background(), func(path, branch string) {
		m.setWorktree(t, path, branch)
	}))
	t.snap = Task{ID: id, Kind: req.Kind(), Mode: req.Mode, State: StateQueued, Description: req.Description,
		ParentSessionID: req.ParentSessionID, ParentToolUseID: req.ParentToolUseID, GroupID: req.GroupID,
		CreatedAt: now}
	if a := req.Job.Agent; a != nil {
		t.snap.AgentType, t.snap.Prompt, t.snap.Model, t.snap.Isolation, t.snap.Cwd = a.AgentType, a.Prompt, a.Model, a.Isolation, a.Cwd
	} else {
		t.snap.Command, t.snap.Cwd = req.Job.Process.Command, req.Job.Process.Cwd
	}
	m.tasks[id] = t
	m.order = append(m.order, t)
	m.queue = append(m.queue, t)
	m.publishLocked(t, EventQueued, nil, now)
	m.dispatchLocked()
	return t.snap.clone(), nil
}

// dispatchLocked starts queued tasks while slots are free.
func (m *BackgroundTaskManager) dispatchLocked() {
	for m.active < m.cfg.MaxConcurrent && len(m.queue) > 0 {
		t := m.queue[0]
		m.queue[0] = nil
		m.queue = m.queue[1:]
		m.active++
		now := m.cfg.Clock.Now()
		t.snap.State = StateRunning
		t.snap.StartedAt, t.snap.LastActivityAt = &now, &now
		t.lastActivity = now
		m.armWatchdogsLocked(t)
		m.publishLocked(t, EventStarted, nil, now)
		m.runs.Add(1)
		go m.run(t)
	}
}

// run hands t's job to its runner and settles the task when Start returns.
func (m *BackgroundTaskManager) run(t *task) {
	defer m.runs.Done()
	err := t.runner.Start(t.ctx, t.job, func(ev runnerapi.Event) error {
		m.onEvent(t, ev)
		return nil // a late event of an ended task is ignored, not an error for the runner
	})
	m.mu.Lock()
	defer m.mu.Unlock()
	close(t.returned)
	if !t.snap.State.Terminal() {
		now := m.cfg.Clock.Now()
		switch {
		case t.cancelRequested:
			t.snap.State, t.snap.CancelReason = StateCancelled, t.cancelReason
			m.finishLocked(t, EventCancelled, now)
		case err != nil:
			t.snap.State, t.snap.Error, t.snap.ErrorCategory = StateFailed, fmt.Sprintf("runner: %v", err), "runner"
			m.finishLocked(t, EventFailed, now)
		default:
			t.snap.State, t.snap.Error, t.snap.ErrorCategory = StateFailed, "runner: the job ended without a terminal event", "runner"
			m.finishLocked(t, EventFailed, now)
		}
	}
	t.cancel()
	m.active--
	m.dispatchLocked()
}

// onEvent applies one runner event to t. Events after a terminal state (a
// watchdog or a cancel got there first) are ignored.
func (m *BackgroundTaskManager) onEvent(t *task, ev runnerapi.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t.snap.State.Terminal() {
		return
	}
	now := m.cfg.Clock.Now()
	t.lastActivity = now
	t.snap.LastActivityAt = &now
	switch ev.Kind {
	case runnerapi.EventWaiting:
		// A remote job no host agent took yet: the task shows as queued, says what it
		// waits for, and the idle watchdog does not count the wait.
		if t.snap.State == StateRunning {
			t.snap.State, t.paused = StateQueued, true
			t.snap.CurrentAction = &Action{Tool: ev.Reason, StartedAt: now}
			m.publishLocked(t, EventQueued, nil, now)
		}
	case runnerapi.EventStarted:
		if t.snap.State == StateQueued {
			t.snap.State, t.paused, t.snap.CurrentAction = StateRunning, false, nil
		}
		if ev.Attempt > 1 && ev.Attempt != t.snap.Attempt {
			// The job moved to another host: the client sees the final attempt's log
			// and actions only.
			t.log = tail{max: m.cfg.LogTail}
			t.snap.OutputBytes, t.open, t.snap.CurrentAction, t.partial = 0, nil, nil, ""
		}
		t.snap.PID, t.snap.Host, t.snap.Attempt = ev.PID, ev.Host, ev.Attempt
		m.publishLocked(t, EventSpawned, nil, now)
	case runnerapi.EventTextDelta:
		m.onTextLocked(t, ev.Text)
	case runnerapi.EventToolStart, runnerapi.EventToolEnd:
		m.onToolLocked(t, ev, now)
	case runnerapi.EventCompleted:
		t.snap.State, t.snap.Result, t.snap.CurrentAction = StateCompleted, ev.Output, nil
		m.setExitLocked(t, ev.ExitCode)
		m.finishLocked(t, EventCompleted, now)
	case runnerapi.EventFailed:
		t.snap.Error, t.snap.ErrorCategory, t.snap.Recoverable = ev.Error, ev.Category, ev.Recoverable
		m.setExitLocked(t, ev.ExitCode)
		if t.cancelRequested {
			// The job died of the cancel (a killed process reports a signal).
			t.snap.State, t.snap.CancelReason = StateCancelled, t.cancelReason
			m.finishLocked(t, EventCancelled, now)
			return
		}
		t.snap.State = StateFailed
		m.finishLocked(t, EventFailed, now)
	case runnerapi.EventCancelled:
		t.snap.State, t.snap.CancelReason = StateCancelled, ev.Reason
		if t.snap.CancelReason == "" {
			t.snap.CancelReason = t.cancelReason
		}
		m.finishLocked(t, EventCancelled, now)
	}
}

func (m *BackgroundTaskManager) setExitLocked(t *task, code int) {
	if t.snap.Kind == KindProcess {
		t.snap.ExitCode = &code
	}
}

func (m *BackgroundTaskManager) onTextLocked(t *task, text string) {
	t.log.write(text)
	t.snap.OutputBytes = t.log.total
	t.snap.TextDeltas++
	m.seq++
	ev := Event{Type: EventTextDelta, Seq: m.seq, TaskID: t.id, Time: *t.snap.LastActivityAt, Text: text}
	for s := range m.subs {
		s.push(ev)
	}
	m.checkOutputLocked(t, text)
}

func (m *BackgroundTaskManager) onToolLocked(t *task, ev runnerapi.Event, now time.Time) {
	var p runnerapi.ToolProgress
	if ev.Tool != nil {
		p = *ev.Tool
	}
	call := &ToolCall{CallID: p.CallID, Name: p.Name, Arg: p.FirstArg, Error: p.Error}
	if ev.Kind == runnerapi.EventToolStart {
		m.openLocked(t, Action{CallID: p.CallID, Tool: p.Name, Arg: p.FirstArg, StartedAt: now})
		m.publishLocked(t, EventToolStart, call, now)
		m.checkRepetitionLocked(t, "tool "+p.Name+"("+p.FirstArg+")")
		return
	}
	ended := Action{CallID: p.CallID, Tool: p.Name, Arg: p.FirstArg, StartedAt: now}
	for i := len(t.open) - 1; i >= 0; i-- {
		o := t.open[i]
		if (p.CallID != "" && o.CallID == p.CallID) || (p.CallID == "" && o.Tool == p.Name) {
			ended = o
			t.open = append(t.open[:i], t.open[i+1:]...)
			break
		}
	}
	switch {
	case p.Error != "":
		ended.Error = p.Error
		t.snap.CurrentAction = &ended
	case len(t.open) > 0:
		a := t.open[len(t.open)-1]
		t.snap.CurrentAction = &a
	default:
		t.snap.CurrentAction = nil
	}
	m.publishLocked(t, EventToolEnd, call, now)
}

// openLocked makes a the current action of t, once per call id: a call already open
// (its permission ask came before its tool_start) keeps its start time.
func (m *BackgroundTaskManager) openLocked(t *task, a Action) {
	if a.CallID != "" {
		for i := range t.open {
			if t.open[i].CallID == a.CallID {
				if t.open[i].Arg == "" {
					t.open[i].Arg = a.Arg
				}
				cur := t.open[i]
				t.snap.CurrentAction = &cur
				return
			}
		}
	}
	t.open = append(t.open, a)
	t.snap.CurrentAction = &a
}

// finishLocked ends t in the terminal state already set on its snapshot.
func (m *BackgroundTaskManager) finishLocked(t *task, typ EventType, now time.Time) {
	t.snap.EndedAt = &now
	for _, stop := range []func() bool{t.stopIdle, t.stopMax} {
		if stop != nil {
			stop()
		}
	}
	close(t.done)
	m.publishLocked(t, typ, nil, now)
}

// publishLocked sends a lifecycle event with t's snapshot to every subscriber.
func (m *BackgroundTaskManager) publishLocked(t *task, typ EventType, call *ToolCall, now time.Time) {
	m.seq++
	ev := Event{Type: typ, Seq: m.seq, TaskID: t.id, Time: now, Tool: call}
	for s := range m.subs {
		snap := t.snap.clone()
		ev.Task = &snap
		s.push(ev)
	}
}

// setWorktree records the worktree a runner reported for t (ReportWorktree).
func (m *BackgroundTaskManager) setWorktree(t *task, path, branch string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t.snap.WorktreePath == path && t.snap.WorktreeBranch == branch {
		return
	}
	t.snap.WorktreePath, t.snap.WorktreeBranch = path, branch
	m.publishLocked(t, EventWorktree, nil, m.cfg.Clock.Now())
}
