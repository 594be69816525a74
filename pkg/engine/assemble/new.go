package assemble

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/background"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/memory"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
	"github.com/robota-sdk/robota-go/pkg/tools/agenttool"
)

// New assembles a session for opts (Assemble: settings, context, tools, permissions,
// hooks, store and log from opts.Cwd) and wraps it in an InteractiveSession. opts.LLM
// injects a ready provider; opts.PermissionHandler must be nil: permission questions are
// answered with RespondPermission (or denied at once with opts.Interactive.NoPrompt).
// Of returns what was assembled.
func New(ctx context.Context, opts Options) (*interactive.InteractiveSession, error) {
	if opts.PermissionHandler != nil {
		return nil, invalid("Options.PermissionHandler is set: an InteractiveSession answers permission requests through RespondPermission")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = llm.NewID
	}
	s, err := interactive.Wrap(ctx, opts.Interactive, opts.Now, opts.NewID, func(b interactive.Binding) (*interactive.Host, error) {
		opts.Callbacks = b.Callbacks(opts.Callbacks)
		next := opts.OnMessage
		opts.OnMessage = func(m llm.Message) {
			b.OnMessage(m)
			if next != nil {
				next(m)
			}
		}
		opts.PermissionHandler = b.PermissionHandler
		a, err := Assemble(ctx, opts)
		if err != nil {
			return nil, err
		}
		return a.host(opts), nil
	})
	if err != nil {
		return nil, err
	}
	if name := strings.TrimSpace(opts.Name); name != "" {
		if err := s.Session().SetName(ctx, name); err != nil {
			_ = s.Close(context.WithoutCancel(ctx), "other")
			return nil, fmt.Errorf("naming the session %q: %w", name, err)
		}
	}
	return s, nil
}

// Of is what New assembled for s (provider choice, tools, paths, warnings); nil for a
// session New did not make.
func Of(s *interactive.InteractiveSession) *Assembled {
	if s == nil {
		return nil
	}
	a, _ := s.Assembly().(*Assembled)
	return a
}

// host is the session core's view of a: the services its commands and events reach.
func (a *Assembled) host(opts Options) *interactive.Host {
	h := &interactive.Host{Session: a.Session, Close: a.Close, Assembly: a, Cwd: a.cwd, ResumedFrom: a.ResumedFrom,
		Tasks: a.Tasks(), Skills: a.skills, Memory: a.memory, Settings: a.Settings, Home: a.home,
		SystemFor: a.systemFor, Sandbox: a.Sandbox, ResolveModel: a.resolveModel}
	if a.store != nil {
		h.Sessions = a.sessions
	}
	if !opts.NoPersistence {
		h.CheckpointRoot = a.stateRoot
	}
	if a.hookRunner != nil {
		h.NotifyPermission = a.notifyPermission
	}
	if a.logger != nil {
		h.Log = a.logger.Log
	}
	if a.tasks != nil {
		h.JobGroups = func() *jobgroups.Orchestrator { return a.tasks.Groups }
	}
	if a.agentCatalog != nil {
		h.Agents = a.agentCatalog
	}
	if a.skillSpawner != nil {
		h.Subagents = spawnerPort{a.skillSpawner}
	}
	h.Start = func(sink interactive.Sink) {
		if a.slash != nil {
			a.slash.bind(sink.Commands)
		}
		if a.tasks != nil {
			a.tasks.Pump(sink.Publish, sink.PromptID, sink.RecordTask, sink.RecordGroup, sink.Now)
			a.subagents.Observe(sink.Publish, sink.PromptID)
		}
	}
	return h
}

// resolveModel resolves a model alias for the session's provider type, as --model does.
func (a *Assembled) resolveModel(model string) (string, error) {
	def, err := registry.Default().Lookup(a.Provider.Type)
	if err != nil {
		return "", fmt.Errorf("set model: %w", err)
	}
	return resolveModel(def, model)
}

// sessions lists the stored sessions of this directory: the user's store holds every
// outside-a-project directory's sessions, so only this one's are kept.
func (a *Assembled) sessions(ctx context.Context) ([]store.Info, error) {
	list, err := a.store.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]store.Info, 0, len(list.Sessions))
	for _, in := range list.Sessions {
		if a.userStore && in.Cwd != "" && filepath.Clean(in.Cwd) != filepath.Clean(a.cwd) {
			continue
		}
		out = append(out, in)
	}
	return out, nil
}

// spawnerPort is the session core's port to the subagents (interactive.Subagents).
type spawnerPort struct{ sp *background.Spawner }

func (p spawnerPort) StartAgent(ctx context.Context, req interactive.AgentRequest) (string, error) {
	// No tool call started it: ToolCallID stays empty, and its messages stay in its
	// transcript (a stream-json line without a parent would read as the main model's).
	return p.sp.Spawn(ctx, agenttool.SpawnRequest{Description: req.Description, Prompt: req.Prompt, AgentType: req.AgentType,
		Model: req.Model, Isolation: req.Isolation, Background: true})
}

func (p spawnerPort) Cancel(id, reason string) error { return p.sp.Cancel(id, reason) }

func (p spawnerPort) RunForkedSkill(ctx context.Context, s skills.Skill, text, parentToolUseID string) (string, error) {
	return runForkedSkill(ctx, p.sp, s, text, parentToolUseID)
}

// Home is the user's home directory the session read its settings from.
func (a *Assembled) Home() string { return a.home }

// Store is the store the session is persisted in (and /resume lists).
func (a *Assembled) Store() *store.FileStore { return a.store }

// Memory is the project memory and the session's memory audit trail.
func (a *Assembled) Memory() *memory.Audit { return a.memory }
