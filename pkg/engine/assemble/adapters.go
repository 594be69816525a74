package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// evaluatorAdapter serves session.PermissionEvaluator from a permission.Evaluator.
type evaluatorAdapter struct {
	ev *permission.Evaluator
	// slash classifies SlashCommand calls by their command (nil: no such tool).
	slash *slashCommandTool
}

func (a evaluatorAdapter) Evaluate(_ context.Context, req session.PermissionRequest, mode session.PermissionMode) session.PermissionDecision {
	ev := a.ev
	if m := permission.Mode(mode); m != "" && m != ev.Mode() {
		ev = ev.WithMode(m)
	}
	ev = ev.WithRules(append(sessionAllowRules(req.SessionAllow), promptAllowRules(req.PromptAllow)...)...)
	preq := permission.Request{Tool: req.ToolName, Input: req.Input, Cwd: req.Cwd}
	if req.ToolName == permission.SlashCommandTool && a.slash != nil {
		preq.Class, preq.CommandNames = a.slash.classify(req.Input)
	}
	d := ev.Evaluate(preq)
	out := session.PermissionDecision{Behavior: session.Behavior(d.Behavior), Reason: d.Reason, Binding: binding(d)}
	if d.Rule != nil {
		out.Rule = d.Rule.String()
	}
	if out.Behavior == session.BehaviorAsk && !out.Binding {
		// Only the mode's ask can be lifted by an allow rule, so only it gets one to offer.
		out.SessionRule = interactive.SuggestSessionRule(req.ToolName, req.Input, req.Cwd)
	}
	return out
}

// sessionAllowRules parses the rules approved for the session. They are this package's
// own suggestions; one that does not parse is left out (it allows nothing).
func sessionAllowRules(rules []string) []permission.Rule {
	var out []permission.Rule
	for _, s := range rules {
		if r, err := permission.NewRule(permission.Allow, s, permission.Source{Name: "session"}); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// promptAllowRules parses the rules granted for the running prompt (a skill's
// allowed-tools, checked when the skill was loaded); one that does not parse allows
// nothing.
func promptAllowRules(rules []string) []permission.Rule {
	var out []permission.Rule
	for _, s := range rules {
		if r, err := permission.NewRule(permission.Allow, s, permission.Source{Name: "skill allowed-tools"}); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// binding reports whether an ask is one a PreToolUse hook's allow must not lift:
// anything but the permission mode's own answer on a fully analysed call (a rule, a
// protected path, a command or path that cannot be analysed). permission.Decision
// carries that as ByMode, folded over a Bash call's parts.
func binding(d permission.Decision) bool {
	return d.Behavior == permission.Ask && !d.ByMode
}

// hookAdapter serves session.HookRunner from a hook.Runner.
type hookAdapter struct {
	r *hook.Runner
	// errs records the hooks' non-blocking failures in the session log (nil: not
	// recorded, as in tests).
	errs *hookErrorLog
}

// hookErrorLog writes hook failures to the session log, once it is open.
type hookErrorLog struct {
	mu  sync.Mutex
	log session.Logger
}

func (l *hookErrorLog) set(log session.Logger) {
	l.mu.Lock()
	l.log = log
	l.mu.Unlock()
}

func (l *hookErrorLog) record(ev hook.Event, err error) {
	if l == nil {
		return
	}
	l.mu.Lock()
	log := l.log
	l.mu.Unlock()
	if log != nil {
		log.Log(string(sessionlog.EventError), sessionlog.NewErrorData("hook "+string(ev), err))
	}
}

func (a hookAdapter) Run(ctx context.Context, in session.HookInput) session.HookOutcome {
	ev, err := hook.ParseEvent(string(in.HookEventName))
	if err != nil {
		return session.HookOutcome{}
	}
	hin := hook.Input{
		Event: ev, SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: in.Cwd,
		PermissionMode: in.PermissionMode, ToolName: in.ToolName, ToolInput: in.ToolInput,
		ToolUseID: in.ToolUseID, ToolResponse: in.ToolResponse, Error: in.Error, ErrorDetails: in.ErrorDetails,
		IsInterrupt: in.IsInterrupt, Prompt: in.Prompt, LastAssistantMessage: in.LastAssistantMessage,
		Response: in.Response, Source: in.Source, Reason: in.Reason, Trigger: in.Trigger,
		CustomInstructions: in.CustomInstructions, CompactSummary: in.CompactSummary,
		PermissionSuggestions: permissionSuggestions(in.PermissionSuggestion),
	}
	if in.StopHookActive != nil {
		hin.StopHookActive = *in.StopHookActive
	}
	res := a.r.Run(ctx, hin)
	out := session.HookOutcome{
		Blocked: res.Blocked, Reason: res.Reason, UpdatedInput: res.UpdatedInput,
		AdditionalContext: res.AdditionalContext, PermissionDecision: session.Behavior(res.PermissionDecision),
	}
	if p := res.Permission; ev == hook.PermissionRequest && p != nil {
		out.PermissionDecision, out.Reason, out.UpdatedInput, out.Interrupt = session.Behavior(p.Behavior), p.Message, p.UpdatedInput, p.Interrupt
	}
	if len(res.ModelFeedback) > 0 {
		// PostToolUse(Failure) exit 2 or decision "block": the session feeds a blocked
		// post-tool outcome's Reason to the model.
		out.Blocked = true
		out.Reason = strings.Join(append(nonEmptyLines(out.Reason), res.ModelFeedback...), "\n")
	}
	if !res.Continue {
		switch ev {
		case hook.Stop, hook.SubagentStop:
			// Blocked would make the agent go on; continue:false means stop, and wins
			// over a decision "block" (Claude Code).
			out.Blocked, out.Reason = false, res.StopReason
		case hook.PreToolUse, hook.PostToolUse, hook.PostToolUseFailure:
			// The agent stops after this tool call (Claude Code); a PreToolUse call is
			// not run either.
			out.StopRun = firstNonEmpty(res.StopReason, "stopped by hook")
			if ev == hook.PreToolUse && !out.Blocked {
				out.Blocked, out.Reason = true, out.StopRun
			}
		default:
			if !out.Blocked {
				out.Blocked, out.Reason = true, firstNonEmpty(res.StopReason, "stopped by hook")
			}
		}
	}
	if out.Reason == "" && res.PermissionDecisionReason != "" {
		out.Reason = res.PermissionDecisionReason
	}
	messages := res.UserMessages
	for _, run := range res.Runs {
		if run.Err == nil {
			continue
		}
		a.errs.record(ev, run.Err)
		if run.Hook.Type == "prompt" || run.Hook.Type == "agent" {
			// A model's answer that could not be read is shown, never dropped unseen.
			messages = append(messages, fmt.Sprintf("%s %s hook error: %v", ev, run.Hook.Type, run.Err))
		}
	}
	for _, m := range messages {
		if out.SystemMessage != "" {
			out.SystemMessage += "\n"
		}
		out.SystemMessage += m
	}
	return out
}

// permissionSuggestions is a PermissionRequest's permission_suggestions in Claude
// Code's shape: the session rule "allow for the session" would add.
func permissionSuggestions(rule string) json.RawMessage {
	if rule == "" {
		return nil
	}
	tool, content := rule, ""
	if i := strings.IndexByte(rule, '('); i > 0 && strings.HasSuffix(rule, ")") {
		tool, content = rule[:i], rule[i+1:len(rule)-1]
	}
	r := map[string]string{"toolName": tool}
	if content != "" {
		r["ruleContent"] = content
	}
	b, _ := json.Marshal([]any{map[string]any{"type": "addRules", "rules": []any{r}, "behavior": "allow", "destination": "session"}})
	return b
}

func nonEmptyLines(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// loadRecord reads a stored record to resume.
func loadRecord(ctx context.Context, s store.Store, id string) (*store.Record, error) {
	r, err := s.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// hookRunnerOf returns the hook runner behind a session's hooks (nil when none are
// configured).
func hookRunnerOf(h session.HookRunner) *hook.Runner {
	if ha, ok := h.(hookAdapter); ok {
		return ha.r
	}
	return nil
}
