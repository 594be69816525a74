package hook

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.uber.org/zap"
)

// MaxContext caps what one hook adds to the model's context (additionalContext or
// plain stdout), in characters.
const MaxContext = 10000

// Result is the folded outcome of the hooks of one event.
type Result struct {
	Event Event
	// Blocked: the guarded action must not happen — the tool call (PreToolUse), the
	// prompt (UserPromptSubmit), the compaction (PreCompact), the worktree
	// (WorktreeCreate) — or, for Stop and SubagentStop, the agent must not stop yet and
	// continues with Reason as its instruction.
	Blocked bool
	Reason  string
	// Continue false: stop the agent after this event; StopReason is for the user.
	Continue   bool
	StopReason string
	// PermissionDecision is PreToolUse's verdict across hooks, deny > ask > allow
	// ("" when no hook gave one). An exit code of 2 counts as deny.
	PermissionDecision       string
	PermissionDecisionReason string
	// UpdatedInput replaces the whole tool input (PreToolUse). The caller must check
	// the replacement against the permission rules again.
	UpdatedInput json.RawMessage
	// Permission is PermissionRequest's answer across hooks: a deny wins over an
	// allow (nil when no hook decided). An exit code of 2 or decision "block" is a deny.
	Permission *PermissionDecision
	// AdditionalContext is added to the model's context.
	AdditionalContext string
	// ModelFeedback is shown to the model (PostToolUse exit 2, decision "block").
	ModelFeedback []string
	// UserMessages are shown to the user (systemMessage, stderr of exit 2 on events
	// that cannot block).
	UserMessages   []string
	SuppressOutput bool
	// Runs holds every hook's outcome in configuration order.
	Runs []Run
	// Errors are the non-blocking failures, already logged.
	Errors []error
}

// decisionRank orders permission decisions; anything else ranks as none ("").
func decisionRank(d string) int {
	switch d {
	case "allow":
		return 1
	case "ask":
		return 2
	case "deny":
		return 3
	}
	return 0
}

func (r *Runner) fold(ev Event, runs []Run) Result {
	res := Result{Event: ev, Continue: true, Runs: runs}
	var reasons, contexts []string
	decisionReason := map[string]string{}
	for _, run := range runs {
		if run.Async {
			continue
		}
		if run.Err != nil {
			res.Errors = append(res.Errors, run.Err)
			continue
		}
		resp := run.Response
		switch {
		case resp.ExitCode == 2 || (ev == WorktreeCreate && resp.ExitCode != 0):
			// Exit 2 wins over anything printed on stdout.
			msg := capText(strings.TrimSpace(resp.Stderr))
			if msg == "" {
				msg = fmt.Sprintf("hook %s exited with code %d", describe(run.Hook), resp.ExitCode)
			}
			switch {
			case blocksOnExit2(ev) || ev == WorktreeCreate:
				res.Blocked = true
				reasons = append(reasons, msg)
				if ev == PreToolUse {
					res.raise("deny", msg, decisionReason)
				}
			case feedsModelOnExit2(ev):
				res.ModelFeedback = append(res.ModelFeedback, msg)
			default:
				res.UserMessages = append(res.UserMessages, msg)
			}
		case resp.ExitCode != 0:
			err := fmt.Errorf("%w: %s exited with code %d: %s", ErrHookFailed, describe(run.Hook), resp.ExitCode,
				capText(strings.TrimSpace(resp.Stderr)))
			r.log.Warn("hook failed", zap.Error(err))
			res.Errors = append(res.Errors, err)
		default:
			out, _, err := ParseOutput(resp.Stdout)
			if err != nil {
				err = fmt.Errorf("%s: %w", describe(run.Hook), err)
				res.Errors = append(res.Errors, err)
				switch {
				case ev == PreToolUse:
					// A guard whose answer cannot be read must not let the call through
					// unasked; a deny that did parse still wins over this ask.
					r.log.Warn("PreToolUse hook output is not valid; asking for approval", zap.Error(err))
					res.raise("ask", capText("hook output could not be understood, so approval is required: "+err.Error()), decisionReason)
				case out == nil:
					r.log.Warn("hook output is not valid JSON; using it as text", zap.Error(err))
				default:
					r.log.Warn("hook output has invalid fields; using the others", zap.Error(err))
				}
			}
			if out == nil {
				if stdoutIsContext(ev) {
					if t := strings.TrimSpace(resp.Stdout); t != "" {
						contexts = append(contexts, capText(t))
					}
				}
				continue
			}
			r.apply(ev, run, out, &res, &reasons, &contexts, decisionReason)
		}
	}
	if ev == PermissionRequest && res.Blocked && (res.Permission == nil || res.Permission.Behavior != "deny") {
		res.Permission = &PermissionDecision{Behavior: "deny", Message: strings.Join(nonEmpty(reasons), "\n")}
	}
	if res.PermissionDecision != "" {
		res.PermissionDecisionReason = decisionReason[res.PermissionDecision]
		if res.PermissionDecision == "deny" && ev == PreToolUse {
			res.Blocked = true
			if len(reasons) == 0 {
				reasons = append(reasons, res.PermissionDecisionReason)
			}
		}
	}
	if ev == PermissionRequest && res.Permission != nil && res.Permission.Behavior == "deny" && !res.Blocked {
		res.Blocked = true
		reasons = append(reasons, res.Permission.Message)
	}
	res.Reason = strings.Join(nonEmpty(reasons), "\n")
	res.AdditionalContext = strings.Join(contexts, "\n")
	return res
}

func (r *Runner) apply(ev Event, run Run, out *Output, res *Result, reasons, contexts *[]string, decisionReason map[string]string) {
	if out.Continue != nil && !*out.Continue {
		res.Continue = false
		if res.StopReason == "" {
			res.StopReason = out.StopReason
		}
	}
	if out.SuppressOutput {
		res.SuppressOutput = true
	}
	if out.SystemMessage != "" {
		res.UserMessages = append(res.UserMessages, capText(out.SystemMessage))
	}
	switch {
	case out.Decision == "block" && (blocksOnExit2(ev) && ev != PreToolUse):
		res.Blocked = true
		*reasons = append(*reasons, capText(out.Reason))
	case out.Decision == "block" && feedsModelOnExit2(ev):
		res.ModelFeedback = append(res.ModelFeedback, capText(out.Reason))
	case ev == PreToolUse && out.Decision == "block":
		res.raise("deny", capText(out.Reason), decisionReason) // deprecated spelling
	case ev == PreToolUse && out.Decision == "approve":
		res.raise("allow", capText(out.Reason), decisionReason)
	}
	s := out.Specific
	if s == nil {
		return
	}
	if s.HookEventName != "" && s.HookEventName != string(ev) {
		err := fmt.Errorf("%w: %s: hookSpecificOutput is for %q, not %s", ErrInvalidOutput, describe(run.Hook), s.HookEventName, ev)
		r.log.Warn("hook output ignored", zap.Error(err))
		res.Errors = append(res.Errors, err)
		if ev == PreToolUse {
			res.raise("ask", capText("hook output could not be understood, so approval is required: "+err.Error()), decisionReason)
		}
		return
	}
	if ev == PermissionRequest && s.Decision != nil {
		if res.Permission == nil || (res.Permission.Behavior == "allow" && s.Decision.Behavior == "deny") {
			d := *s.Decision
			d.Message = capText(d.Message)
			res.Permission = &d
		}
	}
	if ev == PreToolUse {
		if s.PermissionDecision != "" {
			res.raise(s.PermissionDecision, capText(s.PermissionDecisionReason), decisionReason)
		}
		if s.UpdatedInput != nil {
			if res.UpdatedInput == nil {
				res.UpdatedInput = s.UpdatedInput
			} else {
				res.Errors = append(res.Errors, fmt.Errorf("%w: %s: a second updatedInput was ignored", ErrInvalidOutput, describe(run.Hook)))
			}
		}
	}
	if s.AdditionalContext != "" && acceptsContext(ev) {
		*contexts = append(*contexts, capText(s.AdditionalContext))
	}
}

// raise keeps the strongest permission decision, and the first reason given for each.
func (res *Result) raise(d, reason string, reasons map[string]string) {
	if decisionRank(d) > decisionRank(res.PermissionDecision) {
		res.PermissionDecision = d
	}
	if _, ok := reasons[d]; !ok || reasons[d] == "" {
		reasons[d] = reason
	}
}

// capText keeps at most MaxContext characters.
func capText(s string) string {
	n := 0
	for i := range s {
		if n == MaxContext {
			return s[:i]
		}
		n++
	}
	return s
}

func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
