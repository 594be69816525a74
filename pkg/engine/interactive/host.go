package interactive

import (
	"context"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/checkpoint"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/memory"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// Host is what a composition root (package assemble) hands the session core besides the
// session it built: the services the core's commands and events reach, each through the
// port declared here. The core never climbs to a concrete tool, provider or sandbox; a
// nil port means the service is absent, and the command that needs it says so.
type Host struct {
	// Session is the assembled session (required).
	Session *session.Session
	// Close shuts the session and what was assembled around it down (required): it
	// persists the session and fires SessionEnd.
	Close func(ctx context.Context, reason string) error
	// Assembly is the composition root's own account of what it built; the core never
	// reads it (assemble.Of returns it).
	Assembly any

	// Cwd is the project directory; ResumedFrom the stored session the conversation came
	// from, if any.
	Cwd, ResumedFrom string
	// CheckpointRoot is the state root whose .robota receives edit checkpoints; empty:
	// no checkpoints (a session that is not persisted).
	CheckpointRoot string
	// NotifyPermission fires the Notification hooks of a permission question; nil: no
	// hooks.
	NotifyPermission func(PermissionRequest)
	// Log writes an event to the session log; nil: the session has no log.
	Log func(event string, data any)

	// Tasks runs the session's subagents and background commands and JobGroups groups
	// them (made by Start); both nil without a runner.
	Tasks     *tasks.BackgroundTaskManager
	JobGroups func() *jobgroups.Orchestrator
	// Agents are the agent types the Agent tool serves; Subagents start them (/agent,
	// forked skills). Both nil without a runner.
	Agents    *agentdef.Catalog
	Subagents Subagents
	// Skills are the session's skills and custom commands, offered as slash commands.
	Skills *skills.Catalog
	// Memory is the project memory and its audit trail; nil outside a project.
	Memory *memory.Audit

	// Settings are the merged settings (/language, /permissions, the listing's output
	// style); Home is the user's home, whose settings file /language writes.
	Settings *config.Settings
	Home     string
	// SystemFor composes the system prompt for a model and a response language.
	SystemFor func(model, language string) string
	// Sandbox says how commands run: "on", "off" or "unavailable".
	Sandbox string
	// Sessions lists the stored sessions of this directory (/resume); nil: no store.
	Sessions func(ctx context.Context) ([]store.Info, error)
	// ResolveModel resolves a model alias for the session's provider (SetModel); nil:
	// a model is used as it is named.
	ResolveModel func(model string) (string, error)

	// Start, called once the session is wrapped, connects the assembled services to the
	// core's events and commands.
	Start func(Sink)
}

// Sink is how assembled services feed the session: its events, its timeline and log,
// and its command registry.
type Sink struct {
	// Publish sends an event to the subscribers; PromptID is the running prompt's id.
	Publish  func(Event) Event
	PromptID func() string
	// RecordTask and RecordGroup log a task or job group event and add its timeline entry.
	RecordTask  func(*TaskEvent)
	RecordGroup func(*JobGroupEvent)
	// Commands is the session's command registry (built-ins, then skills and plugins).
	Commands func() *commands.Registry
	Now      func() time.Time
}

// AgentRequest is an agent job the user started (/agent run, /agent parallel).
type AgentRequest struct {
	Description, Prompt, AgentType, Model, Isolation string
}

// Subagents start the session's agent jobs.
type Subagents interface {
	// StartAgent starts a background agent job and returns its task id. No tool call
	// started it, so its messages stay in its transcript.
	StartAgent(ctx context.Context, req AgentRequest) (string, error)
	// Cancel stops a job that was started.
	Cancel(id, reason string) error
	// RunForkedSkill runs a context: fork skill's expanded text in a subagent and returns
	// its answer; parentToolUseID is the call its messages are shown under.
	RunForkedSkill(ctx context.Context, s skills.Skill, text, parentToolUseID string) (string, error)
}

// Binding is what a composition root builds the session with, so the core sees what
// it runs: its callbacks (wrapping the caller's), every message appended and the
// permission questions (nil with InteractiveOptions.NoPrompt: the calls are denied).
type Binding struct {
	Callbacks         func(next session.Callbacks) session.Callbacks
	OnMessage         func(llm.Message)
	PermissionHandler session.PermissionHandler
}

// Wrap builds an InteractiveSession around the session build assembles: build gets the
// Binding to build it with and returns the Host. It is how package assemble makes
// sessions; embedders that build the session themselves use NewFromConfig.
func Wrap(ctx context.Context, opts InteractiveOptions, now func() time.Time, newID func() string,
	build func(Binding) (*Host, error)) (*InteractiveSession, error) {
	if now == nil {
		now = time.Now
	}
	if newID == nil {
		newID = llm.NewID
	}
	s := newInteractive(opts, now, newID)
	b := Binding{Callbacks: s.callbacks, OnMessage: s.onMessage}
	if !opts.NoPrompt {
		b.PermissionHandler = s.perms.ask
	}
	h, err := build(b)
	if err != nil {
		return nil, err
	}
	if h == nil || h.Session == nil || h.Close == nil {
		return nil, invalid("the composition root returned no session")
	}
	s.host, s.sess, s.grants = h, h.Session, &promptGrants{}
	if h.NotifyPermission != nil {
		s.perms.notify = h.NotifyPermission
	}
	if h.CheckpointRoot != "" {
		s.cwd, s.checkpoints = h.Cwd, checkpoint.NewStore(h.CheckpointRoot, h.Session.ID(), now)
	}
	if h.Skills != nil && len(h.Skills.List()) > 0 {
		s.AddCommandSource(skillCommands{cat: h.Skills, sessionID: s.ID, grants: s.grants})
	}
	if h.ResumedFrom != "" {
		s.restored, s.restoredTurns = restoredUsage(h.Session.EventEntries())
	}
	if h.Start != nil {
		h.Start(Sink{Publish: s.hub.publish, PromptID: s.promptID, RecordTask: s.recordTask,
			RecordGroup: s.recordGroup, Commands: s.registry, Now: now})
	}
	return s, nil
}

// Assembly is the composition root's account of what it built (Host.Assembly); nil for
// a session made with NewFromConfig.
func (s *InteractiveSession) Assembly() any {
	if s.host == nil {
		return nil
	}
	return s.host.Assembly
}

// ResumedFrom is the stored session id the conversation came from ("" for a new one).
func (s *InteractiveSession) ResumedFrom() string {
	if s.host == nil {
		return ""
	}
	return s.host.ResumedFrom
}

// Tasks returns the session's background task manager; nil when the session has no
// runner for them.
func (s *InteractiveSession) Tasks() *tasks.BackgroundTaskManager {
	if s.host == nil {
		return nil
	}
	return s.host.Tasks
}
