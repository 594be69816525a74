package tasks

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// DefaultAgentType is the agent a request without one runs.
const DefaultAgentType = "general-purpose"

// Isolation values of a subagent request (the Agent tool's `isolation`).
const (
	IsolationNone     = "none"
	IsolationWorktree = "worktree"
)

// SubagentRequest is one subagent job: what the Agent tool (or a batch's job) asks
// for, already resolved against the agent definitions by the caller.
type SubagentRequest struct {
	// ID, when set, is the task id to use (the caller names the subagent before it
	// starts: its transcript and hooks carry the id); the manager's Config.NewID
	// decides otherwise.
	ID           string
	AgentType    string
	Description  string
	Prompt       string
	SystemPrompt string
	Model        string
	Cwd          string
	Tools        []string
	MaxTurns     int
	// AdditionalDirs widen the subagent's workspace as the parent's are.
	AdditionalDirs []string
	// Labels are what a remote host agent must offer to run the subagent
	// (runnerapi.Job.Labels).
	Labels map[string]string
	// Isolation is "", "none" or "worktree" (the job then runs in a git worktree
	// when the runner is a WorktreeSubagentRunner).
	Isolation string
	Mode      Mode
	// Host answers the job's model calls and tool decisions (runnerapi.Job.Host).
	Host            runnerapi.Host
	ParentSessionID string
	ParentToolUseID string
	// GroupID ties the jobs of a batch together; SpawnBatch sets it.
	GroupID  string
	Watchdog Watchdog
}

func (r SubagentRequest) validate() error {
	if strings.TrimSpace(r.Prompt) == "" {
		return fmt.Errorf("%w: prompt is required", ErrInvalidRequest)
	}
	switch r.Isolation {
	case "", IsolationNone, IsolationWorktree:
	default:
		return fmt.Errorf("%w: isolation must be %q or %q, not %q", ErrInvalidRequest, IsolationNone, IsolationWorktree, r.Isolation)
	}
	return nil
}

func (r SubagentRequest) request() Request {
	agentType := r.AgentType
	if agentType == "" {
		agentType = DefaultAgentType
	}
	desc := r.Description
	if desc == "" {
		desc = agentType
	}
	return Request{
		Job: runnerapi.Job{ID: r.ID, Host: r.Host, Agent: &runnerapi.AgentJob{AgentType: agentType, Prompt: r.Prompt,
			SystemPrompt: r.SystemPrompt, Model: r.Model, Cwd: r.Cwd, Tools: r.Tools, MaxTurns: r.MaxTurns, Isolation: r.Isolation,
			AdditionalDirs: r.AdditionalDirs}, Labels: r.Labels},
		Description: desc, Mode: r.Mode, ParentSessionID: r.ParentSessionID, ParentToolUseID: r.ParentToolUseID,
		GroupID: r.GroupID, Watchdog: r.Watchdog,
	}
}

// SubagentManager is the subagent facade over a BackgroundTaskManager (the spec's
// SubagentManager): subagent jobs become tasks of kind agent. It creates no
// provider, session, process or worktree; the manager's runner does.
type SubagentManager struct {
	tasks      *BackgroundTaskManager
	newGroupID func() string

	mu     sync.Mutex
	groups int
}

// NewSubagentManager returns a facade over tasks. newGroupID names batches
// (nil: "group_1", "group_2", ...).
func NewSubagentManager(tasks *BackgroundTaskManager, newGroupID func() string) *SubagentManager {
	s := &SubagentManager{tasks: tasks, newGroupID: newGroupID}
	if s.newGroupID == nil {
		s.newGroupID = func() string {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.groups++
			return fmt.Sprintf("group_%d", s.groups)
		}
	}
	return s
}

// Tasks returns the background task manager, for the generic controls and events
// (the spec's getBackgroundTaskManager).
func (s *SubagentManager) Tasks() *BackgroundTaskManager { return s.tasks }

// Spawn starts one subagent job and returns its task (state queued or running).
func (s *SubagentManager) Spawn(req SubagentRequest) (Task, error) {
	if err := req.validate(); err != nil {
		return Task{}, err
	}
	return s.tasks.Spawn(req.request())
}

// Batch is a started batch: its group id and, per requested job in request order,
// the agent id it got or the error that kept it from starting.
type Batch struct {
	GroupID string
	Jobs    []BatchJob
}

// BatchJob is one job of a Batch.
type BatchJob struct {
	AgentType   string
	Description string
	AgentID     string // "" when the job did not start
	Err         error
}

// SpawnBatch starts every valid job of reqs (all sharing one new group id) before
// anything waits, so they run at once up to the manager's concurrency bound. An
// invalid job, or one the manager refuses, is recorded with its error and does not
// stop the others.
func (s *SubagentManager) SpawnBatch(reqs []SubagentRequest) Batch {
	b := Batch{GroupID: s.newGroupID(), Jobs: make([]BatchJob, len(reqs))}
	for i, req := range reqs {
		req.GroupID = b.GroupID
		r := req.request()
		b.Jobs[i] = BatchJob{AgentType: r.Job.Agent.AgentType, Description: r.Description}
		task, err := s.Spawn(req)
		if err != nil {
			b.Jobs[i].Err = err
			continue
		}
		b.Jobs[i].AgentID = task.ID
	}
	return b
}

// SubagentResult is the structured result of one subagent job.
type SubagentResult struct {
	// Index is the job's position in the request.
	Index       int    `json:"index"`
	AgentID     string `json:"agentId,omitempty"`
	AgentType   string `json:"subagentType"`
	Description string `json:"description,omitempty"`
	// Started is false for a job that was not started (invalid, or refused); Status
	// is then failed and Error says why.
	Started       bool          `json:"started"`
	Status        State         `json:"status"`
	Output        string        `json:"output,omitempty"`
	Error         string        `json:"error,omitempty"`
	TimeoutReason TimeoutReason `json:"timeoutReason,omitempty"`
	WorktreePath  string        `json:"worktreePath,omitempty"`
	Branch        string        `json:"branchName,omitempty"`
}

// BatchResult is the Agent tool's batch answer: the shared provenance envelope and
// one result per requested job, in request order.
type BatchResult struct {
	GroupID  string           `json:"groupId"`
	AgentIDs []string         `json:"agentIds"`
	Results  []SubagentResult `json:"results"`
}

// Result maps a task snapshot to a subagent result.
func Result(t Task) SubagentResult {
	return SubagentResult{AgentID: t.ID, AgentType: t.AgentType, Description: t.Description, Started: true,
		Status: t.State, Output: t.Result, Error: t.Error, TimeoutReason: t.TimeoutReason,
		WorktreePath: t.WorktreePath, Branch: t.WorktreeBranch}
}

// WaitBatch waits for every started job of b and returns the batch result. When
// ctx ends first it returns ctx's error and leaves the jobs running (the caller
// cancels them if it gives up on them).
func (s *SubagentManager) WaitBatch(ctx context.Context, b Batch) (BatchResult, error) {
	res := BatchResult{GroupID: b.GroupID, AgentIDs: []string{}, Results: make([]SubagentResult, len(b.Jobs))}
	for _, j := range b.Jobs {
		if j.AgentID != "" {
			res.AgentIDs = append(res.AgentIDs, j.AgentID)
		}
	}
	done, err := s.tasks.Wait(ctx, res.AgentIDs...)
	if err != nil {
		return BatchResult{}, err
	}
	next := 0
	for i, j := range b.Jobs {
		if j.AgentID == "" {
			res.Results[i] = SubagentResult{Index: i, AgentType: j.AgentType, Description: j.Description,
				Status: StateFailed, Error: "not started: " + j.Err.Error()}
			continue
		}
		res.Results[i] = Result(done[next])
		res.Results[i].Index = i
		next++
	}
	return res, nil
}

// Wait waits for the given agents and returns their results in that order.
func (s *SubagentManager) Wait(ctx context.Context, ids ...string) ([]SubagentResult, error) {
	done, err := s.tasks.Wait(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]SubagentResult, len(done))
	for i, t := range done {
		out[i] = Result(t)
		out[i].Index = i
	}
	return out, nil
}

// List returns the agent tasks that match f (its Kind is ignored).
func (s *SubagentManager) List(f Filter) []Task {
	f.Kind = KindAgent
	return s.tasks.List(f)
}

// Get, Cancel, Close and Send are the manager's, for agent ids.

// Get returns an agent's snapshot.
func (s *SubagentManager) Get(id string) (Task, error) { return s.tasks.Get(id) }

// Cancel cancels an agent and returns its terminal snapshot.
func (s *SubagentManager) Cancel(ctx context.Context, id, reason string) (Task, error) {
	return s.tasks.Cancel(ctx, id, reason)
}

// Close dismisses a finished agent.
func (s *SubagentManager) Close(id string) (Task, error) { return s.tasks.Close(id) }

// Send forwards a follow-up prompt to a running agent.
func (s *SubagentManager) Send(ctx context.Context, id, prompt string) error {
	return s.tasks.Send(ctx, id, prompt)
}
