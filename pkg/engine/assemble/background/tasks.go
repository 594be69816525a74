package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
	"github.com/robota-sdk/robota-go/pkg/tools/bash"
)

// Runtime is a session's background tasks: the manager that runs its subagents and
// background commands in workers, and the pump that turns the manager's events into the
// session's interactive.EventBackgroundTask events.
type Runtime struct {
	// LogsDir is the project's session-log directory, where subagents' transcripts are
	// (SubagentTranscriptPath); the record's snapshots name them.
	LogsDir string
	// Tasks runs the session's subagents and background commands.
	Tasks     *tasks.BackgroundTaskManager
	subagents *tasks.SubagentManager
	sub       *tasks.Subscription
	pumped    chan struct{}

	// Groups are the session's background job groups (made by Pump); RestoredGroups
	// are those of the resumed record, which it starts with.
	Groups         *jobgroups.Orchestrator
	RestoredGroups []jobgroups.Group
	// groupEvents are this run's group events, for the record (JSON, in order).
	groupMu     sync.Mutex
	groupEvents []json.RawMessage
}

// DefaultTaskWatchdog bounds a session's subagents and background commands unless
// Options.TaskWatchdog says otherwise: 64 MiB of output, so a runaway command fails (its
// output so far readable) before it fills memory or the log. There is no idle or runtime
// bound by default: a background server is meant to run, and to be quiet.
var DefaultTaskWatchdog = tasks.Watchdog{OutputLimit: 64 << 20}

// DefaultSubagentWatchdog adds, for subagents only, a bound on a loop: the same tool call
// or line of text 25 times among the last 25 steps. A background command's output may
// repeat itself legitimately (a server's health checks), so it is not bounded so.
var DefaultSubagentWatchdog = tasks.Watchdog{RepetitionThreshold: 25}

// taskPending bounds the lifecycle events the pump may leave unread: it forwards them
// at once, so only a stuck session reaches it.
const taskPending = 1 << 16

// NewRuntime makes a session's task manager and its subagent manager from cfg.
func NewRuntime(cfg tasks.Config) (*Runtime, error) {
	m, err := tasks.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Runtime{Tasks: m, subagents: tasks.NewSubagentManager(m, nil)}, nil
}

// Pump publishes the manager's events until the subscription ends, and hands each to
// record (the session's log and timeline). It makes the session's job groups, which see
// every task event after the session's subscribers (a task's end comes before the
// group event it causes), and hands their events to recordGroup.
func (r *Runtime) Pump(publish func(interactive.Event) interactive.Event, promptID func() string, record func(*interactive.TaskEvent),
	recordGroup func(*interactive.JobGroupEvent), now func() time.Time) {
	r.Groups = jobgroups.New(jobgroups.Config{Tasks: r.Tasks, Now: now, Restored: r.RestoredGroups,
		OutputRef: r.outputRef,
		OnEvent: func(ev jobgroups.Event) {
			if b, err := json.Marshal(ev); err == nil {
				r.groupMu.Lock()
				r.groupEvents = append(r.groupEvents, b)
				r.groupMu.Unlock()
			}
			if recordGroup != nil {
				recordGroup(&ev)
			}
			publish(interactive.Event{Type: interactive.EventBackgroundJobGroup, PromptID: promptID(), Group: &ev})
		}})
	r.sub = r.Tasks.Subscribe(tasks.SubscribeOptions{MaxPending: taskPending})
	r.pumped = make(chan struct{})
	go func() {
		defer close(r.pumped)
		for {
			ev, err := r.sub.Next(context.Background())
			if err != nil {
				return
			}
			if te := interactive.TaskEventOf(ev); te != nil {
				if record != nil {
					record(te)
				}
				publish(interactive.Event{Type: interactive.EventBackgroundTask, PromptID: promptID(), Task: te})
			}
			r.Groups.Observe(ev)
		}
	}()
}

// Shutdown cancels the tasks still running, waits for their jobs and stops the pump.
func (r *Runtime) Shutdown(ctx context.Context) error {
	err := r.Tasks.Shutdown(ctx, "the session closed")
	if r.sub != nil {
		r.sub.Close()
		<-r.pumped
	}
	return err
}

// Commands runs Bash's run_in_background commands as process tasks.
type Commands struct {
	Tasks     *tasks.BackgroundTaskManager
	SessionID func() string
	Labels    map[string]string // settings `workers.labels`
}

var _ bash.BackgroundRunner = Commands{}

// StartBackground implements bash.BackgroundRunner: the command becomes a process task
// whose id the model reads with TaskOutput and stops with TaskStop. It returns once the
// command's process started (or a remote job waits for a host agent), so a command that
// cannot start (no worker binary, a full task queue aside) is reported to the model at once.
func (b Commands) StartBackground(ctx context.Context, req bash.BackgroundRequest) (string, error) {
	sub := b.Tasks.Subscribe(tasks.SubscribeOptions{})
	defer sub.Close()
	t, err := b.Tasks.Spawn(tasks.Request{
		Job: runnerapi.Job{Process: &runnerapi.ProcessJob{Command: req.Command, Cwd: req.Cwd, Env: jobEnv(req.Env, os.LookupEnv)},
			Labels: b.Labels},
		Description: req.Description, Mode: tasks.ModeBackground, ParentSessionID: b.SessionID(), ParentToolUseID: req.ToolCallID,
	})
	if err != nil {
		if errors.Is(err, tasks.ErrManagerClosed) {
			return "", fmt.Errorf("the session is closing: %w", err)
		}
		return "", err
	}
	if t.State == tasks.StateQueued {
		return t.ID, nil // behind other tasks: it starts when a slot frees
	}
	handed := false
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return t.ID, nil // the subscription overflowed: the task exists, and runs
		}
		if ev.TaskID != t.ID || ev.Task == nil {
			continue
		}
		switch {
		case ev.Type == tasks.EventStarted:
			handed = true
		case ev.Type == tasks.EventSpawned, ev.Task.State == tasks.StateCompleted,
			// Queued again once handed to the runner: a remote job waits for a host agent
			// (one offering its labels); the model gets its id and reads it later.
			handed && ev.Type == tasks.EventQueued:
			return t.ID, nil
		case ev.Task.State.Terminal():
			return "", errors.New(firstNonEmpty(ev.Task.Error, firstNonEmpty(ev.Task.CancelReason, string(ev.Task.State))))
		}
	}
}

// jobEnv returns the variables of env (the environment a command must run with: the
// session's settings `env` applied over robota's own) whose values differ from robota's
// own environment, i.e. what the settings add. The worker starts its commands from an
// allowlisted environment, so robota's inherited variables, credentials among them, are
// never sent to it; a variable the user's settings set explicitly is.
func jobEnv(env []string, lookup func(string) (string, bool)) map[string]string {
	var out map[string]string
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if own, set := lookup(name); set && own == value {
			if _, added := out[name]; !added {
				continue
			}
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[name] = value // a later entry wins, as exec's does
	}
	return out
}

// RunnerFor is the task manager's launch seam: agent jobs asking for worktree isolation
// go through the WorktreeSubagentRunner (git worktrees, WorktreeCreate/WorktreeRemove
// hooks), everything else straight to the session's runner.
func RunnerFor(r tasks.Runner, hooks *hook.Runner, sessionID func() string, jobSandbox JobSandbox,
	search JobSearch) tasks.RunnerFor {
	if jobSandbox != nil || search != nil {
		r = sandboxedJobs{Runner: r, sandbox: jobSandbox, search: search}
	}
	isolated := tasks.NewWorktreeSubagentRunner(r, &tasks.GitWorktrees{}, worktreeHooks{r: hooks, sessionID: sessionID})
	return func(job runnerapi.Job) (tasks.Runner, error) {
		if job.Agent != nil && job.Agent.Isolation == tasks.IsolationWorktree {
			return isolated, nil
		}
		return r, nil
	}
}

// TaskID names background tasks as Claude Code does: bash_1, bash_2 … for background
// commands (per session), agent-… for subagents, whose id also names their transcript
// file and must not repeat across a resumed session's runs.
func TaskID(newID func() string) func(tasks.Request) string {
	var mu sync.Mutex
	commands := 0
	return func(req tasks.Request) string {
		if req.Kind() == tasks.KindAgent {
			return agentID(newID)
		}
		mu.Lock()
		defer mu.Unlock()
		commands++
		return fmt.Sprintf("bash_%d", commands)
	}
}

// agentID is a new subagent id: "agent-" and 12 characters of a fresh id.
func agentID(newID func() string) string {
	id := strings.ReplaceAll(newID(), "-", "")
	if len(id) > 12 {
		id = id[:12]
	}
	return "agent-" + id
}

// recordedTask is a task's snapshot as the session record keeps it: a subagent's names
// its transcript.
type recordedTask struct {
	tasks.Task
	TranscriptPath string `json:"transcriptPath,omitempty"`
}

// RecordTasks puts the snapshots of the session's tasks into its record (the spec's
// backgroundTasks): the ones of earlier runs that the record holds stay, those of this
// run replace theirs by id. Subagents' transcripts are referred to by path only
// (transcriptPath); their high-frequency data stays in the transcript.
func (r *Runtime) RecordTasks(held []json.RawMessage) []json.RawMessage {
	now := r.Tasks.List(tasks.Filter{})
	if len(now) == 0 {
		return held
	}
	ids := make(map[string]bool, len(now))
	for _, t := range now {
		ids[t.ID] = true
	}
	out := make([]json.RawMessage, 0, len(held)+len(now))
	for _, raw := range held {
		var old struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &old) == nil && ids[old.ID] {
			continue
		}
		out = append(out, raw)
	}
	for _, t := range now {
		rt := recordedTask{Task: t}
		if t.Kind == tasks.KindAgent && r.LogsDir != "" && t.ParentSessionID != "" {
			rt.TranscriptPath = SubagentTranscriptPath(r.LogsDir, t.ParentSessionID, t.ID)
		}
		if b, err := json.Marshal(rt); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// outputRef is where a task's whole output is, for its group result: a subagent's
// transcript.
func (r *Runtime) outputRef(t tasks.Task) string {
	if t.Kind == tasks.KindAgent && r.LogsDir != "" && t.ParentSessionID != "" {
		return SubagentTranscriptPath(r.LogsDir, t.ParentSessionID, t.ID)
	}
	return ""
}

// RecordGroups puts the session's job groups into its record (the spec's
// backgroundJobGroups and backgroundJobGroupEvents): the snapshots replace the held
// ones by id (the held ones were restored into the groups, so they are all there), and
// this run's events follow the held ones.
func (r *Runtime) RecordGroups(held, heldEvents []json.RawMessage) (groups, events []json.RawMessage) {
	if r.Groups == nil {
		return held, heldEvents
	}
	now := r.Groups.List()
	ids := make(map[string]bool, len(now))
	for _, g := range now {
		ids[g.ID] = true
	}
	for _, raw := range held {
		var old struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &old) == nil && ids[old.ID] {
			continue
		}
		groups = append(groups, raw)
	}
	for _, g := range now {
		if b, err := json.Marshal(g); err == nil {
			groups = append(groups, b)
		}
	}
	r.groupMu.Lock()
	events = append(slices.Clone(heldEvents), r.groupEvents...)
	r.groupMu.Unlock()
	return groups, events
}

// RestoreGroups reads a resumed record's groups (one it cannot read is left out; the
// record keeps it).
func RestoreGroups(raws []json.RawMessage) []jobgroups.Group {
	var out []jobgroups.Group
	for _, raw := range raws {
		var g jobgroups.Group
		if json.Unmarshal(raw, &g) == nil && g.ID != "" {
			out = append(out, g)
		}
	}
	return out
}

// sandboxedJobs gives every job the session's command sandbox: a background command and
// a subagent's Bash calls run in a worker under the same policy as the session's Bash.
//
// It also gives an agent job the paths its Grep and Glob leave out (what a Read deny rule
// covers): a search is decided once, for its directory, and the files in it that a rule
// denies must not reach the subagent's model through it. This holds with the sandbox off
// or unavailable too.
//
// An agent job's Bash calls get the policy walked again as each one runs (commandHost),
// not only the one made as the job started: a denied file an earlier command of the job
// brought in is hidden from the next. A job in a worktree gets, besides, its worktree
// walked (JobSandbox.InWorktree): what its commands make there is found too. Its Grep
// and Glob calls, likewise, get what a Read deny rule covers walked as each one runs
// (searchHost), its worktree included (JobSearch.InWorktree).
type sandboxedJobs struct {
	tasks.Runner
	sandbox JobSandbox // nil: commands run as they are
	search  JobSearch  // nil: no file deny rule
}

func (s sandboxedJobs) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	dir, origin, inTree := tasks.WorktreeFrom(ctx)
	if s.sandbox != nil {
		jobs := s.sandbox
		if inTree {
			jobs = jobs.InWorktree(dir, origin)
		}
		policy := func() *runnerapi.Sandbox {
			sb := jobs.Policy()
			if inTree && sb != nil {
				sb = inWorktree(sb, dir, origin)
			}
			return sb
		}
		job.Sandbox = policy()
		if job.Agent != nil && job.Host != nil && job.Sandbox != nil {
			job.Host = &commandHost{Host: job.Host, policy: policy, ended: jobs.CommandEnded}
		}
	}
	if s.search != nil && job.Agent != nil {
		search := s.search
		if inTree {
			search = search.InWorktree(dir, origin)
		}
		exclude := func() []string {
			paths := search.Exclude()
			if inTree {
				paths = mirrored(paths, dir, origin)
			}
			return paths
		}
		a := *job.Agent
		a.SearchExclude = exclude()
		job.Agent = &a
		if job.Host != nil {
			job.Host = &searchHost{Host: job.Host, exclude: exclude}
		}
	}
	return s.Runner.Start(ctx, job, emit)
}

// inWorktree is a job sandbox for a job working in dir, a copy of origin (a worktree of
// the project): what the policy hides or makes read-only in origin is hidden or
// read-only in dir too, so a deny rule holds for both copies of a file, and the
// worktree's own protected paths (.claude, .robota/settings.json …) are read-only as
// the project's are.
func inWorktree(sb *runnerapi.Sandbox, dir, origin string) *runnerapi.Sandbox {
	out := *sb
	out.Hide, out.ReadOnly = mirrored(sb.Hide, dir, origin), mirrored(sb.ReadOnly, dir, origin)
	return &out
}

// mirrored is paths and, for each one in origin, its copy in dir (a worktree of origin).
func mirrored(paths []string, dir, origin string) []string {
	dir, origin = realOrSelf(dir), realOrSelf(origin)
	out := slices.Clone(paths)
	for _, p := range paths {
		if rel, err := filepath.Rel(origin, p); err == nil && filepath.IsLocal(rel) && !inDir(p, dir) {
			out = append(out, filepath.Join(dir, rel))
		}
	}
	return out
}

// inDir reports whether p is dir or below it.
func inDir(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// realOrSelf is p with its symbolic links resolved, p when it cannot be.
func realOrSelf(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
