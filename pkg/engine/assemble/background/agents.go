package background

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
	"github.com/robota-sdk/robota-go/pkg/tools/agenttool"
)

// maxTaskOutputRead bounds what TaskOutput reads of a background command's log.
const maxTaskOutputRead = 1 << 20

// Spawner serves the Agent tool from the session's subagents: it resolves the
// agent definition (system prompt with the framework suffix and the project's
// instructions, tools, model alias) and starts the job.
type Spawner struct {
	Subagents   *Subagents
	Catalog     *agentdef.Catalog
	Resolver    agentdef.ModelResolver
	ParentModel string
	ParentTools []string
	// ClaudeMD and AgentsMD are the project's CLAUDE.md and AGENTS.md, filled once loaded.
	ClaudeMD, AgentsMD string
}

var (
	_ agenttool.Spawner = (*Spawner)(nil)
	_ agenttool.Grouper = (*Spawner)(nil)
)

// NewGroupID implements agenttool.Grouper: an id from the session's job groups, like
// every other group's ("group_N").
func (a *Spawner) NewGroupID() string {
	if o := a.Subagents.Runtime.Groups; o != nil {
		return o.NewID()
	}
	return "group_" + llm.NewID()
}

// GroupBatch implements agenttool.Grouper: the model's batch is a wait_all group of the
// session, listed by /background groups and ListBackgroundJobGroups, with its events on
// Watch and in stream-json, as a /agent parallel group is.
func (a *Spawner) GroupBatch(groupID string, agentIDs []string) error {
	o := a.Subagents.Runtime.Groups
	if o == nil {
		return interactive.ErrNoBackgroundTasks
	}
	_, err := o.Create(jobgroups.CreateRequest{ID: groupID, ParentSessionID: a.Subagents.sessionID(), WaitPolicy: jobgroups.WaitAll,
		TaskIDs: agentIDs, Label: "Agent batch"})
	return err
}

// subagentExcluded are the parent's tools a subagent never gets: subagents do not start
// subagents, and the task tools read the parent's tasks.
var subagentExcluded = []string{agenttool.AgentName, "Task", agenttool.TaskOutputName, agenttool.TaskStopName}

func (a *Spawner) Spawn(_ context.Context, req agenttool.SpawnRequest) (string, error) {
	def, ok := a.Catalog.Lookup(req.AgentType)
	if !ok {
		return "", fmt.Errorf("unknown agent type %q (available: %v)", req.AgentType, a.Catalog.Names())
	}
	toolset := slices.DeleteFunc(def.FilterTools(a.ParentTools), func(n string) bool { return slices.Contains(subagentExcluded, n) })
	isolation := req.Isolation
	if isolation == "" || isolation == tasks.IsolationNone {
		isolation = def.Isolation
	}
	if isolation == tasks.IsolationNone {
		isolation = ""
	}
	t, err := a.Subagents.Spawn(Spec{
		AgentType: def.Name, Description: req.Description, Prompt: req.Prompt,
		SystemPrompt: agentdef.AssemblePrompt(agentdef.PromptParts{Body: def.SystemPrompt, ClaudeMD: a.ClaudeMD, AgentsMD: a.AgentsMD, ForkWorker: req.ForkWorker}),
		Model:        agentdef.ResolveModel(req.Model, def.Model, a.ParentModel, a.Resolver),
		Tools:        toolset, MaxTurns: def.MaxTurns, Isolation: isolation, Background: req.Background,
		ParentToolUseID: req.ToolCallID, GroupID: req.GroupID,
	})
	if err != nil {
		return "", err
	}
	return t.ID, nil
}

func (a *Spawner) Wait(ctx context.Context, id string) (agenttool.AgentResult, error) {
	ts, err := a.Subagents.Runtime.Tasks.Wait(ctx, id)
	if err != nil {
		return agenttool.AgentResult{}, err
	}
	if done := a.Subagents.Finished(id); done != nil {
		// SubagentStop has run and the transcript is complete before the parent goes on.
		select {
		case <-done:
		case <-ctx.Done():
			return agenttool.AgentResult{}, ctx.Err()
		}
	}
	t := ts[0]
	res := agenttool.AgentResult{AgentID: t.ID, Status: string(t.State), Output: t.Result, Error: t.Error,
		WorktreePath: t.WorktreePath, BranchName: t.WorktreeBranch, ResolvedModel: t.Model}
	if t.State == tasks.StateCancelled {
		res.Error = t.CancelReason
	}
	if t.StartedAt != nil && t.EndedAt != nil {
		res.DurationMs = t.EndedAt.Sub(*t.StartedAt).Milliseconds()
	}
	res.TotalTokens, res.ToolUses = a.Subagents.Usage(t.ID)
	return res, nil
}

func (a *Spawner) Cancel(id, reason string) error {
	_, err := a.Subagents.Runtime.Tasks.Cancel(context.Background(), id, reason)
	return err
}

// taskTools serve TaskOutput and TaskStop from the session's task manager.
type taskTools struct{ m *tasks.BackgroundTaskManager }

var (
	_ agenttool.TaskReader  = taskTools{}
	_ agenttool.TaskStopper = taskTools{}
)

func (tt taskTools) get(id string) (tasks.Task, error) {
	t, err := tt.m.Get(id)
	if errors.Is(err, tasks.ErrUnknownTask) {
		return t, fmt.Errorf("%w: %s", agenttool.ErrTaskNotFound, id)
	}
	return t, err
}

func (tt taskTools) info(ctx context.Context, t tasks.Task) agenttool.TaskInfo {
	info := agenttool.TaskInfo{ID: t.ID, Status: string(t.State), Done: t.State.Terminal(), Description: t.Description,
		Command: t.Command, ExitCode: t.ExitCode, Error: t.Error}
	switch t.Kind {
	case tasks.KindAgent:
		info.Type, info.Output = "local_agent", t.Result
	default:
		info.Type = "local_bash"
		if page, err := tt.m.ReadLog(ctx, t.ID, max(0, t.OutputBytes-maxTaskOutputRead), maxTaskOutputRead); err == nil {
			info.Output = string(page.Data)
		} else {
			info.Output = t.Result
		}
	}
	if t.State == tasks.StateCancelled && info.Error == "" {
		info.Error = t.CancelReason
	}
	return info
}

func (tt taskTools) Task(ctx context.Context, id string) (agenttool.TaskInfo, error) {
	t, err := tt.get(id)
	if err != nil {
		return agenttool.TaskInfo{}, err
	}
	return tt.info(ctx, t), nil
}

func (tt taskTools) WaitTask(ctx context.Context, id string) (agenttool.TaskInfo, error) {
	if _, err := tt.get(id); err != nil {
		return agenttool.TaskInfo{}, err
	}
	ts, err := tt.m.Wait(ctx, id)
	if err != nil || len(ts) == 0 {
		t, gerr := tt.get(id) // the wait timed out: the latest snapshot
		if gerr != nil {
			return agenttool.TaskInfo{}, gerr
		}
		return tt.info(context.WithoutCancel(ctx), t), nil
	}
	return tt.info(ctx, ts[0]), nil
}

func (tt taskTools) StopTask(ctx context.Context, id string) (agenttool.StoppedTask, error) {
	t, err := tt.get(id)
	if err != nil {
		return agenttool.StoppedTask{}, err
	}
	typ, what := "local_bash", t.Command
	if t.Kind == tasks.KindAgent {
		typ, what = "local_agent", t.Description
	}
	if t.State.Terminal() {
		return agenttool.StoppedTask{}, &agenttool.NotRunningError{ID: id, Status: string(t.State)}
	}
	if _, err := tt.m.Cancel(ctx, id, "stopped by TaskStop"); err != nil {
		if errors.Is(err, tasks.ErrTaskEnded) {
			return agenttool.StoppedTask{}, &agenttool.NotRunningError{ID: id, Status: "completed"}
		}
		return agenttool.StoppedTask{}, err
	}
	return agenttool.StoppedTask{ID: id, Type: typ, Command: what}, nil
}

// Toolset builds the model's Agent, TaskOutput and TaskStop tools.
func Toolset(spawner *Spawner, m *tasks.BackgroundTaskManager) ([]llm.Tool, error) {
	types := make([]agenttool.AgentType, 0, len(spawner.Catalog.List()))
	for _, d := range spawner.Catalog.List() {
		types = append(types, agenttool.AgentType{Name: d.Name, Description: d.Description, Tools: d.Tools,
			DisallowedTools: d.DisallowedTools, Isolation: d.Isolation, Background: d.Background})
	}
	agentTool, err := agenttool.NewAgent(agenttool.Config{Spawner: spawner, AgentTypes: types})
	if err != nil {
		return nil, err
	}
	output, err := agenttool.NewTaskOutput(taskTools{m})
	if err != nil {
		return nil, err
	}
	stop, err := agenttool.NewTaskStop(taskTools{m})
	if err != nil {
		return nil, err
	}
	return []llm.Tool{agentTool, output, stop}, nil
}
