package session

import (
	"context"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// SubagentHostConfig says what differs for one subagent of a session.
type SubagentHostConfig struct {
	// Cwd is the subagent's working directory (the job's cwd or worktree); empty means
	// the session's.
	Cwd string
	// WrapHandler, when set, wraps the session's permission handler for this subagent's
	// asks, e.g. to put its task in waiting_permission while the question is open. The
	// ask still reaches the session's clients through the session's own handler.
	WrapHandler func(PermissionHandler) PermissionHandler
	// OnToolExecution observes the subagent's tool calls; the session's
	// Callbacks.OnToolExecution never sees them (they are not the session's calls).
	OnToolExecution func(ToolExecutionEvent)
	// NoHooks runs the subagent's tool calls without the session's hooks: an agent hook's
	// own subagent, whose calls must not start the hook that started it again.
	NoHooks bool
	// Evaluator, when set, decides the subagent's calls instead of the session's
	// evaluator (the same rules for another project: a worktree job's worktree). The
	// mode and the session's approvals still come from the session.
	Evaluator PermissionEvaluator
}

// SubagentHost is the engine side of a subagent job of a live session (a
// runnerapi.Host): the subagent's loop and tools run elsewhere (a worker process, or a
// worker.Worker in this process), while its model calls and its tool decisions are made
// here, so the provider, keys, rules, approvals, hooks and usage accounting stay with
// the session (DESIGN.md decision 4). It is safe for concurrent use.
type SubagentHost struct {
	s        *Session
	enforcer *PermissionEnforcer
}

var _ runnerapi.Host = (*SubagentHost)(nil)

// SubagentHost returns the host of one subagent job of s. Model calls go through the
// session's provider (the session's model when the request names none) and their usage
// is added to the session's (LastResult while a Run is active, SubagentUsage always).
// Tool calls go through an enforcer derived from the session's (PermissionEnforcer.Derive):
// the same evaluator, mode, hooks, permission handler and "allow for the session" rules,
// with cfg.Cwd as the working directory.
func (s *Session) SubagentHost(cfg SubagentHostConfig) *SubagentHost {
	handler := s.enforcer.Handler()
	if cfg.WrapHandler != nil {
		handler = cfg.WrapHandler(handler)
	}
	return &SubagentHost{s: s, enforcer: s.enforcer.Derive(DeriveConfig{
		Cwd: cfg.Cwd, Handler: handler, Report: cfg.OnToolExecution, NoHooks: cfg.NoHooks, Evaluator: cfg.Evaluator,
	})}
}

// Chat implements runnerapi.Host.
func (h *SubagentHost) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	if req.Model == "" {
		req.Model = h.s.Model()
	}
	resp, err := h.s.cfg.Provider.Chat(ctx, req, cb)
	if u := resp.Message.Usage; u != nil {
		h.s.addSubagentUsage(*u)
	}
	return resp, err
}

// RunTool implements runnerapi.Host.
func (h *SubagentHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	return h.enforcer.RunExec(ctx, call.Name, call.ID, call.Input, ToolExec(exec))
}

// PermissionDenials returns the subagent's denied tool calls, in order.
func (h *SubagentHost) PermissionDenials() []PermissionDenial { return h.enforcer.Denials() }

// addSubagentUsage accounts a subagent's model call to the session: always in
// SubagentUsage, and in the active Run's result (LastResult) when one is running.
func (s *Session) addSubagentUsage(u llm.Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subagentUsage = s.subagentUsage.Add(u)
	if s.running {
		s.runSubagentUsage = s.runSubagentUsage.Add(u)
		s.lastResult.Usage = s.lastResult.Usage.Add(u)
	}
}

// SubagentUsage is the usage of every model call the session's subagents made.
func (s *Session) SubagentUsage() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subagentUsage
}
