package session

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// Session is one conversation: the agent loop plus permissions, hooks, context tracking,
// compaction, abort and persistence. It is safe for concurrent use; one Run (or Compact)
// is active at a time.
type Session struct {
	cfg Config
	// modelMu guards cfg.Model and window, which SetModel changes between prompts while
	// subagents may be reading them.
	modelMu       sync.Mutex
	id            string
	createdAt     time.Time
	systemMessage string
	factory       llm.Factory
	hooks         *hookBase
	enforcer      *PermissionEnforcer
	tracker       *ContextWindowTracker
	compactor     *CompactionOrchestrator
	tools         []llm.Tool // wrapped by the enforcer
	toolNames     map[string]bool
	schemas       []llm.ToolSchema
	window        int
	resumed       *store.Record

	// cbMu serializes callbacks and guards reported.
	cbMu      sync.Mutex
	reported  map[string]bool            // tool_use_ids the enforcer reported in the current batch
	requested map[string]json.RawMessage // arguments of the current batch's calls

	mu             sync.Mutex
	agent          *agent.Agent
	events         []anchoredEvent
	mode           PermissionMode
	running        bool
	cancel         context.CancelFunc
	done           chan struct{}
	messageCount   int
	pendingContext string
	lastResult     agent.Result
	shutdown       bool
	// gen counts history replacements (compaction, clear): a save after one starts over.
	gen int
	// subagentUsage adds up the model calls of the session's subagents; runSubagentUsage
	// is the part made during the active Run, which LastResult includes.
	subagentUsage, runSubagentUsage llm.Usage

	saved persisted
}

// New builds a session and fires SessionStart (source "startup", or "resume" when
// cfg.Resume is set). ctx bounds that hook only.
func New(ctx context.Context, cfg Config) (*Session, error) {
	if cfg.Provider == nil {
		return nil, ErrNoProvider
	}
	if err := cfg.AutoCompactThreshold.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = llm.NewID
	}
	if cfg.PermissionMode == "" {
		cfg.PermissionMode = DefaultPermissionMode
	}
	s := &Session{cfg: cfg, factory: llm.Factory{NewID: cfg.NewID, Now: cfg.Now}, mode: cfg.PermissionMode,
		reported: map[string]bool{}, requested: map[string]json.RawMessage{}, toolNames: map[string]bool{}}
	if r := cfg.Resume; r != nil {
		// Only the header fields are needed later (saved back unchanged): the history is
		// held once, by the agent, not also through the record.
		h := *r
		h.Messages, h.Events = nil, nil
		s.resumed = &h
	}
	s.id = cfg.SessionID
	s.systemMessage = cfg.SystemMessage
	s.createdAt = cfg.Now()
	var history []llm.Message
	if r := cfg.Resume; r != nil {
		if s.id == "" {
			s.id = r.ID
		}
		if s.id == r.ID && !r.CreatedAt.IsZero() {
			s.createdAt = r.CreatedAt
		}
		// A resumed session keeps its name (/rename). A fork starts unnamed, so that a
		// name keeps naming one session for --resume NAME: the store's copy has none,
		// and a record continued under another id is not this one.
		if s.id == r.ID && s.cfg.Name == "" {
			s.cfg.Name = r.Name
		}
		if s.systemMessage == "" {
			s.systemMessage = r.SystemPrompt
		}
		events, err := eventsFromRecord(r.Events)
		if err != nil {
			return nil, fmt.Errorf("resume %s: %w", r.ID, err)
		}
		history = s.closeUnansweredCalls(append(history, r.Messages...))
		s.events = events
	}
	if s.id == "" {
		s.id = cfg.NewID()
	}
	history = s.withSystemMessage(history)
	s.initPersisted(cfg.Resume, history)
	s.hooks = &hookBase{runner: cfg.Hooks, sessionID: s.id, transcriptPath: cfg.TranscriptPath,
		cwd: cfg.Cwd, mode: s.PermissionMode}
	s.enforcer = NewPermissionEnforcer(EnforcerConfig{
		Evaluator: cfg.Evaluator, Handler: cfg.PermissionHandler, Hooks: cfg.Hooks, Mode: s.PermissionMode,
		SessionID: s.id, TranscriptPath: cfg.TranscriptPath, Cwd: cfg.Cwd,
		MaxResultChars: cfg.MaxToolResultChars, OutputDir: cfg.ToolOutputDir, Report: s.reportTool,
		Interrupt: s.Abort,
	})
	s.tools = s.enforcer.Wrap(cfg.Tools)
	for _, t := range s.tools {
		sc := t.Schema()
		s.schemas = append(s.schemas, sc)
		s.toolNames[sc.Name] = true
	}
	s.window = cfg.ContextWindow
	if s.window <= 0 {
		s.window = contextwin.ModelContextWindow(cfg.Model)
	}
	a, err := s.newAgent(history)
	if err != nil {
		return nil, err
	}
	s.agent = a
	s.tracker = NewContextWindowTracker(s.window, cfg.AutoCompactThreshold)
	s.tracker.UpdateFromHistory(history, 0)
	s.compactor = NewCompactionOrchestrator(cfg.Provider, cfg.Model, s.factory, nil, cfg.CompactInstructions)
	s.compactor.hooks = s.hooks
	if c, ok := cfg.Provider.(NativeWebConfigurer); ok && cfg.NativeWebTools != nil {
		c.ConfigureNativeWebTools(*cfg.NativeWebTools)
	}
	s.log(sessionlog.EventSessionInit, sessionlog.NewSessionInit(s.systemMessage, cfg.Provider.Name(), cfg.Model, cfg.Cwd, s.schemas))
	// The starting history (system message, a resumed or forked conversation) goes into the
	// log, so replaying the log alone rebuilds the conversation the record holds: whole,
	// unless the log already holds the resumed conversation (resumed into its own log), in
	// which case the logger writes only what differs (sessionlog.ContinueHistory).
	if r := cfg.Resume; r != nil {
		s.log(sessionlog.EventHistoryMutation, sessionlog.ContinueHistory(history, changedFrom(history, r.Messages)))
	} else {
		s.logReset(history)
	}
	source := SourceStartup
	if cfg.Resume != nil {
		source = SourceResume
	}
	s.sessionStart(ctx, source)
	return s, nil
}

// withSystemMessage puts the session's system message first in history: prepended when
// history has none, replacing a resumed conversation's older one (the record and the log
// name the prompt this session was built with, and the model must see that one too).
func (s *Session) withSystemMessage(history []llm.Message) []llm.Message {
	if s.systemMessage == "" {
		return history
	}
	if len(history) > 0 && history[0].Role == llm.RoleSystem {
		if history[0].Text() != s.systemMessage {
			history = append([]llm.Message(nil), history...) // the caller's record stays as loaded
			history[0] = s.factory.System(s.systemMessage)
		}
		return history
	}
	return append([]llm.Message{s.factory.System(s.systemMessage)}, history...)
}

// changedFrom lists the indices at which history holds another message than the resumed
// conversation it was built from (a replaced system prompt), or nil when their lengths
// differ (a prepended one: nothing lines up).
func changedFrom(history, resumed []llm.Message) []int {
	if len(history) != len(resumed) {
		return nil
	}
	var changed []int
	for i := range history {
		h, r := history[i], resumed[i]
		same := h.ID == r.ID && h.Role == r.Role && len(h.Content) == len(r.Content) &&
			(len(h.Content) == 0 || &h.Content[0] == &r.Content[0]) // copied from the record, not rebuilt
		if !same && !reflect.DeepEqual(h, r) {
			changed = append(changed, i)
		}
	}
	return changed
}

func (s *Session) newAgent(history []llm.Message) (*agent.Agent, error) {
	s.modelMu.Lock()
	model, window := s.cfg.Model, s.window
	s.modelMu.Unlock()
	a, err := agent.New(agent.Config{
		Provider: s.cfg.Provider, Model: model, Tools: s.tools, History: history,
		ConversationID: s.id, MaxRounds: agent.Rounds(s.cfg.MaxTurns), ContextWindow: window,
		IdleTimeout: s.cfg.ProviderTimeout, Now: s.cfg.Now, NewID: s.cfg.NewID,
	})
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	return a, nil
}

// sessionStart fires SessionStart; its context is added to the next prompt.
func (s *Session) sessionStart(ctx context.Context, source string) {
	out := s.hooks.run(ctx, HookInput{HookEventName: HookSessionStart, Source: source})
	if out.AdditionalContext != "" {
		s.mu.Lock()
		s.pendingContext = joinNonEmpty(s.pendingContext, out.AdditionalContext)
		s.mu.Unlock()
	}
}

func (s *Session) currentAgent() *agent.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent
}

// ID returns the stable session identifier.
func (s *Session) ID() string { return s.id }

// PermissionMode returns the active permission mode.
func (s *Session) PermissionMode() PermissionMode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// Model is the model the session's next model call asks for.
func (s *Session) Model() string {
	s.modelMu.Lock()
	defer s.modelMu.Unlock()
	return s.cfg.Model
}

// SetModel makes model the session's model from the next prompt on (Claude Code's
// set_model and /model), keeping the conversation. The context window follows the new
// model unless Config.ContextWindow fixed it; compaction and subagents use it too. It
// fails with ErrRunInProgress while a prompt runs.
func (s *Session) SetModel(model string) error {
	if strings.TrimSpace(model) == "" {
		return fmt.Errorf("session: set model: %w", ErrInvalidModel)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return ErrRunInProgress
	}
	s.modelMu.Lock()
	old, oldWindow := s.cfg.Model, s.window
	s.cfg.Model = model
	if s.cfg.ContextWindow <= 0 {
		s.window = contextwin.ModelContextWindow(model)
	}
	s.modelMu.Unlock()
	a, err := s.newAgent(s.agent.History())
	if err != nil {
		s.modelMu.Lock()
		s.cfg.Model, s.window = old, oldWindow
		s.modelMu.Unlock()
		return err
	}
	s.agent = a
	s.compactor.setModel(model)
	s.tracker.SetWindow(s.window)
	return nil
}

// SetPermissionMode changes the mode for future tool calls (including the rest of a run).
func (s *Session) SetPermissionMode(m PermissionMode) {
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
}

// AutoCompactThreshold returns the automatic compaction policy.
func (s *Session) AutoCompactThreshold() AutoCompactThreshold { return s.tracker.Threshold() }

// SetAutoCompactThreshold changes the policy; the next Run uses it.
func (s *Session) SetAutoCompactThreshold(t AutoCompactThreshold) error {
	return s.tracker.SetThreshold(t)
}

// ContextState returns the effective context usage of the current history.
func (s *Session) ContextState() contextwin.WindowState {
	est := contextwin.EstimateContextTokens(s.currentAgent().HistoryView(), 0)
	return contextwin.State(est.Tokens, s.window)
}

// ContextWindow is the window (tokens) of the session's model.
func (s *Session) ContextWindow() int { return s.window }

// IsRunning reports whether a Run or Compact is in progress.
func (s *Session) IsRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// MessageCount returns the number of completed Run calls.
func (s *Session) MessageCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.messageCount
}

// LastResult returns the result of the latest Run (rounds, usage, stop reason); zero
// when that Run ended before the model was asked. Rounds,
// usage and executed tools add up over the Stop-hook continuations of that Run; the other
// fields are those of its last part. Usage includes the model calls subagents made
// through SubagentHost while the Run was active.
func (s *Session) LastResult() agent.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastResult
}

// SessionRules returns the rules approved with "allow for the session", in order.
func (s *Session) SessionRules() []string { return s.enforcer.SessionRules() }

// AllowForPrompt grants allow rules to the tool calls of the current (or, between runs,
// the next) Run, its subagents included, until that Run ends: a skill's allowed-tools.
// Deny rules, ask rules and safety checks still win.
func (s *Session) AllowForPrompt(rules []string) { s.enforcer.AllowForPrompt(rules...) }

// ClearSessionRules forgets the session approvals.
func (s *Session) ClearSessionRules() { s.enforcer.ClearSessionRules() }

// PermissionDenials returns every tool call denied in this session, in order.
func (s *Session) PermissionDenials() []PermissionDenial { return s.enforcer.Denials() }

// ToolSchemas returns the schemas of the registered tools.
func (s *Session) ToolSchemas() []llm.ToolSchema { return append([]llm.ToolSchema(nil), s.schemas...) }

// SystemMessage returns the system message the session re-injects after compaction.
func (s *Session) SystemMessage() string { return s.systemMessage }

// Abort cancels the active Run or Compact; it is a no-op when none is active.
func (s *Session) Abort() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// begin marks the session running and returns the abortable context of the operation.
func (s *Session) begin(ctx context.Context) (context.Context, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return nil, nil, ErrShutdown
	}
	if s.running {
		return nil, nil, ErrRunInProgress
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	s.running, s.cancel, s.done = true, cancel, done
	release := func() {
		s.mu.Lock()
		s.running, s.cancel, s.done = false, nil, nil
		s.mu.Unlock()
		cancel()
		close(done)
	}
	return runCtx, release, nil
}

// abortError is the error of an operation whose context ended.
func abortError(ctx context.Context) error {
	return fmt.Errorf("%w: %w", ErrAborted, ctx.Err())
}

func (s *Session) log(event string, data any) {
	if s.cfg.Logger != nil {
		s.cfg.Logger.Log(event, data)
	}
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}
