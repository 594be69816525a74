package agenttool

import "context"

// AgentType is one subagent_type the Agent tool offers (the lead maps agent definitions
// onto it).
type AgentType struct {
	Name        string
	Description string
	// Tools is the allowlist (nil: every tool); DisallowedTools the denylist.
	Tools           []string
	DisallowedTools []string
	// Isolation ("worktree") and Background are the definition's defaults: a call's own
	// isolation wins; Background starts a single call in the background.
	Isolation  string
	Background bool
}

// SpawnRequest is one subagent job the Agent tool asks for.
type SpawnRequest struct {
	// Description is the short label (3-5 words); Prompt the task.
	Description string
	Prompt      string
	// AgentType is a name from Config.AgentTypes (general-purpose when the call gave none).
	AgentType string
	// Model is the call's model override ("" = the definition's, else the parent's);
	// resolving aliases is the spawner's job (agentdef.ResolveModel).
	Model string
	// Isolation is "" or "worktree".
	Isolation string
	// Background: the tool returns at once and does not Wait.
	Background bool
	// ToolCallID is the parent's tool call (stream-json parent_tool_use_id).
	ToolCallID string
	// ForkWorker marks a context: fork skill's run: its system prompt ends with the
	// fork-worker suffix (answer within 500 words) instead of the subagent one.
	ForkWorker bool
	// GroupID and Index place a batch job in its group ("" and 0 for a single call).
	GroupID string
	Index   int
}

// AgentResult is the terminal outcome of one subagent job.
type AgentResult struct {
	AgentID string
	// Status is the terminal status: completed, failed or cancelled.
	Status string
	// Output is the agent's final message (or what it produced before failing).
	Output string
	// Error says why a failed or cancelled job ended.
	Error string
	// WorktreePath and BranchName name a worktree kept because the agent changed it.
	WorktreePath string
	BranchName   string
	// Usage of the job, when known.
	TotalTokens   int
	ToolUses      int
	DurationMs    int64
	ResolvedModel string
}

// Succeeded reports a completed job.
func (r AgentResult) Succeeded() bool { return r.Status == StatusCompleted }

// Terminal statuses of an AgentResult.
const (
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// Spawner runs subagent jobs (the lead adapts the background task manager to it).
// Spawn starts a job and returns its agent id without waiting; the job must not depend on
// ctx staying alive (a background job outlives the call). Wait blocks until the job is
// terminal or ctx ends (then it returns ctx's error). Cancel stops a job the tool no
// longer waits for (the parent was interrupted).
type Spawner interface {
	Spawn(ctx context.Context, req SpawnRequest) (agentID string, err error)
	Wait(ctx context.Context, agentID string) (AgentResult, error)
	Cancel(agentID, reason string) error
}

// Grouper is implemented by a Spawner that keeps the model's batches as listed job
// groups (the session's background job groups, policy wait_all): NewGroupID names a
// batch before its jobs start (they carry the id), and GroupBatch makes the group once
// they started, before any is waited for. A batch whose GroupBatch fails still runs;
// only its listing is lost.
type Grouper interface {
	NewGroupID() string
	GroupBatch(groupID string, agentIDs []string) error
}

// TaskInfo is a snapshot of a background task (a Bash command or an agent).
type TaskInfo struct {
	ID string
	// Type is Claude Code's task type: local_bash, local_agent ...
	Type string
	// Status is the task's status as the manager names it (running, completed, failed …).
	Status string
	// Done is true once the task is terminal.
	Done        bool
	Description string
	// Command is the shell command of a process task ("" for agents).
	Command string
	// Output is what the task has written so far (an agent's result once it has one).
	Output string
	// OutputPath is a file holding the whole output, when there is one.
	OutputPath string
	// ExitCode of a finished process, nil otherwise.
	ExitCode *int
	// Error says why a task failed.
	Error string
}

// TaskReader reads background tasks for TaskOutput. Both methods return an error wrapping
// ErrTaskNotFound for an unknown id. WaitTask blocks until the task is terminal or ctx
// ends and then returns the latest snapshot (with nil error when ctx ended: the tool
// reports the timeout).
type TaskReader interface {
	Task(ctx context.Context, id string) (TaskInfo, error)
	WaitTask(ctx context.Context, id string) (TaskInfo, error)
}

// StoppedTask describes a task TaskStop stopped.
type StoppedTask struct {
	ID, Type string
	// Command is the command (or description) of the task.
	Command string
}

// TaskStopper stops a background task. It returns an error wrapping ErrTaskNotFound for
// an unknown id and one wrapping ErrTaskNotRunning (and naming the status) for a task
// that already ended.
type TaskStopper interface {
	StopTask(ctx context.Context, id string) (StoppedTask, error)
}
