package interactive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/checkpoint"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// History entry types InteractiveSession adds to the session timeline (category
// "event"), besides the chat messages the session keeps.
const (
	EntryToolStart    = "tool-start"
	EntryToolEnd      = "tool-end"
	EntryToolSummary  = "tool-summary"
	EntryUsageSummary = "usage-summary"
	EntryCompaction   = "compaction"
)

// InteractiveOptions are what the core adds to a session (Wrap, NewFromConfig).
type InteractiveOptions struct {
	// NoPrompt means nobody answers permission questions (headless runs, Query): a call
	// that needs approval is denied at once and listed in the session's
	// PermissionDenials, and no permission_request is emitted.
	NoPrompt bool
	// PermissionTimeout is how long a permission request waits for RespondPermission
	// before the call is denied; 0 means DefaultPermissionTimeout.
	PermissionTimeout time.Duration
	// Delivery bounds subscriber queues and the replay buffer.
	Delivery DeliveryLimits
}

// Submitted is an accepted prompt.
type Submitted struct {
	PromptID string
	// Queued is true when another prompt was running: this one runs when it ends.
	Queued bool
}

// InteractiveSession is the one place a session runs (DESIGN.md decision 7): it holds a
// *session.Session and adds events with sequence numbers, subscribers, a prompt queue of
// one, abort, the permission round trip and the event entries of the history. See the
// package documentation for its guarantees.
type InteractiveSession struct {
	sess    *session.Session
	host    *Host // nil when built from a session.Config
	hub     *hub
	perms   *permissionBroker
	newID   func() string
	current atomic.Pointer[string] // id of the running prompt

	toolsMu   sync.Mutex
	turnTools []ToolState // completed tools of the running Run, for its tool-summary
	// promptTools are the running prompt's tool calls over all its Runs (Stop-hook
	// continuations included), in the model's order, each as it ended, for its Result.
	promptTools []ToolState
	// thinking is set while the model's thinking streams, until the first event that is
	// not thinking (EventThinkingEnd).
	thinking atomic.Bool
	// grants are the allowed-tools of skills the user ran as /name, by prompt text.
	grants *promptGrants

	mu       sync.Mutex
	running  *pendingPrompt
	queued   *pendingPrompt
	cancel   context.CancelFunc
	loopDone chan struct{} // closed when the running loop ends
	closed   bool

	langMu sync.Mutex // one /language at a time

	usageMu sync.Mutex
	usage   llm.Usage // the prompts' usage, summed (/cost)
	prompts int
	// restored is the usage of the prompts a resumed session ran before (its
	// usage-summary entries), restoredTurns their number.
	restored      llm.Usage
	restoredTurns int

	checkpoints *checkpoint.Store // nil without a project directory or persistence
	cwd         string

	cmdMu      sync.Mutex
	cmdSources []commands.Source // skill and plugin commands, after the built-ins

	live liveState // the running prompt's text so far and running tools
}

type pendingPrompt struct {
	id, text string
	in       SubmitInput
}

// SubmitInput is what the user typed when it is not the prompt the model gets (the
// spec's submit(input, displayInput, rawInput)): a client that builds a prompt from a
// short command ("/audit") submits the built text with the command as both.
type SubmitInput struct {
	// DisplayInput is shown instead of the prompt: the user message carries it as
	// Metadata[MetadataDisplayInput], which clients show, after a resume too.
	DisplayInput string
	// RawInput is the prompt hooks see (UserPromptSubmit's prompt, for their matching);
	// empty: the prompt itself.
	RawInput string
}

// runInput is the session's form of in: the hooks' prompt and the user message's
// display metadata (none when in is empty, so the message is as Run makes it).
func (in SubmitInput) runInput() session.RunInput {
	out := session.RunInput{Raw: in.RawInput}
	if strings.TrimSpace(in.DisplayInput) != "" {
		out.UserMetadata = map[string]any{MetadataDisplayInput: in.DisplayInput}
	}
	return out
}

// label is what a prompt is listed as (edit checkpoints): its display input, if any.
func (p *pendingPrompt) label() string {
	if strings.TrimSpace(p.in.DisplayInput) != "" {
		return p.in.DisplayInput
	}
	return p.text
}

// NewFromConfig wraps a session built from cfg as it is (no settings, context or files
// are read): for embedders that assemble everything themselves, and for tests.
// cfg.PermissionHandler must be nil; cfg.Callbacks are still called.
func NewFromConfig(ctx context.Context, cfg session.Config, opts InteractiveOptions) (*InteractiveSession, error) {
	if cfg.PermissionHandler != nil {
		return nil, invalid("session.Config.PermissionHandler is set: an InteractiveSession answers permission requests through RespondPermission")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = llm.NewID
	}
	s := newInteractive(opts, cfg.Now, cfg.NewID)
	cfg.Callbacks = s.callbacks(cfg.Callbacks)
	cfg.Logger = TeeLogger{Next: cfg.Logger, OnMessage: s.onMessage}
	if !opts.NoPrompt {
		cfg.PermissionHandler = s.perms.ask
	}
	sess, err := session.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.sess = sess
	return s, nil
}

func newInteractive(opts InteractiveOptions, now func() time.Time, newID func() string) *InteractiveSession {
	s := &InteractiveSession{hub: newHub(now, opts.Delivery), newID: newID}
	timeout := opts.PermissionTimeout
	if timeout <= 0 {
		timeout = DefaultPermissionTimeout
	}
	s.perms = &permissionBroker{publish: s.hub.publish, prompt: s.promptID, newID: newID, now: now, timeout: timeout,
		pending: map[string]*waiting{}, resolved: map[string]string{}}
	return s
}

// callbacks observe the session for events and history entries, then call next's.
func (s *InteractiveSession) callbacks(next session.Callbacks) session.Callbacks {
	return session.Callbacks{
		OnTextDelta: func(d string) {
			s.live.addText(d)
			s.endThinking()
			s.hub.publish(Event{Type: EventTextDelta, PromptID: s.promptID(), Text: d})
			if next.OnTextDelta != nil {
				next.OnTextDelta(d)
			}
		},
		OnThinkingDelta: func(d string) {
			s.thinking.Store(true)
			s.hub.publish(Event{Type: EventThinkingDelta, PromptID: s.promptID(), Text: d})
			if next.OnThinkingDelta != nil {
				next.OnThinkingDelta(d)
			}
		},
		OnToolExecution: func(ev session.ToolExecutionEvent) {
			s.endThinking()
			s.onTool(ev)
			if next.OnToolExecution != nil {
				next.OnToolExecution(ev)
			}
		},
		OnContextUpdate: func(st contextwin.WindowState) {
			s.hub.publish(Event{Type: EventContextUpdate, PromptID: s.promptID(), Context: &st})
			if next.OnContextUpdate != nil {
				next.OnContextUpdate(st)
			}
		},
		OnCompact: next.OnCompact,
		OnRunEnd: func(res agent.Result) {
			s.addTurnEntries(res) // saved by the session right after
			if next.OnRunEnd != nil {
				next.OnRunEnd(res)
			}
		},
		OnCompactEvent: func(ev session.CompactEvent) {
			// Compaction cleared the timeline's events; this entry opens the new one.
			s.addEntry(EntryCompaction, ev)
			s.hub.publish(Event{Type: EventCompaction, PromptID: s.promptID(), Compaction: &ev})
			if next.OnCompactEvent != nil {
				next.OnCompactEvent(ev)
			}
		},
	}
}

// onTool records a tool event in the history, then publishes it: a client that reads
// the history after the event finds the entry.
func (s *InteractiveSession) onTool(ev session.ToolExecutionEvent) {
	switch ev.Type {
	case session.ToolStart:
		s.captureEdit(ev)
	case session.ToolEnd:
		s.recordEdit(ev)
	}
	st := toolState(ev)
	typ, entry := EventToolStart, EntryToolStart
	if ev.Type == session.ToolStart {
		s.live.toolStarted(*st)
	}
	s.toolsMu.Lock()
	if ev.Type == session.ToolEnd {
		s.live.toolEnded(st.ToolUseID)
		typ, entry = EventToolEnd, EntryToolEnd
		s.turnTools = append(s.turnTools, *st)
	}
	// The prompt's tools keep the order of the model's calls (onMessage placed them),
	// whichever of a parallel batch starts or ends first.
	if i := slices.IndexFunc(s.promptTools, func(t ToolState) bool { return t.ToolUseID == st.ToolUseID }); i >= 0 {
		s.promptTools[i] = *st
	} else {
		s.promptTools = append(s.promptTools, *st)
	}
	s.toolsMu.Unlock()
	s.addEntry(entry, st)
	s.hub.publish(Event{Type: typ, PromptID: s.promptID(), Tool: st})
}

// onMessage publishes a message appended to the conversation.
func (s *InteractiveSession) onMessage(m llm.Message) {
	if m.Role == llm.RoleAssistant {
		s.endThinking() // the message that held the thinking is committed
		s.toolsMu.Lock()
		for _, p := range m.Content {
			if p.ToolCall != nil {
				s.promptTools = append(s.promptTools, ToolState{ToolUseID: p.ToolCall.ID, ToolName: p.ToolCall.Name, IsRunning: true})
			}
		}
		s.toolsMu.Unlock()
	}
	s.hub.publish(Event{Type: EventMessage, PromptID: s.promptID(), Message: &m})
}

func (s *InteractiveSession) addEntry(typ string, data any) {
	if s.sess == nil {
		return
	}
	b, err := json.Marshal(data)
	if err != nil {
		return
	}
	_ = s.sess.AddHistoryEntry(session.HistoryEntry{Category: session.CategoryEvent, Type: typ, Data: b})
}

func (s *InteractiveSession) promptID() string {
	if p := s.current.Load(); p != nil {
		return *p
	}
	return ""
}

// Session is the wrapped session (context state, denials, messages, mode …). Run and
// Compact must go through the InteractiveSession.
func (s *InteractiveSession) Session() *session.Session { return s.sess }

// ID is the session id.
func (s *InteractiveSession) ID() string { return s.sess.ID() }

// Subscribe returns a subscription to the events published from now on, starting with
// the permission requests that are waiting for an answer.
func (s *InteractiveSession) Subscribe() *Subscription {
	return s.perms.subscribeLive(s.hub, SubscribeOptions{})
}

// SubscribeWith is Subscribe for a reader that forwards events over a transport: o
// says which events it never takes and which may wait for the next one.
func (s *InteractiveSession) SubscribeWith(o SubscribeOptions) *Subscription {
	return s.perms.subscribeLive(s.hub, o)
}

// SubscribeAfter returns a subscription that first replays the kept events with a
// sequence number above seq, then continues live, with none missed or repeated in
// between. It fails with ErrReplayUnavailable when some of those events are no longer
// kept, or seq is ahead of the latest event.
func (s *InteractiveSession) SubscribeAfter(seq uint64) (*Subscription, error) {
	return s.hub.subscribe(true, seq)
}

// LastSeq is the sequence number of the latest event (0 before the first).
func (s *InteractiveSession) LastSeq() uint64 { return s.hub.lastSeq() }

// Submit runs prompt now, or queues it when a prompt is running. The queue holds one
// prompt: with one already queued, Submit fails with ErrQueueFull. Every accepted prompt
// ends with exactly one complete, error or interrupted event carrying its PromptID.
func (s *InteractiveSession) Submit(prompt string) (Submitted, error) {
	return s.SubmitWith(prompt, SubmitInput{})
}

// SubmitWith is Submit of a prompt the user typed as something else: in says what to
// show for it and what its hooks see (the spec's displayInput and rawInput).
func (s *InteractiveSession) SubmitWith(prompt string, in SubmitInput) (Submitted, error) {
	if strings.TrimSpace(prompt) == "" {
		return Submitted{}, ErrEmptyPrompt
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return Submitted{}, ErrSessionClosed
	case s.running == nil:
		p := &pendingPrompt{id: s.newID(), text: prompt, in: in}
		s.startLocked(p)
		return Submitted{PromptID: p.id}, nil
	case s.queued != nil:
		return Submitted{}, ErrQueueFull
	}
	s.queued = &pendingPrompt{id: s.newID(), text: prompt, in: in}
	return Submitted{PromptID: s.queued.id, Queued: true}, nil
}

// IsRunning reports whether a prompt is running; Queued whether one waits.
func (s *InteractiveSession) IsRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running != nil
}

// Queued reports whether a prompt waits for the running one.
func (s *InteractiveSession) Queued() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queued != nil
}

// Abort clears the queue (the queued prompt ends with interrupted, reason "removed
// from the queue") and aborts the running prompt; its interrupted event fires when the
// abort has completed (the partial answer kept and the session saved). A tool waiting
// for permission never runs. It reports whether anything was running or queued.
func (s *InteractiveSession) Abort() bool {
	s.mu.Lock()
	dropped := s.dropQueueLocked()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		s.perms.abortAll()
		cancel()
	}
	return dropped || cancel != nil
}

// CancelQueue removes the queued prompt, which ends with interrupted; the running one
// goes on. It reports whether a prompt was queued.
func (s *InteractiveSession) CancelQueue() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropQueueLocked()
}

func (s *InteractiveSession) dropQueueLocked() bool {
	p := s.queued
	if p == nil {
		return false
	}
	s.queued = nil
	s.hub.publish(Event{Type: EventInterrupted, PromptID: p.id, Result: &Result{Reason: "removed from the queue"}})
	return true
}

// RespondPermission answers a permission_request: session.ApprovalAllow (this call),
// session.ApprovalAllowSession (the request's SessionRule for the rest of the session,
// or this call when it has none) or session.ApprovalDeny, with message passed to the
// model. Errors: ErrUnknownPermissionRequest, ErrPermissionAnswered (answered before,
// timed out or aborted), ErrInvalidApproval.
func (s *InteractiveSession) RespondPermission(requestID string, approval session.Approval, message string) error {
	return s.perms.respond(requestID, approval, message, nil, false)
}

// RespondPermissionAutomatic is RespondPermission from a client that answered without
// asking a person (a headless client, which has no one to ask). A denial then says
// so as a headless session's own does, "approval required and no one can be asked
// (reason)" with message after it, never "denied by user".
func (s *InteractiveSession) RespondPermissionAutomatic(requestID string, approval session.Approval, message string) error {
	return s.perms.respond(requestID, approval, message, nil, true)
}

// RespondPermissionInput is RespondPermission whose allow also replaces the call's input
// with updatedInput (a JSON object; nil keeps it), as the Agent SDK's canUseTool may. The
// rewritten call is evaluated again: a deny rule still denies it.
func (s *InteractiveSession) RespondPermissionInput(requestID string, approval session.Approval, message string, updatedInput json.RawMessage) error {
	return s.perms.respond(requestID, approval, message, updatedInput, false)
}

// PendingPermissions lists the permission requests still waiting for an answer (for a
// client that connects while one waits and cannot replay its event).
func (s *InteractiveSession) PendingPermissions() []PermissionRequest {
	return s.perms.pendingRequests()
}

// Compact compacts the conversation now (manual trigger); it fails with
// session.ErrRunInProgress while a prompt runs.
func (s *InteractiveSession) Compact(ctx context.Context, instructions string) error {
	s.mu.Lock()
	busy := s.running != nil
	s.mu.Unlock()
	if busy {
		return session.ErrRunInProgress
	}
	return s.sess.Compact(ctx, instructions)
}

// History is the full timeline: chat messages and the event entries (tool-start,
// tool-end, tool-summary, usage-summary, compaction, and the entries of other layers),
// as persisted with the session.
func (s *InteractiveSession) History() []session.HistoryEntry { return s.sess.FullHistory() }

// Close aborts what runs, drops the queue, waits for the running prompt to end (or ctx),
// shuts the session down (saved, SessionEnd fired) and ends every subscription once its
// queued events are taken. Later calls do nothing.
func (s *InteractiveSession) Close(ctx context.Context, reason string) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.dropQueueLocked()
	cancel, done := s.cancel, s.loopDone
	s.mu.Unlock()
	if cancel != nil {
		s.perms.abortAll()
		cancel()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	if s.checkpoints != nil {
		s.checkpoints.Close()
	}
	var err error
	if s.host != nil {
		err = s.host.Close(ctx, reason)
	} else {
		err = s.sess.Shutdown(ctx, reason)
	}
	s.hub.close()
	return err
}

// startLocked starts the loop that runs p and then whatever gets queued (mu held).
func (s *InteractiveSession) startLocked(p *pendingPrompt) {
	ctx, cancel := context.WithCancel(context.Background())
	s.running, s.cancel, s.loopDone = p, cancel, make(chan struct{})
	s.current.Store(&p.id)
	go s.loop(ctx, p, s.loopDone)
}

func (s *InteractiveSession) loop(ctx context.Context, p *pendingPrompt, done chan struct{}) {
	for {
		end := s.runPrompt(ctx, p)
		s.mu.Lock()
		s.cancel()
		// The end event and the hand-over to the queued prompt are one step: whoever sees
		// the end sees the session idle or running the next prompt, never in between.
		s.hub.publish(end)
		next := s.queued
		s.queued = nil
		if next == nil {
			s.running, s.cancel, s.loopDone = nil, nil, nil
			s.current.Store(nil)
			s.mu.Unlock()
			close(done)
			return
		}
		ctx, s.cancel = context.WithCancel(context.Background())
		s.running, p = next, next
		s.current.Store(&next.id)
		s.mu.Unlock()
	}
}

// runPrompt runs one prompt and returns its end event, after the prompt's summary
// entries are in the history and saved.
func (s *InteractiveSession) runPrompt(ctx context.Context, p *pendingPrompt) Event {
	s.toolsMu.Lock()
	s.turnTools, s.promptTools = nil, nil
	s.toolsMu.Unlock()
	s.live.reset()
	mark := s.sess.Mark()
	s.beginCheckpoint(p)
	var answer string
	var err error
	forked := false
	if inv, ok := s.grants.take(p.text); ok {
		answer, forked, err = s.runSkill(ctx, p, inv)
	} else {
		answer, err = s.sess.RunWith(ctx, p.text, p.in.runInput())
	}
	s.endCheckpoint()
	last := s.sess.LastResult()
	if forked {
		// The session's model did not run (the skill's subagent answered; its usage is
		// the subagent's task's): the last Run's result is another prompt's.
		last = agent.Result{StopReason: agent.StopCompleted}
	}
	s.usageMu.Lock()
	s.usage, s.prompts = s.usage.Add(last.Usage), s.prompts+1
	s.usageMu.Unlock()
	s.endThinking() // an aborted or failed stream ends the thinking too
	s.toolsMu.Lock()
	tools := s.promptTools
	s.promptTools = nil
	s.toolsMu.Unlock()
	st := s.sess.ContextState()
	res := &Result{Response: answer, StopReason: last.StopReason, Rounds: last.Rounds, Usage: last.Usage, Tools: tools,
		ContextState: st, UsageSnapshot: usageSnapshot(last.Usage, st)}
	// The delta is read when asked for (Result.History): the end event, kept for
	// replay and queued for every client, does not hold a second copy of the answer.
	sess, to := s.sess, s.sess.Mark()
	res.history = func() ([]session.HistoryEntry, bool) { return sess.HistoryBetween(mark, to) }
	end := Event{Type: EventComplete, PromptID: p.id, Result: res}
	switch {
	case errors.Is(err, session.ErrAborted):
		end.Type, res.Reason, res.Err = EventInterrupted, "aborted", err
	case err != nil:
		end.Type, res.Error, res.Err = EventError, err.Error(), err
	}
	return end
}

// endThinking publishes EventThinkingEnd when the model was thinking.
func (s *InteractiveSession) endThinking() {
	if s.thinking.CompareAndSwap(true, false) {
		s.hub.publish(Event{Type: EventThinkingEnd, PromptID: s.promptID()})
	}
}

// addTurnEntries adds the prompt's tool-summary and usage-summary entries when its Run
// ends (session.Callbacks.OnRunEnd); the session saves them with the Run.
func (s *InteractiveSession) addTurnEntries(last agent.Result) {
	s.toolsMu.Lock()
	tools := s.turnTools
	s.turnTools = nil
	s.toolsMu.Unlock()
	if len(tools) > 0 {
		s.addEntry(EntryToolSummary, toolSummary{Summary: summarize(tools), Tools: tools})
	}
	if snap := usageSnapshot(last.Usage, s.sess.ContextState()); snap != nil {
		s.addEntry(EntryUsageSummary, snap)
	}
}

// usageSnapshot is the turn's usage as the spec's IUsageSnapshot, with the context
// window after it; nil when the provider reported no usage (the spec adds the
// usage-summary entry, and sets the result's usage, only with exact provider usage).
func usageSnapshot(u llm.Usage, st contextwin.WindowState) *UsageSnapshot {
	if u.IsZero() {
		return nil
	}
	return &UsageSnapshot{Kind: "exact", Scope: "turn",
		PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.Total(),
		ContextUsedTokens: st.UsedTokens, ContextMaxTokens: st.MaxTokens, ContextUsedPercentage: st.UsedPercentage,
		CostStatus: "unknown"}
}

// toolSummary is the data of the spec's tool-summary entry.
type toolSummary struct {
	Summary string      `json:"summary"`
	Tools   []ToolState `json:"tools"`
}

// UsageSnapshot is the spec's IUsageSnapshot: a prompt's provider-neutral usage record,
// the data of its usage-summary entry and Result.UsageSnapshot. Kind is "exact"
// (provider-reported tokens), Scope "turn"; the context fields are the window after the
// turn; CostStatus is "unknown" (no price table).
type UsageSnapshot struct {
	Kind                  string  `json:"kind"`
	Scope                 string  `json:"scope"`
	PromptTokens          int     `json:"promptTokens"`
	CompletionTokens      int     `json:"completionTokens"`
	TotalTokens           int     `json:"totalTokens"`
	ContextUsedTokens     int     `json:"contextUsedTokens"`
	ContextMaxTokens      int     `json:"contextMaxTokens"`
	ContextUsedPercentage float64 `json:"contextUsedPercentage"`
	CostStatus            string  `json:"costStatus"`
}

func summarize(tools []ToolState) string {
	counts := map[string]int{}
	for _, t := range tools {
		counts[t.Result]++
	}
	s := fmt.Sprintf("%d tool call", len(tools))
	if len(tools) != 1 {
		s += "s"
	}
	var parts []string
	for _, k := range []string{"success", "error", "denied"} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	return s + " (" + strings.Join(parts, ", ") + ")"
}
