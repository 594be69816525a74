package runnerapi

import (
	"context"
	"errors"
	"time"
)

// ErrUnsupportedJob is returned by a worker that cannot run the kind of job it
// was given. It crosses the wire as codes.Unimplemented.
var ErrUnsupportedJob = errors.New("worker does not support this job kind")

// ErrUnknownJob is returned for a job id the worker does not know. It crosses
// the wire as codes.NotFound.
var ErrUnknownJob = errors.New("unknown job")

// Runner runs jobs. The engine holds a Runner backed by a worker process; the
// worker holds the real implementation.
type Runner interface {
	// Start runs job and calls emit for each event, in order, until the job
	// ends. It returns after the terminal event was emitted, or with an error
	// when the job could not start or emit failed.
	Start(ctx context.Context, job Job, emit func(Event) error) error
	// Cancel stops a running job; it reports whether the job was running.
	Cancel(ctx context.Context, jobID, reason string) (bool, error)
	// Send forwards input to a running job.
	Send(ctx context.Context, jobID, input string) error
	// ReadLog reads up to limit bytes of a job's output from offset.
	ReadLog(ctx context.Context, jobID string, offset, limit int64) (LogPage, error)
}

// Preparer is a Runner that can get ready for agent jobs ahead of the first one:
// Prepare pays the one-time costs an agent job's start would otherwise pay (for a
// worker process, the connection its jobs' Hosts are reached through; the set-up of
// the job's tools). A pool calls it on an idle runner before handing it out. It is
// optional: a Runner works without it, and calling it more than once is harmless.
type Preparer interface {
	Prepare(ctx context.Context) error
}

// Job is one unit of work for a worker. Exactly one of Agent and Process is set.
type Job struct {
	ID      string
	Agent   *AgentJob
	Process *ProcessJob
	// Host answers an agent job's model calls and tool decisions; required for agent
	// jobs, ignored for process jobs.
	Host Host
	// Sandbox, when set, runs the job's commands (the process, an agent's Bash calls)
	// in the command sandbox the session's rules make; nil runs them as they are.
	Sandbox *Sandbox
	// Labels are what a remote host agent must offer to run the job (os, arch, gpu,
	// repo, ...; all must match). A local worker ignores them.
	Labels map[string]string
}

// Sandbox is a job's command sandbox (pkg/sandbox): what is hidden and read-only, and
// the commands that run outside it (settings sandbox.excludedCommands). It holds paths
// only, never a secret.
type Sandbox struct {
	Hide             []string `json:"hide,omitempty"`
	ReadOnly         []string `json:"readOnly,omitempty"`
	ExcludedCommands []string `json:"excludedCommands,omitempty"`
	// Network, when set, confines the commands' network to an allow-list: the worker
	// runs the filtering proxy (pkg/sandbox/netproxy) for them.
	Network *SandboxNetwork `json:"network,omitempty"`
}

// SandboxNetwork is the command sandbox's network allow-list (settings
// sandbox.network, with the WebFetch(domain:...) rules added): domain patterns, and the
// ports of the user's own proxies on the host's loopback (0: robota's).
type SandboxNetwork struct {
	Allow          []string `json:"allow,omitempty"`
	Deny           []string `json:"deny,omitempty"`
	HTTPProxyPort  int      `json:"httpProxyPort,omitempty"`
	SOCKSProxyPort int      `json:"socksProxyPort,omitempty"`
}

// AgentJob is a subagent session.
type AgentJob struct {
	AgentType    string
	Prompt       string
	SystemPrompt string
	Model        string
	Cwd          string
	Tools        []string
	MaxTurns     int
	Isolation    string
	// AdditionalDirs widen the job's workspace beyond Cwd, as the parent session's
	// additional directories widen its own (the file tools refuse paths outside both).
	AdditionalDirs []string
	// SearchExclude are absolute paths whose contents the job's Grep and Glob leave out:
	// what a Read deny rule covers under the job's roots. A search is decided once, for
	// its directory; the files in it that a rule denies are left out by the tool.
	SearchExclude []string
}

// ProcessJob is a shell command run with /bin/sh -c.
type ProcessJob struct {
	Command string
	Cwd     string
	Env     map[string]string
	Timeout time.Duration
}

// EventKind says which fields of an Event are meaningful.
type EventKind int

// Event kinds. Completed, Failed and Cancelled are terminal.
const (
	EventStarted EventKind = iota + 1
	EventTextDelta
	EventToolStart
	EventToolEnd
	EventCompleted
	EventFailed
	EventCancelled
	// EventWaiting says the job waits for a runner to take it (a remote job no host
	// agent has claimed yet); Reason says for what. EventStarted ends the wait.
	EventWaiting
)

// Terminal reports whether no event follows this kind.
func (k EventKind) Terminal() bool {
	return k == EventCompleted || k == EventFailed || k == EventCancelled
}

func (k EventKind) String() string {
	switch k {
	case EventStarted:
		return "started"
	case EventTextDelta:
		return "text_delta"
	case EventToolStart:
		return "tool_start"
	case EventToolEnd:
		return "tool_end"
	case EventCompleted:
		return "completed"
	case EventFailed:
		return "failed"
	case EventCancelled:
		return "cancelled"
	case EventWaiting:
		return "waiting"
	}
	return "unknown"
}

// Event is one event of a job.
type Event struct {
	JobID    string
	Sequence uint64
	Kind     EventKind
	// PID is set on EventStarted.
	PID int
	// Host and Attempt are set on EventStarted by a remote runner: the host agent that
	// runs this attempt, and the attempt's number (1, then 2 after a failover, ...). A
	// later EventStarted with a higher Attempt means the job moved: what earlier
	// attempts reported is superseded. Both are zero for a local worker.
	Host    string
	Attempt int
	// Text is the delta of EventTextDelta.
	Text string
	// Tool is set on EventToolStart and EventToolEnd.
	Tool *ToolProgress
	// Output and ExitCode are set on EventCompleted; ExitCode also on EventFailed.
	Output   string
	ExitCode int
	// Error, Category and Recoverable are set on EventFailed.
	Error       string
	Category    string
	Recoverable bool
	// Reason is set on EventCancelled and EventWaiting.
	Reason string
}

// ToolProgress is what a worker reports of a tool call inside an agent job.
type ToolProgress struct {
	CallID   string
	Name     string
	FirstArg string
	Error    string
}

// LogPage is one page of a job's output log.
type LogPage struct {
	Data       []byte
	NextOffset int64
	EOF        bool
}
