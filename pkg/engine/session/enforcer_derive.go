package session

// DeriveConfig is what differs for an enforcer derived for a subagent.
type DeriveConfig struct {
	// Cwd is the subagent's working directory (its worktree, say): the evaluator resolves
	// relative paths against it and hooks get it as cwd. Empty keeps the parent's.
	Cwd string
	// Handler replaces the parent's permission handler when set; callers usually wrap
	// the parent's (Handler) to note that the subagent waits for an answer.
	Handler PermissionHandler
	// Report receives the derived enforcer's tool events; nil drops them. The parent's
	// Report never sees them: they are not the parent's calls.
	Report func(ToolExecutionEvent)
	// NoHooks drops the hooks (an agent hook's subagent).
	NoHooks bool
	// Evaluator replaces the parent's evaluator when set: a worktree job's, whose
	// project is its worktree.
	Evaluator PermissionEvaluator
}

// Derive returns an enforcer for a subagent of this enforcer's session. Subagents inherit
// the parent's rules and mode (DESIGN.md decision 1): it has the same evaluator, mode
// (read at each call, so a mode change reaches running subagents), permission handler,
// hooks, session id, transcript path, result cap and output directory, and the same
// "allow for the session" rules, shared both ways: a rule approved for either holds for
// both (and so are the rules granted for the running prompt, AllowForPrompt). The parent and every enforcer derived from it ask one question at a time. Its
// denials are its own.
func (e *PermissionEnforcer) Derive(d DeriveConfig) *PermissionEnforcer {
	cfg := e.cfg
	if d.Cwd != "" {
		cfg.Cwd = d.Cwd
	}
	if d.Handler != nil {
		cfg.Handler = d.Handler
	}
	if d.Evaluator != nil {
		cfg.Evaluator = d.Evaluator
	}
	cfg.Report = d.Report
	if d.NoHooks {
		cfg.Hooks = nil
	}
	d2 := newEnforcer(cfg, e.ask, e.rules, e.promptRules)
	// A derived enforcer's denials are the session's too: a subagent's denied call is
	// counted in the session's permission_denials, as Claude Code counts it.
	d2.parent = e
	return d2
}

// Handler returns the permission handler the enforcer asks; nil when there is none (an
// ask is then denied).
func (e *PermissionEnforcer) Handler() PermissionHandler { return e.cfg.Handler }
