package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// PermissionDenial is one denied tool call, in the shape of Claude Code's headless
// `permission_denials` entries.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// EnforcerConfig configures a PermissionEnforcer. Every field may be zero.
type EnforcerConfig struct {
	Evaluator PermissionEvaluator
	Handler   PermissionHandler
	Hooks     HookRunner
	// Mode returns the current permission mode (it may change between calls).
	Mode           func() PermissionMode
	SessionID      string
	TranscriptPath string
	Cwd            string
	// MaxResultChars bounds each result (characters); 0 means DefaultMaxToolResultChars.
	MaxResultChars int
	// OutputDir receives the whole text of a result cut to MaxResultChars, in a file the
	// truncation note names so the model can Read it; it must be readable by the Read
	// tool. Empty: the text is not saved and the note says only how much was cut.
	OutputDir string
	// Report receives tool start and end events. It may be called from several goroutines.
	Report func(ToolExecutionEvent)
	// Interrupt stops the running agent (a PermissionRequest hook's deny with interrupt);
	// nil: such a deny denies the call only.
	Interrupt func()
}

// PermissionEnforcer wraps tools with the permission pipeline (see the package doc). It is
// safe for concurrent use.
//
// A PreToolUse hook's "allow" skips only a question the permission mode would ask; an
// ask the evaluator marks Binding (an ask rule, a protected path) is still asked, and a
// deny stays a deny. What hooks add for the model (PreToolUse and PostToolUse
// additionalContext, PostToolUse feedback) is appended to the tool result the model
// sees; their systemMessages go to the user through the end event's Message.
type PermissionEnforcer struct {
	cfg EnforcerConfig
	// parent is the enforcer this one was derived from (Derive): its denials are the
	// parent's too.
	parent *PermissionEnforcer
	save   resultSaver
	hooks  *hookBase
	// ask admits one approval question at a time; enforcers derived for subagents share
	// it with their parent, so the user is never asked two things at once.
	ask chan struct{}
	// rules are the rules approved with "allow for the session"; derived enforcers share
	// them with their parent.
	rules *sessionRuleSet
	// promptRules are allow rules granted for the running prompt (a skill's
	// allowed-tools), shared with derived enforcers so a forked skill's subagent has them.
	promptRules *sessionRuleSet

	mu      sync.Mutex
	denials []PermissionDenial
}

// sessionRuleSet holds the rules approved with "allow for the session", in order; every
// evaluation sees them (PermissionRequest.SessionAllow), so they take the place of allow
// rules and never lift a deny, an ask rule or a protected path.
type sessionRuleSet struct {
	mu    sync.Mutex
	rules []string
}

// NewPermissionEnforcer returns an enforcer.
func NewPermissionEnforcer(cfg EnforcerConfig) *PermissionEnforcer {
	if cfg.Mode == nil {
		cfg.Mode = func() PermissionMode { return DefaultPermissionMode }
	}
	if cfg.MaxResultChars == 0 {
		cfg.MaxResultChars = DefaultMaxToolResultChars
	}
	return newEnforcer(cfg, make(chan struct{}, 1), &sessionRuleSet{}, &sessionRuleSet{})
}

func newEnforcer(cfg EnforcerConfig, ask chan struct{}, rules, promptRules *sessionRuleSet) *PermissionEnforcer {
	return &PermissionEnforcer{promptRules: promptRules,
		cfg: cfg, save: saveToDir(cfg.OutputDir),
		hooks: &hookBase{runner: cfg.Hooks, sessionID: cfg.SessionID,
			transcriptPath: cfg.TranscriptPath, cwd: cfg.Cwd, mode: cfg.Mode},
		ask: ask, rules: rules,
	}
}

// Wrap returns tools, each guarded by the enforcer. Schemas are unchanged.
func (e *PermissionEnforcer) Wrap(tools []llm.Tool) []llm.Tool {
	out := make([]llm.Tool, len(tools))
	for i, t := range tools {
		out[i] = &guardedTool{inner: t, schema: t.Schema(), e: e}
	}
	return out
}

// SessionRules returns the rules approved with "allow for the session", in order.
func (e *PermissionEnforcer) SessionRules() []string {
	e.rules.mu.Lock()
	defer e.rules.mu.Unlock()
	return slices.Clone(e.rules.rules)
}

// ClearSessionRules forgets every session approval.
func (e *PermissionEnforcer) ClearSessionRules() {
	e.rules.mu.Lock()
	e.rules.rules = nil
	e.rules.mu.Unlock()
}

// addSessionRule stores rule once.
func (e *PermissionEnforcer) addSessionRule(rule string) {
	e.rules.mu.Lock()
	defer e.rules.mu.Unlock()
	if !slices.Contains(e.rules.rules, rule) {
		e.rules.rules = append(e.rules.rules, rule)
	}
}

// AllowForPrompt grants allow rules (Claude Code's rule syntax) until ClearPromptRules:
// a skill's allowed-tools while the prompt that invoked it runs.
func (e *PermissionEnforcer) AllowForPrompt(rules ...string) {
	e.promptRules.mu.Lock()
	defer e.promptRules.mu.Unlock()
	for _, r := range rules {
		if !slices.Contains(e.promptRules.rules, r) {
			e.promptRules.rules = append(e.promptRules.rules, r)
		}
	}
}

// PromptRules returns the rules granted for the running prompt.
func (e *PermissionEnforcer) PromptRules() []string {
	e.promptRules.mu.Lock()
	defer e.promptRules.mu.Unlock()
	return slices.Clone(e.promptRules.rules)
}

// ClearPromptRules ends the grants of AllowForPrompt.
func (e *PermissionEnforcer) ClearPromptRules() {
	e.promptRules.mu.Lock()
	e.promptRules.rules = nil
	e.promptRules.mu.Unlock()
}

// Denials returns every call denied so far, in order.
func (e *PermissionEnforcer) Denials() []PermissionDenial {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.denials)
}

func (e *PermissionEnforcer) report(ev ToolExecutionEvent) {
	if e.cfg.Report != nil {
		e.cfg.Report(ev)
	}
}

type guardedTool struct {
	inner  llm.Tool
	schema llm.ToolSchema
	e      *PermissionEnforcer
}

func (g *guardedTool) Schema() llm.ToolSchema { return g.schema }

// ConcurrencySafe forwards the wrapped tool's answer (agent.ConcurrencySafe): wrapping a
// read-only tool must not serialize it, nor may it let a mutating tool run concurrently.
func (g *guardedTool) ConcurrencySafe(args json.RawMessage) bool {
	cs, ok := g.inner.(agent.ConcurrencySafe)
	return ok && cs.ConcurrencySafe(args)
}

// Execute runs the permission pipeline. Whatever happens, it returns a result.
func (g *guardedTool) Execute(ctx context.Context, args json.RawMessage) llm.ToolResult {
	info, _ := llm.ToolCallFrom(ctx)
	return g.e.execute(ctx, g.schema.Name, info.ID, args, g.inner.Execute)
}

// ToolExec runs a tool with the input the permission pipeline settled on.
type ToolExec func(ctx context.Context, input json.RawMessage) llm.ToolResult

// RunExec runs the whole pipeline of a wrapped tool's Execute (see the package doc: the
// start and end reports, the input check, evaluator, hooks, approval, PostToolUse and the
// result cap) for one call of a tool that runs elsewhere, such as in a subagent's
// worker. exec is called at most once, with the input the pipeline settled on (a
// PreToolUse hook may have rewritten it), and not at all when the call is denied,
// blocked or unparsable. Whatever happens, it returns the result the model sees.
func (e *PermissionEnforcer) RunExec(ctx context.Context, toolName, toolUseID string, input json.RawMessage, exec ToolExec) llm.ToolResult {
	return e.execute(ctx, toolName, toolUseID, input, exec)
}

func (e *PermissionEnforcer) execute(ctx context.Context, toolName, toolUseID string, args json.RawMessage, exec ToolExec) (res llm.ToolResult) {
	call := PermissionRequest{ToolName: toolName, ToolUseID: toolUseID, Input: normalizeArgs(args), Cwd: e.cfg.Cwd}
	e.report(ToolExecutionEvent{Type: ToolStart, ToolName: call.ToolName, ToolUseID: call.ToolUseID, ToolArgs: call.Input})
	var out outcome
	defer func() {
		if p := recover(); p != nil {
			res = llm.ToolFailure(fmt.Sprintf("Error: tool %s failed unexpectedly: %v", call.ToolName, p))
		}
		res = truncateResult(res, e.cfg.MaxResultChars, e.save, call.ToolName, call.ToolUseID)
		end := ToolExecutionEvent{Type: ToolEnd, ToolName: call.ToolName, ToolUseID: call.ToolUseID,
			ToolArgs: call.Input, Success: res.Success, Denied: out.denied, Message: strings.Join(out.userMessages, "\n")}
		if !res.Success {
			end.ErrorCode, _ = res.Metadata["errorCode"].(string)
			end.Reason = res.Error
		}
		if b, err := json.Marshal(res); err == nil {
			end.ToolResultData = string(b)
		}
		e.report(end)
	}()
	if bad, ok := unparsableInput(call.ToolName, call.Input); ok {
		// Not a permission question: nothing could be evaluated, nothing ran.
		out.res = bad
		return out.res
	}
	out = e.run(ctx, exec, call)
	return out.res
}

// outcome is what the pipeline made of one call.
type outcome struct {
	res    llm.ToolResult
	denied bool
	// userMessages are the hooks' systemMessages, for the user only.
	userMessages []string
}

// run is the pipeline: evaluator → PreToolUse → approval → tool → PostToolUse(Failure).
func (e *PermissionEnforcer) run(ctx context.Context, exec ToolExec, call PermissionRequest) outcome {
	if ctx.Err() != nil {
		return outcome{res: interruptedResult()}
	}
	d := e.evaluate(ctx, call)
	if d.Behavior == BehaviorDeny {
		return outcome{res: e.deny(call, d.Reason), denied: true}
	}
	pre := e.hooks.run(ctx, HookInput{HookEventName: HookPreToolUse, ToolName: call.ToolName,
		ToolInput: call.Input, ToolUseID: call.ToolUseID})
	// Whatever the model is told about this call from here on carries the hook's context.
	finish := func(o outcome) outcome {
		o.res = withFeedback(o.res, pre.AdditionalContext)
		if pre.SystemMessage != "" {
			o.userMessages = append([]string{pre.SystemMessage}, o.userMessages...)
		}
		o = stopRun(o, pre.StopRun)
		return o
	}
	if ctx.Err() != nil {
		return finish(outcome{res: interruptedResult()})
	}
	if pre.Blocked || pre.PermissionDecision == BehaviorDeny {
		return finish(outcome{res: e.blocked(call, pre.Reason), denied: true})
	}
	if len(pre.UpdatedInput) > 0 && json.Valid(pre.UpdatedInput) {
		// The rewritten call is decided afresh: a hook must not smuggle a denied call through.
		call.Input = pre.UpdatedInput
		if d = e.evaluate(ctx, call); d.Behavior == BehaviorDeny {
			return finish(outcome{res: e.deny(call, d.Reason), denied: true})
		}
	}
	switch pre.PermissionDecision {
	case BehaviorAllow:
		// A hook's allow skips the question the mode would ask, never one an ask rule
		// or a safety check asks (Claude Code's rule).
		if d.Behavior != BehaviorAsk || !d.Binding {
			d = PermissionDecision{Behavior: BehaviorAllow, Reason: "allowed by PreToolUse hook"}
		}
	case BehaviorAsk:
		d = PermissionDecision{Behavior: BehaviorAsk, Reason: firstNonEmpty(pre.Reason, "PreToolUse hook asks")}
	}
	if d.Behavior != BehaviorAllow {
		ok, reason, updated := e.approve(ctx, call, d)
		if !ok {
			return finish(outcome{res: e.deny(call, reason), denied: true})
		}
		if len(updated) > 0 && json.Valid(updated) {
			// As with a hook's rewrite: the approved call's new input must not pass a deny rule.
			call.Input = updated
			if d = e.evaluate(ctx, call); d.Behavior == BehaviorDeny {
				return finish(outcome{res: e.deny(call, d.Reason), denied: true})
			}
		}
	}
	res, post := e.afterTool(ctx, call, safeExecute(ctx, exec, call))
	o := outcome{res: res}
	if post.SystemMessage != "" {
		o.userMessages = append(o.userMessages, post.SystemMessage)
	}
	return finish(stopRun(o, post.StopRun))
}

// stopRun marks a result that ends the run (agent.MetaStopRun) and tells the user why.
func stopRun(o outcome, reason string) outcome {
	if reason == "" {
		return o
	}
	if _, done := o.res.Metadata[agent.MetaStopRun]; done {
		return o
	}
	o.res.Metadata = cloneWith(o.res.Metadata, agent.MetaStopRun, reason)
	o.userMessages = append(o.userMessages, "Stopped by hook: "+reason)
	return o
}

func (e *PermissionEnforcer) evaluate(ctx context.Context, call PermissionRequest) PermissionDecision {
	if e.cfg.Evaluator == nil {
		return PermissionDecision{Behavior: BehaviorAsk, Reason: "no permission evaluator configured"}
	}
	call.SessionAllow, call.PromptAllow = e.SessionRules(), e.PromptRules()
	d := e.cfg.Evaluator.Evaluate(ctx, call, e.cfg.Mode())
	switch d.Behavior {
	case BehaviorAllow, BehaviorAsk, BehaviorDeny:
		return d
	}
	// An unknown answer must never open the gate.
	return PermissionDecision{Behavior: BehaviorAsk, Reason: fmt.Sprintf("unrecognized decision %q", d.Behavior)}
}

// approve resolves an ask: the PermissionRequest hooks, then the handler, else deny. An
// "allow for the session" answer stores the decision's SessionRule, which later
// evaluations see as an allow rule.
func (e *PermissionEnforcer) approve(ctx context.Context, call PermissionRequest, d PermissionDecision) (ok bool, reason string, updatedInput json.RawMessage) {
	orig := call.Input
	if done, ok, reason, updated := e.permissionHooks(ctx, &call, &d); done {
		return ok, reason, updated
	}
	var rewritten json.RawMessage // a hook's allow with new input, still to be approved
	if !bytes.Equal(orig, call.Input) {
		rewritten = call.Input
	}
	withInput := func(a json.RawMessage) json.RawMessage {
		if len(a) > 0 {
			return a
		}
		return rewritten
	}
	if e.cfg.Handler == nil {
		return false, NoOneToAsk(d.Reason), nil
	}
	seen := len(e.SessionRules())
	select {
	case e.ask <- struct{}{}:
	case <-ctx.Done():
		return false, "aborted while waiting for approval", nil
	}
	defer func() { <-e.ask }()
	if len(e.SessionRules()) != seen && d.SessionRule != "" {
		// A rule was approved while this call queued: it may cover this call now.
		if again := e.evaluate(ctx, call); again.Behavior == BehaviorAllow {
			return true, "", rewritten
		}
	}
	answer := make(chan PermissionAnswer, 1)
	go func() {
		a := PermissionAnswer{Approval: ApprovalDeny}
		defer func() {
			_ = recover() // a panicking handler denies
			answer <- a
		}()
		a = e.cfg.Handler(ctx, ApprovalRequest{ToolName: call.ToolName, ToolUseID: call.ToolUseID, Input: call.Input,
			Reason: d.Reason, SessionRule: d.SessionRule})
	}()
	select {
	case <-ctx.Done():
		return false, "aborted while waiting for approval", nil
	case a := <-answer:
		if ctx.Err() != nil {
			return false, "aborted while waiting for approval", nil
		}
		switch a.Approval {
		case ApprovalAllow:
			return true, "", withInput(a.UpdatedInput)
		case ApprovalAllowSession:
			if d.SessionRule != "" {
				e.addSessionRule(d.SessionRule)
			}
			return true, "", withInput(a.UpdatedInput)
		}
		// Only an answer from a user says so; a handler's denial without a reason names
		// no one (nobody was asked: a subagent's handler, a handler that failed).
		reason := a.Reason
		switch {
		case reason == "" && a.Message != "":
			reason = DeniedByUser // a message for the model is a person's
		case reason == "":
			reason = "denied: the permission handler did not approve the call"
		}
		if a.Message != "" {
			reason += ": " + a.Message
		}
		return false, reason, nil
	}
}

// permissionHooks runs the PermissionRequest hooks, where Claude Code runs them: when
// the user would be asked (headless runs too). A deny is final (with interrupt it also
// stops the agent). An allow is final unless its updatedInput changes the answer of the
// rules: a deny rule denies it, an ask rule or safety check (a binding ask) still goes
// to the handler, about the new input. No decision: the handler decides.
func (e *PermissionEnforcer) permissionHooks(ctx context.Context, call *PermissionRequest, d *PermissionDecision) (done, ok bool, reason string, updated json.RawMessage) {
	pr := e.hooks.run(ctx, HookInput{HookEventName: HookPermissionRequest, ToolName: call.ToolName,
		ToolInput: call.Input, ToolUseID: call.ToolUseID, PermissionSuggestion: d.SessionRule})
	switch pr.PermissionDecision {
	case BehaviorDeny:
		if pr.Interrupt && e.cfg.Interrupt != nil {
			e.cfg.Interrupt()
		}
		return true, false, "denied by PermissionRequest hook: " + firstNonEmpty(pr.Reason, "Permission denied by hook"), nil
	case BehaviorAllow:
		if len(pr.UpdatedInput) == 0 || !json.Valid(pr.UpdatedInput) {
			return true, true, "", nil
		}
		again := *call
		again.Input = pr.UpdatedInput
		switch nd := e.evaluate(ctx, again); {
		case nd.Behavior == BehaviorDeny:
			return true, false, nd.Reason, nil
		case nd.Behavior == BehaviorAsk && nd.Binding:
			*call, *d = again, nd
			return false, false, "", nil
		}
		return true, true, "", pr.UpdatedInput
	}
	return false, false, "", nil
}

// afterTool fires PostToolUse or PostToolUseFailure and adds their feedback for the model.
func (e *PermissionEnforcer) afterTool(ctx context.Context, call PermissionRequest, res llm.ToolResult) (llm.ToolResult, HookOutcome) {
	in := HookInput{ToolName: call.ToolName, ToolInput: call.Input, ToolUseID: call.ToolUseID}
	if res.Success {
		in.HookEventName = HookPostToolUse
		in.ToolResponse, _ = json.Marshal(res)
	} else {
		in.HookEventName = HookPostToolUseFailure
		in.Error = res.ModelContent()
		in.IsInterrupt = ctx.Err() != nil
	}
	// Post hooks still run after an abort: the tool did run and auditors must see it.
	post := e.hooks.run(context.WithoutCancel(ctx), in)
	var feedback string
	if post.Blocked && post.Reason != "" {
		feedback = fmt.Sprintf("%s hook feedback: %s", in.HookEventName, post.Reason)
	}
	feedback = joinNonEmpty(feedback, post.AdditionalContext)
	return withFeedback(res, feedback), post
}

// withFeedback appends text for the model to a result, to its output or its error.
func withFeedback(res llm.ToolResult, text string) llm.ToolResult {
	if text == "" {
		return res
	}
	if res.Success {
		res.Output = joinNonEmpty(res.Output, text)
	} else {
		res.Error = joinNonEmpty(res.Error, text)
	}
	return res
}

func (e *PermissionEnforcer) deny(call PermissionRequest, reason string) llm.ToolResult {
	e.record(call)
	msg := PermissionDeniedPrefix + " for " + call.ToolName
	if reason != "" {
		msg += ": " + reason
	}
	return llm.ToolResult{Error: msg, Metadata: map[string]any{"errorCode": ErrorCodePermissionDenied, "denied": true}}
}

func (e *PermissionEnforcer) blocked(call PermissionRequest, reason string) llm.ToolResult {
	e.record(call)
	if reason == "" {
		reason = "no reason given"
	}
	return llm.ToolResult{Error: BlockedByHookPrefix + ": " + reason,
		Metadata: map[string]any{"errorCode": ErrorCodeHookBlocked, "denied": true}}
}

func (e *PermissionEnforcer) record(call PermissionRequest) {
	e.mu.Lock()
	e.denials = append(e.denials, PermissionDenial{ToolName: call.ToolName, ToolUseID: call.ToolUseID, ToolInput: call.Input})
	e.mu.Unlock()
	if e.parent != nil {
		e.parent.record(call)
	}
}

// safeExecute runs the tool; a panic becomes a failed result.
func safeExecute(ctx context.Context, exec ToolExec, call PermissionRequest) (res llm.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			res = llm.ToolFailure(fmt.Sprintf("Error: tool %s failed unexpectedly: %v", call.ToolName, p))
		}
	}()
	res = exec(ctx, call.Input)
	if !res.Success && res.Metadata["errorCode"] == nil {
		res.Metadata = cloneWith(res.Metadata, "errorCode", ErrorCodeToolFailed)
	}
	return res
}

func interruptedResult() llm.ToolResult {
	return llm.ToolResult{Error: agent.InterruptedToolText, Metadata: map[string]any{"errorCode": agent.ErrorCodeInterrupted}}
}

// normalizeArgs makes absent arguments an empty object and text that is not JSON a JSON
// string holding it (as providers hand over streamed arguments that do not parse), so
// every event and denial carries valid JSON.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	switch {
	case len(t) == 0 || bytes.Equal(t, []byte("null")):
		return json.RawMessage("{}")
	case !json.Valid(t):
		quoted, _ := json.Marshal(string(args))
		return quoted
	}
	return args
}

func cloneWith(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for key, val := range m {
		out[key] = val
	}
	out[k] = v
	return out
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
