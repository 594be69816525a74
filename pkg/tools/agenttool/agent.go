package agenttool

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
)

// Tool names.
const (
	AgentName      = "Agent"
	TaskOutputName = "TaskOutput"
	TaskStopName   = "TaskStop"
	// LegacyAgentName is the subagent tool's name before Claude Code renamed it.
	LegacyAgentName = "Task"
)

// DefaultAgentType is used when a call names no subagent_type.
const DefaultAgentType = "general-purpose"

// Config wires the Agent tool.
type Config struct {
	// Spawner runs the jobs. Required.
	Spawner Spawner
	// AgentTypes are the subagent types on offer, in the order the description lists them.
	AgentTypes []AgentType
	// DefaultType is the type of a call without subagent_type (DefaultAgentType if "").
	DefaultType string
	// NewGroupID names a batch (random when nil); injectable for tests.
	NewGroupID func() string
}

type agentJob struct {
	Description  string `json:"description,omitempty" jsonschema:"A short (3-5 word) description of the job"`
	Prompt       string `json:"prompt,omitempty" jsonschema:"The task for this agent to perform"`
	SubagentType string `json:"subagent_type,omitempty" jsonschema:"The type of specialized agent to use for this job"`
	Model        string `json:"model,omitempty" jsonschema:"Optional model override for this job"`
	Isolation    string `json:"isolation,omitempty" jsonschema:"worktree to run the job in its own git worktree, none (default) to run it in the current directory"`
}

type agentParams struct {
	Description     string     `json:"description,omitempty" jsonschema:"A short (3-5 word) description of the task"`
	Prompt          string     `json:"prompt,omitempty" jsonschema:"The task for the agent to perform"`
	SubagentType    string     `json:"subagent_type,omitempty" jsonschema:"The type of specialized agent to use for this task"`
	Model           string     `json:"model,omitempty" jsonschema:"Optional model override for this agent (sonnet, opus, haiku or a model id). Takes precedence over the agent definition's model; if omitted, the definition's model is used, else the parent's."`
	RunInBackground bool       `json:"run_in_background,omitempty" jsonschema:"Set to true to run this agent in the background: the call returns its agent id at once; read the result with TaskOutput."`
	Isolation       string     `json:"isolation,omitempty" jsonschema:"Isolation mode. worktree creates a temporary git worktree so the agent works on an isolated copy of the repository; none (default) runs it in the current directory."`
	Jobs            []agentJob `json:"jobs,omitempty" jsonschema:"Several agents to run in parallel in one call, instead of prompt: each valid job is started before any is waited for, and one result per job comes back."`
}

// agentSchema: isolation is an enum at the top level; the fields of a job are checked by
// the tool so that one bad job is reported alone, and unknown keys are tolerated in jobs
// too (the spec tolerates extra arguments for provider compatibility).
func agentSchema(s *jsonschema.Schema) {
	if p := s.Properties["isolation"]; p != nil {
		p.Enum = []any{"worktree", "none"}
	}
	if p := s.Properties["jobs"]; p != nil && p.Items != nil {
		p.Items.AdditionalProperties = &jsonschema.Schema{}
	}
}

// Agent is the Agent tool.
type Agent struct {
	*tools.Typed[agentParams]
	cfg Config
}

// NewAgent builds the Agent tool.
func NewAgent(cfg Config) (*Agent, error) {
	if cfg.Spawner == nil {
		return nil, errors.New("agenttool: Agent needs a Spawner")
	}
	if cfg.DefaultType == "" {
		cfg.DefaultType = DefaultAgentType
	}
	if g, ok := cfg.Spawner.(Grouper); ok && cfg.NewGroupID == nil {
		cfg.NewGroupID = g.NewGroupID // the id of the group the batch will be listed as
	}
	if cfg.NewGroupID == nil {
		cfg.NewGroupID = randomGroupID
	}
	a := &Agent{cfg: cfg}
	t, err := tools.New(AgentName, agentDescription(cfg.AgentTypes, cfg.DefaultType), a.run,
		tools.WithAdditionalProperties(), tools.WithFixedSchema(agentSchema))
	if err != nil {
		return nil, err
	}
	a.Typed = t
	return a, nil
}

// ConcurrencySafe implements agent.ConcurrencySafe: Agent calls of one message run at the
// same time, as Claude Code runs them (its Agent tool is concurrency-safe): the tool
// itself changes nothing in the parent, and a subagent's own tool calls go through its
// own permission checks. Parallel agents that edit the same files should use worktrees.
func (a *Agent) ConcurrencySafe(json.RawMessage) bool { return true }

func randomGroupID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "group_" + hex.EncodeToString(b[:])
}

// lookupType finds a type by exact name, else by a unique case-insensitive match.
func (a *Agent) lookupType(name string) (AgentType, bool) {
	var folded []AgentType
	for _, t := range a.cfg.AgentTypes {
		if t.Name == name {
			return t, true
		}
		if strings.EqualFold(t.Name, name) {
			folded = append(folded, t)
		}
	}
	if len(folded) == 1 {
		return folded[0], true
	}
	return AgentType{}, false
}

func (a *Agent) typeNames() string {
	names := make([]string, len(a.cfg.AgentTypes))
	for i, t := range a.cfg.AgentTypes {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// jobError is why a job cannot start, with its error code.
type jobError struct {
	code, msg string
}

// validate turns a job into a spawn request.
func (a *Agent) validate(j agentJob) (SpawnRequest, *jobError) {
	prompt := strings.TrimSpace(j.Prompt)
	if prompt == "" {
		return SpawnRequest{}, &jobError{CodeInvalidArgument, "prompt is required: the task for the agent to perform"}
	}
	name := strings.TrimSpace(j.SubagentType)
	if name == "" {
		name = a.cfg.DefaultType
	}
	t, ok := a.lookupType(name)
	if !ok {
		return SpawnRequest{}, &jobError{CodeUnknownAgent, fmt.Sprintf("Agent type '%s' not found. Available agents: %s", name, a.typeNames())}
	}
	iso := strings.TrimSpace(j.Isolation)
	switch iso {
	case "":
		iso = t.Isolation
	case "none":
		iso = ""
	case "worktree":
	default:
		return SpawnRequest{}, &jobError{CodeInvalidArgument, fmt.Sprintf(`isolation must be "worktree" or "none", not %q`, iso)}
	}
	desc := strings.Join(strings.Fields(j.Description), " ")
	if desc == "" {
		desc = shortLabel(prompt)
	}
	return SpawnRequest{Description: desc, Prompt: j.Prompt, AgentType: t.Name,
		Model: strings.TrimSpace(j.Model), Isolation: iso}, nil
}

// shortLabel is the first five words of a prompt, for a call without description.
func shortLabel(prompt string) string {
	words := strings.Fields(prompt)
	if len(words) > 5 {
		words = words[:5]
	}
	return strings.Join(words, " ")
}

func (a *Agent) run(ctx context.Context, p agentParams) llm.ToolResult {
	call, _ := llm.ToolCallFrom(ctx)
	if len(p.Jobs) > 0 {
		if strings.TrimSpace(p.Prompt) != "" {
			return failure(CodeInvalidArgument, "Give either prompt (one agent) or jobs (several agents), not both.", nil)
		}
		return a.runBatch(ctx, call.ID, p)
	}
	req, jerr := a.validate(agentJob{Description: p.Description, Prompt: p.Prompt, SubagentType: p.SubagentType,
		Model: p.Model, Isolation: p.Isolation})
	if jerr != nil {
		return failure(jerr.code, jerr.msg, nil)
	}
	t, _ := a.lookupType(req.AgentType)
	req.Background = p.RunInBackground || t.Background
	req.ToolCallID = call.ID
	id, err := a.cfg.Spawner.Spawn(ctx, req)
	if err != nil {
		return failure(CodeSpawnFailed, fmt.Sprintf("Could not start the %s agent: %v", req.AgentType, err), nil)
	}
	meta := map[string]any{"agentId": id, "subagentType": req.AgentType, "description": req.Description,
		"background": req.Background}
	if req.Background {
		meta["status"] = "async_launched"
		return llm.ToolResult{Success: true, Output: launchedText(id), Metadata: meta}
	}
	res, err := a.cfg.Spawner.Wait(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			_ = a.cfg.Spawner.Cancel(id, "the parent was interrupted")
			meta["status"] = StatusCancelled
			return failure(CodeInterrupted, fmt.Sprintf("Agent %s was interrupted and stopped.", id), meta)
		}
		return failure(CodeAgentFailed, fmt.Sprintf("Could not wait for agent %s: %v", id, err), meta)
	}
	res.AgentID = id
	addResultMeta(meta, res)
	if !res.Succeeded() {
		r := failure(CodeAgentFailed, fmt.Sprintf("Agent %s (%s) %s: %s", id, req.AgentType, res.Status, orDefault(res.Error, "no reason given")), meta)
		r.Output = strings.TrimSpace(res.Output)
		return r
	}
	return llm.ToolResult{Success: true, Output: completedText(res), Metadata: meta}
}

func launchedText(id string) string {
	return "Async agent launched successfully.\n" +
		fmt.Sprintf("agentId: %s (read its result with TaskOutput, task_id %q; stop it with TaskStop)\n", id, id) +
		"The agent is working in the background. Go on with other work; read its result with TaskOutput when you need it. Briefly tell the user what you launched."
}

// completedText is Claude Code's foreground result: the agent's answer, then its id,
// kept worktree and usage.
func completedText(res AgentResult) string {
	var b strings.Builder
	out := strings.TrimSpace(res.Output)
	if out == "" {
		out = "(Subagent completed but returned no output.)"
	}
	b.WriteString(out)
	fmt.Fprintf(&b, "\n\nagentId: %s", res.AgentID)
	if res.WorktreePath != "" {
		fmt.Fprintf(&b, "\nworktreePath: %s\nworktreeBranch: %s", res.WorktreePath, res.BranchName)
	}
	fmt.Fprintf(&b, "\n<usage>subagent_tokens: %d\ntool_uses: %d\nduration_ms: %d</usage>", res.TotalTokens, res.ToolUses, res.DurationMs)
	return b.String()
}

func addResultMeta(meta map[string]any, res AgentResult) {
	meta["status"] = res.Status
	if res.Error != "" {
		meta["error"] = res.Error
	}
	if res.WorktreePath != "" {
		meta["worktreePath"] = res.WorktreePath
		meta["branchName"] = res.BranchName
	}
	if res.ResolvedModel != "" {
		meta["resolvedModel"] = res.ResolvedModel
	}
	meta["totalTokens"] = res.TotalTokens
	meta["toolUses"] = res.ToolUses
	meta["durationMs"] = res.DurationMs
}

func failure(code, msg string, meta map[string]any) llm.ToolResult {
	if meta == nil {
		meta = map[string]any{}
	}
	meta["errorCode"] = code
	return llm.ToolResult{Success: false, Error: msg, Metadata: meta}
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
