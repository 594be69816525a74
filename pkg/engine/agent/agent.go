package agent

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// DefaultMaxRounds is the round cap when neither Config nor RunOptions sets one.
const DefaultMaxRounds = 10

// Rounds returns a pointer to n for Config.MaxRounds / RunOptions.MaxRounds (0 = unlimited).
func Rounds(n int) *int { return &n }

// BatchMode says how the tool calls of one round run.
type BatchMode string

const (
	BatchParallel   BatchMode = "parallel"
	BatchSequential BatchMode = "sequential"
)

// Timer is the part of *time.Timer the idle timeout uses; tests inject a fake.
type Timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// Config is what an Agent is built from. Only Provider is required.
type Config struct {
	Provider       llm.Provider
	Model          string
	SystemPrompt   string
	Tools          []llm.Tool
	MaxTokens      int
	Temperature    *float64
	ConversationID string // generated when empty
	AgentName      string // passed to providers as ChatRequest.Agent (subagents)
	// History seeds the conversation (a resumed session). Ignored when Store is set.
	History []llm.Message
	// Store, when set, is the conversation the agent appends to.
	Store *ConversationStore
	// MaxRounds is the default round cap of each run: nil → DefaultMaxRounds, 0 → unlimited.
	MaxRounds *int
	// ContextWindow overrides the model catalogue's window (tokens) when > 0.
	ContextWindow int
	// IdleTimeout aborts a provider call with no activity for this long (0 = none). Text
	// deltas reset it, and so do thinking deltas (a model that is visibly thinking is not
	// idle), raw stream events (a streaming tool-call input carries no text) and reports
	// of provider-hosted tool use.
	IdleTimeout time.Duration
	// BatchMode defaults to parallel. MaxConcurrency bounds a parallel batch: 0 = no bound,
	// < 0 is clamped to 1.
	BatchMode      BatchMode
	MaxConcurrency int
	// Now, NewID and NewTimer make runs deterministic in tests; defaults are time.Now,
	// llm.NewID and time.AfterFunc.
	Now      func() time.Time
	NewID    func() string
	NewTimer func(d time.Duration, fire func()) Timer
}

// RunOptions are per-run settings.
type RunOptions struct {
	// UserMetadata is set on the run's user message (what a client shows of it, such as
	// the user's /name args of a skill whose expanded body the model gets).
	UserMetadata    map[string]any
	OnTextDelta     func(delta string)
	OnThinkingDelta func(delta string)
	OnEvent         func(Event)
	// OnServerToolUse observes each tool the provider runs itself (hosted web search or
	// fetch) during the provider call of round.
	OnServerToolUse func(round int, use llm.ServerToolUse)
	// MaxRounds overrides Config.MaxRounds for this run (0 = unlimited).
	MaxRounds *int
	// ExecutionID names this run in replay events; generated when empty.
	ExecutionID string
}

// StopReason says why a run ended.
type StopReason string

const (
	StopCompleted     StopReason = "completed"
	StopMaxRounds     StopReason = "max_rounds"
	StopUnknownTools  StopReason = "unknown_tools"
	StopContextLimit  StopReason = "context_limit"
	StopProviderError StopReason = "provider_error"
	StopInterrupted   StopReason = "interrupted"
	// StopHookStopped: a tool result asked to end the run (MetaStopRun), as a hook's
	// "continue": false does in Claude Code; the tool results are recorded first.
	StopHookStopped StopReason = "hook_stopped"
)

// MetaStopRun is the tool-result metadata key (a non-empty string, the reason) that ends
// the run once the batch's results are recorded, without another model call.
const MetaStopRun = "stopRun"

// Result is the outcome of a run.
type Result struct {
	ExecutionID string     `json:"executionId"`
	Response    string     `json:"response"`
	Interrupted bool       `json:"interrupted"`
	StopReason  StopReason `json:"stopReason"`
	// Rounds counts the model/tool rounds that ran (what MaxRounds caps); a forced final
	// summary call is not one of them.
	Rounds int `json:"rounds"`
	// FinalSummary is set when the run ended with the forced final summary call (round cap
	// or repeated unknown tools). Its usage is in Usage.
	FinalSummary  bool      `json:"finalSummary,omitempty"`
	ToolsExecuted []string  `json:"toolsExecuted"`
	Usage         llm.Usage `json:"usage"`
	// Err is the provider failure behind StopProviderError (already shown to the user as
	// an assistant message).
	Err error `json:"-"`
}

// Agent runs conversations against one provider and tool set.
type Agent struct {
	cfg     Config
	store   *ConversationStore
	tools   map[string]llm.Tool
	schemas []llm.ToolSchema
	names   []string
	factory llm.Factory
	system  []llm.Message // the system prompt as a message, built once: stable ID per agent
	window  int
	running sync.Mutex
	// lastRequest is the latest provider request this agent emitted (guarded by running):
	// the base of the next one's replay event.
	lastRequest *emittedRequest
}

// New builds an Agent.
func New(cfg Config) (*Agent, error) {
	if cfg.Provider == nil {
		return nil, ErrNoProvider
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = llm.NewID
	}
	if cfg.NewTimer == nil {
		cfg.NewTimer = func(d time.Duration, fire func()) Timer { return time.AfterFunc(d, fire) }
	}
	if cfg.BatchMode == "" {
		cfg.BatchMode = BatchParallel
	}
	if cfg.ConversationID == "" {
		cfg.ConversationID = cfg.NewID()
	}
	a := &Agent{cfg: cfg, tools: make(map[string]llm.Tool, len(cfg.Tools))}
	a.factory = llm.Factory{NewID: cfg.NewID, Now: cfg.Now}
	for _, t := range cfg.Tools {
		s := t.Schema()
		if _, dup := a.tools[s.Name]; dup {
			return nil, fmt.Errorf("agent: tool %q registered twice", s.Name)
		}
		a.tools[s.Name] = t
		a.schemas = append(a.schemas, s)
		a.names = append(a.names, s.Name)
	}
	sort.Strings(a.names)
	if cfg.SystemPrompt != "" {
		a.system = []llm.Message{a.factory.System(cfg.SystemPrompt)}
	}
	a.store = cfg.Store
	if a.store == nil {
		a.store = NewConversationStore(a.factory, cfg.History)
	}
	a.window = cfg.ContextWindow
	if a.window <= 0 {
		a.window = contextwin.ModelContextWindow(cfg.Model)
	}
	return a, nil
}

// Store returns the agent's conversation.
func (a *Agent) Store() *ConversationStore { return a.store }

// History returns a copy of the committed conversation.
func (a *Agent) History() []llm.Message { return a.store.History() }

// HistoryView is History without the copy: read-only (see ConversationStore.View).
func (a *Agent) HistoryView() []llm.Message { return a.store.View() }

// ConversationID identifies the conversation in replay events.
func (a *Agent) ConversationID() string { return a.cfg.ConversationID }

// ContextWindow is the window (tokens) the guards use.
func (a *Agent) ContextWindow() int { return a.window }

// Run appends input as a user message and executes rounds until the model answers without
// tools, a guard stops the loop, or ctx is cancelled. See the package doc for guarantees.
func (a *Agent) Run(ctx context.Context, input string, opts RunOptions) (Result, error) {
	if !a.running.TryLock() {
		return Result{}, ErrRunInProgress
	}
	defer a.running.Unlock()

	r := a.newRun(opts)
	defer a.store.setAppendObserver(nil)
	user := a.factory.User(input)
	if len(opts.UserMetadata) > 0 {
		user.Metadata = maps.Clone(opts.UserMetadata)
	}
	a.store.Append(user)
	r.loop(ctx)
	return r.result, nil
}

func (a *Agent) newRun(opts RunOptions) *run {
	maxRounds := DefaultMaxRounds
	if a.cfg.MaxRounds != nil {
		maxRounds = *a.cfg.MaxRounds
	}
	if opts.MaxRounds != nil {
		maxRounds = *opts.MaxRounds
	}
	execID := opts.ExecutionID
	if execID == "" {
		execID = a.cfg.NewID()
	}
	r := &run{
		a:         a,
		opts:      opts,
		maxRounds: maxRounds,
		em: &emitter{
			fn: opts.OnEvent, now: a.cfg.Now,
			executionID: execID, conversationID: a.cfg.ConversationID,
		},
		result: Result{ExecutionID: execID, ToolsExecuted: []string{}},
	}
	a.store.setAppendObserver(func(index int, m llm.Message) {
		r.em.emit(r.round, Event{
			Type:     EventHistoryMutation,
			Mutation: &MutationData{Kind: "append", Index: index},
			Message:  &m,
		})
	})
	return r
}
