package tasks

import (
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Kind is what a task runs: a subagent session or a shell process.
type Kind string

// Task kinds (the spec's IBackgroundTaskRequest union).
const (
	KindAgent   Kind = "agent"
	KindProcess Kind = "process"
)

// Mode says whether the caller waits for the task (foreground) or gets its id back at
// once (background). The manager treats both alike; the mode is recorded for clients.
type Mode string

// Task modes (the spec's TBackgroundTaskMode).
const (
	ModeForeground Mode = "foreground"
	ModeBackground Mode = "background"
)

// State is a task's lifecycle state (the spec's TBackgroundTaskStatus).
type State string

// Task states. Completed, Failed and Cancelled are terminal.
const (
	StateQueued            State = "queued"
	StateRunning           State = "running"
	StateWaitingPermission State = "waiting_permission"
	StateCompleted         State = "completed"
	StateFailed            State = "failed"
	StateCancelled         State = "cancelled"
)

// Terminal reports whether the state is final.
func (s State) Terminal() bool {
	return s == StateCompleted || s == StateFailed || s == StateCancelled
}

// Active reports whether the task holds a concurrency slot.
func (s State) Active() bool { return s == StateRunning || s == StateWaitingPermission }

// TimeoutReason names the watchdog that failed a task (the spec's
// TBackgroundTaskTimeoutReason).
type TimeoutReason string

// Watchdog reasons.
const (
	TimeoutIdle          TimeoutReason = "idle_timeout"
	TimeoutMaxRuntime    TimeoutReason = "max_runtime"
	TimeoutOutputLimit   TimeoutReason = "output_limit"
	TimeoutMaxTextDeltas TimeoutReason = "max_text_deltas"
	TimeoutRepetition    TimeoutReason = "repetition"
)

// Watchdog bounds a task. A zero field disables that watchdog. Each one that trips
// fails the task with its TimeoutReason, cancels the job and keeps the output so far.
type Watchdog struct {
	// IdleTimeout: no runner event for this long. The clock pauses while the task
	// waits for a permission answer.
	IdleTimeout time.Duration
	// MaxRuntime: wall-clock time since the task started running.
	MaxRuntime time.Duration
	// OutputLimit: bytes of streamed text output.
	OutputLimit int64
	// MaxTextDeltas: number of text deltas the runner sent.
	MaxTextDeltas int
	// RepetitionThreshold: the same unit (a tool call with its first argument, or a
	// non-blank line of text) seen this many times among the last RepetitionWindow
	// units. RepetitionWindow defaults to the threshold (that many in a row).
	RepetitionThreshold int
	RepetitionWindow    int
}

// WithDefaults returns w with its zero fields taken from def.
func (w Watchdog) WithDefaults(def Watchdog) Watchdog { return w.merged(def) }

// merged returns w with its zero fields taken from def.
func (w Watchdog) merged(def Watchdog) Watchdog {
	if w.IdleTimeout == 0 {
		w.IdleTimeout = def.IdleTimeout
	}
	if w.MaxRuntime == 0 {
		w.MaxRuntime = def.MaxRuntime
	}
	if w.OutputLimit == 0 {
		w.OutputLimit = def.OutputLimit
	}
	if w.MaxTextDeltas == 0 {
		w.MaxTextDeltas = def.MaxTextDeltas
	}
	if w.RepetitionThreshold == 0 {
		w.RepetitionThreshold, w.RepetitionWindow = def.RepetitionThreshold, def.RepetitionWindow
	}
	if w.RepetitionWindow < w.RepetitionThreshold {
		w.RepetitionWindow = w.RepetitionThreshold
	}
	return w
}

// Request asks the manager for a task.
type Request struct {
	// Job is what runs: exactly one of Agent and Process. A non-empty Job.ID is the
	// task id to use (refused when taken); otherwise Config.NewID names the task.
	Job         runnerapi.Job
	Description string
	Mode        Mode
	// ParentSessionID, ParentToolUseID and GroupID record where the task came from
	// (the session, the Agent/Bash tool call, a batch); the manager only copies them.
	ParentSessionID string
	ParentToolUseID string
	GroupID         string
	// Watchdog overrides the manager's default watchdog field by field.
	Watchdog Watchdog
}

// Kind is the request's task kind, or "" when the job is not exactly one kind.
func (r Request) Kind() Kind {
	switch {
	case r.Job.Agent != nil && r.Job.Process == nil:
		return KindAgent
	case r.Job.Process != nil && r.Job.Agent == nil:
		return KindProcess
	}
	return ""
}

// Action is a tool call in progress in an agent task (currentAction).
type Action struct {
	CallID    string    `json:"callId,omitempty"`
	Tool      string    `json:"tool"`
	Arg       string    `json:"arg,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	// Error is set when the call ended with an error; the action then stays
	// current until the next tool starts.
	Error string `json:"error,omitempty"`
}

// Task is an immutable snapshot of one task: what the engine persists with the
// session and serves to clients. Get, List, Wait and events return copies.
type Task struct {
	ID          string `json:"id"`
	Kind        Kind   `json:"kind"`
	Mode        Mode   `json:"mode,omitempty"`
	State       State  `json:"status"`
	Description string `json:"description,omitempty"`
	// AgentType, Prompt, Model and Isolation are set for agent tasks; Command for
	// process tasks. Cwd is where the job was asked to run.
	AgentType string `json:"agentType,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
	Model     string `json:"model,omitempty"`
	Isolation string `json:"isolation,omitempty"`
	Command   string `json:"command,omitempty"`
	Cwd       string `json:"cwd,omitempty"`

	ParentSessionID string `json:"parentSessionId,omitempty"`
	ParentToolUseID string `json:"parentToolUseId,omitempty"`
	GroupID         string `json:"groupId,omitempty"`

	CurrentAction *Action `json:"currentAction,omitempty"`
	PID           int     `json:"pid,omitempty"`
	// Host and Attempt say where a remotely dispatched job runs: the host agent's name
	// and the attempt (one per start on a host). Empty and zero for a local worker.
	Host    string `json:"host,omitempty"`
	Attempt int    `json:"attempt,omitempty"`

	CreatedAt      time.Time  `json:"createdAt"`
	StartedAt      *time.Time `json:"startedAt,omitempty"`
	EndedAt        *time.Time `json:"endedAt,omitempty"`
	LastActivityAt *time.Time `json:"lastActivityAt,omitempty"`

	// Result is the completed job's output (an agent's final answer, a process's
	// captured output).
	Result string `json:"result,omitempty"`
	// Error, ErrorCategory and Recoverable describe a failure; TimeoutReason is set
	// when a watchdog caused it.
	Error         string        `json:"error,omitempty"`
	ErrorCategory string        `json:"errorCategory,omitempty"`
	Recoverable   bool          `json:"recoverable,omitempty"`
	TimeoutReason TimeoutReason `json:"timeoutReason,omitempty"`
	// CancelReason is why a cancelled task was cancelled.
	CancelReason string `json:"cancelReason,omitempty"`
	// ExitCode is the process's exit status (process tasks that ended on their own).
	ExitCode *int `json:"exitCode,omitempty"`

	OutputBytes int64 `json:"outputBytes"`
	TextDeltas  int   `json:"textDeltas"`

	// WorktreePath and WorktreeBranch are the isolated worktree of the job: set while
	// it runs, kept after a terminal state only when the worktree was preserved
	// (it held changes), cleared when it was removed.
	WorktreePath   string `json:"worktreePath,omitempty"`
	WorktreeBranch string `json:"branchName,omitempty"`
}

// clone returns a deep copy of t.
func (t Task) clone() Task {
	if t.CurrentAction != nil {
		a := *t.CurrentAction
		t.CurrentAction = &a
	}
	if t.ExitCode != nil {
		c := *t.ExitCode
		t.ExitCode = &c
	}
	for _, p := range []**time.Time{&t.StartedAt, &t.EndedAt, &t.LastActivityAt} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	return t
}

// EventType names an Event (the spec's TBackgroundTaskEvent union).
type EventType string

// Event types. Every type but EventTextDelta is a lifecycle event, never dropped.
const (
	EventQueued EventType = "background_task_queued"
	// EventStarted: the task got a concurrency slot and its job was handed to the runner.
	EventStarted EventType = "background_task_started"
	// EventSpawned: the runner reported the job's process (Task.PID).
	EventSpawned           EventType = "background_task_spawned"
	EventWaitingPermission EventType = "background_task_waiting_permission"
	// EventResumed: the pending permission ask was answered; the task runs again.
	EventResumed   EventType = "background_task_resumed"
	EventTextDelta EventType = "background_task_text_delta"
	EventToolStart EventType = "background_task_tool_start"
	EventToolEnd   EventType = "background_task_tool_end"
	EventCompleted EventType = "background_task_completed"
	EventFailed    EventType = "background_task_failed"
	EventCancelled EventType = "background_task_cancelled"
	// EventClosed: a terminal task was dismissed from the registry.
	EventClosed EventType = "background_task_closed"
	// EventWorktree: the task's worktree path or branch changed (the worktree runner
	// created it, or removed a clean one).
	EventWorktree EventType = "background_task_worktree"
)

// Lifecycle reports whether the event is never dropped nor merged.
func (t EventType) Lifecycle() bool { return t != EventTextDelta }

// ToolCall is the tool call of a tool start or end event.
type ToolCall struct {
	CallID string `json:"callId,omitempty"`
	Name   string `json:"name"`
	Arg    string `json:"arg,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Event is one lifecycle or progress event of a task.
type Event struct {
	Type EventType `json:"type"`
	// Seq orders the manager's events (1, 2, ...). A coalesced text delta carries the
	// Seq of its first part.
	Seq    uint64    `json:"seq"`
	TaskID string    `json:"taskId"`
	Time   time.Time `json:"time"`
	// Text is a text delta's text; DroppedBytes counts text a slow subscriber's
	// coalesced delta lost (the task's log still holds it: ReadLog).
	Text         string `json:"text,omitempty"`
	DroppedBytes int64  `json:"droppedBytes,omitempty"`
	// Tool is set on tool start and end events.
	Tool *ToolCall `json:"tool,omitempty"`
	// Task is the snapshot after a lifecycle event; nil on text deltas.
	Task *Task `json:"task,omitempty"`
}

// CanTransition reports whether a task may go from one state to another (the spec's
// transitionBackgroundTaskStatus as a predicate): queued → running, cancelled or failed
// (a remote job no host agent took);
// running ↔ waiting_permission; running → queued (a remote job waiting for a host
// agent); running or waiting_permission → any terminal state;
// nothing leaves a terminal state.
func CanTransition(from, to State) bool {
	switch from {
	case StateQueued:
		// Failed: a remote job no host agent took within the queue timeout.
		return to == StateRunning || to == StateCancelled || to == StateFailed
	case StateRunning:
		// Back to queued: a remote job handed to the runner waits for a host agent.
		return to == StateWaitingPermission || to == StateQueued || to.Terminal()
	case StateWaitingPermission:
		return to == StateRunning || to.Terminal()
	}
	return false
}
