package background

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// Spec is one subagent to start, resolved against its agent definition.
type Spec struct {
	AgentType, Description, Prompt string
	SystemPrompt, Model            string
	Tools                          []string
	MaxTurns                       int
	Isolation                      string
	Background                     bool
	ParentToolUseID, GroupID       string
	// HookAgent marks an agent hook's subagent: no hooks run for it or its calls (they
	// could start the hook again), and it never asks (Claude Code runs it in dontAsk
	// mode: what the rules do not allow is denied).
	HookAgent bool
}

// Subagents starts a session's subagents: it builds each job's Host (the session's
// provider and permission pipeline, with the subagent's transcript), fires
// SubagentStart and SubagentStop, and hands the job to the task manager. It is bound to
// its session after the session is built, because the Agent tool that uses it is one of
// the session's tools.
type Subagents struct {
	Runtime *Runtime
	Hooks   *hook.Runner // nil: no hooks configured
	Cwd     string
	Dirs    []string
	LogsDir string
	Labels  map[string]string // settings `workers.labels`
	// TranscriptPath is the parent session's log, the transcript_path of the subagent
	// hooks (Claude Code sends the parent's transcript there, the subagent's in
	// agent_transcript_path).
	TranscriptPath string
	NewID          func() string
	Provider       string
	// InWorktree makes a worktree job's permission evaluator from the session's
	// (permission.Evaluator.InWorktree); nil: worktree jobs are decided as the session's
	// calls.
	InWorktree func(worktree, origin string) session.PermissionEvaluator
	// InEngine are tools a subagent's call runs here, in the engine, after the same
	// permission pipeline: WebSearch, whose backend may hold a key (a job holds no
	// secret, DESIGN decision 4).
	InEngine map[string]llm.Tool

	mu       sync.Mutex
	sess     *session.Session
	publish  func(interactive.Event) interactive.Event
	promptID func() string
	// ended closes, per subagent, once its transcript is closed and SubagentStop ran.
	ended map[string]chan struct{}
	// hosts are the subagents' engine-side hosts, which count their usage.
	hosts map[string]*subagentHost
}

// Finished returns a channel closed once subagent id's end is handled (nil for an id
// this session did not start).
func (s *Subagents) Finished(id string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended[id]
}

// Usage returns subagent id's token count and tool calls (zero for an id this session
// did not start).
func (s *Subagents) Usage(id string) (tokens, toolUses int) {
	s.mu.Lock()
	h := s.hosts[id]
	s.mu.Unlock()
	if h == nil {
		return 0, 0
	}
	return h.usage()
}

// Bind gives the subagents their session, once it is built.
func (s *Subagents) Bind(sess *session.Session) {
	s.mu.Lock()
	s.sess = sess
	s.mu.Unlock()
}

// Observe sends the subagents' messages to the session's subscribers.
func (s *Subagents) Observe(publish func(interactive.Event) interactive.Event, promptID func() string) {
	s.mu.Lock()
	s.publish, s.promptID = publish, promptID
	s.mu.Unlock()
}

// sessionID is the id of the session the subagents belong to ("" before bind).
func (s *Subagents) sessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil {
		return ""
	}
	return s.sess.ID()
}

// Spawn starts one subagent and returns its task as spawned (queued or running).
func (s *Subagents) Spawn(spec Spec) (tasks.Task, error) {
	s.mu.Lock()
	sess, publish, promptID := s.sess, s.publish, s.promptID
	s.mu.Unlock()
	if sess == nil {
		return tasks.Task{}, fmt.Errorf("start a subagent: %w", interactive.ErrSessionNotReady)
	}
	if promptID == nil {
		promptID = func() string { return "" }
	}
	id := agentID(s.NewID)
	m := s.Runtime.Tasks
	innerAt := func(cwd, worktree, origin string) runnerapi.Host {
		var ev session.PermissionEvaluator
		if worktree != "" && s.InWorktree != nil {
			// A job's worktree is its project: it writes there as the mode allows, its
			// writes to the main checkout ask, and deny rules hold for both copies.
			ev = s.InWorktree(worktree, origin)
		}
		return sess.SubagentHost(session.SubagentHostConfig{Cwd: cwd, NoHooks: spec.HookAgent, Evaluator: ev,
			WrapHandler: func(h session.PermissionHandler) session.PermissionHandler {
				if spec.HookAgent {
					return func(context.Context, session.ApprovalRequest) session.PermissionAnswer {
						return session.PermissionAnswer{Approval: session.ApprovalDeny, Reason: "an agent hook never asks for approval"}
					}
				}
				if h == nil {
					// Nobody answers the session's questions (a headless run): neither
					// are the job's, which are refused as the session's would be, saying
					// so, rather than by a call of the nil handler.
					return nil
				}
				return func(ctx context.Context, req session.ApprovalRequest) session.PermissionAnswer {
					call := tasks.ToolCall{CallID: req.ToolUseID, Name: req.ToolName, Arg: interactive.FirstArg(req.ToolName, req.Input)}
					_ = m.SetWaitingPermission(id, true, call)
					defer func() { _ = m.SetWaitingPermission(id, false, call) }()
					return h(interactive.WithTaskID(ctx, id), req)
				}
			}})
	}
	if spec.HookAgent || spec.ParentToolUseID == "" {
		// An agent hook's reads and verdict are the hook's work, not the model's: Claude
		// Code shows them in no stream, and a line without a parent id would read as the
		// main model's. So for an agent the user started (/agent): no tool call of the
		// model is its parent. They stay in the subagent's transcript (/agent read).
		publish = nil
	}
	host := &subagentHost{inner: innerAt(s.Cwd, "", ""), innerAt: innerAt, agentID: id, parentToolUseID: spec.ParentToolUseID, publish: publish, promptID: promptID,
		inEngine: s.InEngine}
	init := sessionlog.NewSessionInit(spec.SystemPrompt, s.Provider, spec.Model, s.Cwd, nil)
	if l, err := subagentTranscript(s.LogsDir, sess.ID(), id, init, spec.Prompt); err == nil {
		host.log = l
	}
	transcript := SubagentTranscriptPath(s.LogsDir, sess.ID(), id)
	if !spec.HookAgent {
		s.runHook(hook.Input{Event: hook.SubagentStart, SessionID: sess.ID(), Cwd: s.Cwd, AgentID: id, AgentType: spec.AgentType})
	}
	mode := tasks.ModeForeground
	if spec.Background {
		mode = tasks.ModeBackground
	}
	t, err := s.Runtime.subagents.Spawn(tasks.SubagentRequest{ID: id, AgentType: spec.AgentType, Description: spec.Description,
		Prompt: spec.Prompt, SystemPrompt: spec.SystemPrompt, Model: spec.Model, Cwd: s.Cwd, Tools: spec.Tools,
		AdditionalDirs: s.Dirs, Labels: s.Labels, MaxTurns: spec.MaxTurns, Isolation: spec.Isolation, Mode: mode, Host: host,
		ParentSessionID: sess.ID(), ParentToolUseID: spec.ParentToolUseID, GroupID: spec.GroupID,
		Watchdog: DefaultSubagentWatchdog})
	if err != nil {
		host.finish(runnerapi.Event{Kind: runnerapi.EventFailed, Error: err.Error()})
		return tasks.Task{}, err
	}
	done := make(chan struct{})
	s.mu.Lock()
	if s.ended == nil {
		s.ended, s.hosts = map[string]chan struct{}{}, map[string]*subagentHost{}
	}
	s.ended[t.ID], s.hosts[t.ID] = done, host
	s.mu.Unlock()
	go func() {
		defer close(done)
		s.afterEnd(sess, host, t.ID, spec.AgentType, transcript, !spec.HookAgent)
	}()
	return t, nil
}

// afterEnd waits for a subagent's end, then closes its transcript and fires SubagentStop.
func (s *Subagents) afterEnd(sess *session.Session, host *subagentHost, id, agentType, transcript string, hooks bool) {
	ts, err := s.Runtime.Tasks.Wait(context.Background(), id)
	ev := runnerapi.Event{Kind: runnerapi.EventCompleted}
	if err == nil && len(ts) == 1 {
		switch ts[0].State {
		case tasks.StateFailed:
			ev = runnerapi.Event{Kind: runnerapi.EventFailed, Error: ts[0].Error, Category: ts[0].ErrorCategory}
		case tasks.StateCancelled:
			ev = runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: ts[0].CancelReason}
		}
	}
	host.finish(ev)
	if !hooks {
		return
	}
	active := false
	s.runHook(hook.Input{Event: hook.SubagentStop, SessionID: sess.ID(), Cwd: s.Cwd, AgentID: id, AgentType: agentType,
		AgentTranscriptPath: transcript, LastAssistantMessage: host.LastReply(), StopHookActive: active})
}

func (s *Subagents) runHook(in hook.Input) {
	if s.Hooks == nil {
		return
	}
	s.mu.Lock()
	if s.sess != nil {
		in.PermissionMode = string(s.sess.PermissionMode())
	}
	s.mu.Unlock()
	in.TranscriptPath = s.TranscriptPath
	s.Hooks.Run(context.Background(), in)
}

// worktreeHooks serves the task layer's WorktreeCreate and WorktreeRemove from the
// session's hooks.
type worktreeHooks struct {
	r         *hook.Runner
	sessionID func() string
}

func (w worktreeHooks) WorktreeCreate(ctx context.Context, in tasks.WorktreeHookInput) (string, error) {
	if w.r == nil {
		return "", nil
	}
	res := w.r.Run(ctx, hook.Input{Event: hook.WorktreeCreate, SessionID: w.sessionID(), Cwd: in.Cwd, Name: in.Name})
	if res.Blocked {
		return "", fmt.Errorf("WorktreeCreate hook: %s", firstNonEmpty(res.Reason, "blocked"))
	}
	// Claude Code: a hook that made the worktree prints its path.
	for i := len(res.Runs) - 1; i >= 0; i-- {
		if p := strings.TrimSpace(res.Runs[i].Response.Stdout); p != "" && !strings.HasPrefix(p, "{") {
			return p, nil
		}
	}
	return "", nil
}

func (w worktreeHooks) WorktreeRemove(ctx context.Context, in tasks.WorktreeHookInput) {
	if w.r != nil {
		w.r.Run(ctx, hook.Input{Event: hook.WorktreeRemove, SessionID: w.sessionID(), Cwd: in.Cwd, WorktreePath: in.WorktreePath})
	}
}
