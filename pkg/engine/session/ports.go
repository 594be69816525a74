package session

import (
	"context"
	"encoding/json"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// The interfaces in this file are what Session consumes. Concrete implementations live in
// pkg/engine/permission, pkg/engine/hook, pkg/engine/session/store and
// pkg/engine/session/sessionlog; the assembling layer adapts them (a store.Store serves
// Store as it is: the session appends store.Delta values itself).

// PermissionMode is a permission mode as Claude Code names it: "default", "acceptEdits",
// "plan", "bypassPermissions", "dontAsk". The evaluator interprets it.
type PermissionMode string

// DefaultPermissionMode is the mode of a session configured without one.
const DefaultPermissionMode PermissionMode = "default"

// Behavior is what a permission decision says to do with a tool call.
type Behavior string

const (
	BehaviorAllow Behavior = "allow"
	BehaviorAsk   Behavior = "ask"
	BehaviorDeny  Behavior = "deny"
)

// PermissionRequest is one tool call to decide.
type PermissionRequest struct {
	ToolName  string
	ToolUseID string
	Input     json.RawMessage // the arguments as the model sent them ("{}" when empty)
	Cwd       string
	// SessionAllow are the rules approved with "allow for the session", in the order they
	// were approved. The evaluator treats them as allow rules of their own layer: they
	// lift the mode's ask, never a deny, an ask rule or a protected path.
	SessionAllow []string
	// PromptAllow are allow rules granted for the running prompt only (a skill's
	// allowed-tools); like SessionAllow they never lift a deny, an ask rule or a safety
	// check.
	PromptAllow []string
}

// PermissionDecision is an evaluator's answer. Reason names the rule or mode that decided.
type PermissionDecision struct {
	Behavior Behavior
	Reason   string
	// Rule is the permission rule that decided, as written ("Bash(touch *)"); empty when
	// no rule did.
	Rule string
	// Binding marks an ask that a PreToolUse hook's "allow" does not lift: one made by a
	// rule, a protected path or a command or path that cannot be analysed, rather than
	// by the permission mode alone (Claude Code: a hook allow skips the prompt, but ask
	// rules and safety checks still apply). An evaluator that never sets it lets a hook
	// allow lift every ask.
	Binding bool
	// SessionRule, on an ask, is the rule an "allow for the session" answer adds: a
	// Claude Code rule for the command prefix or the path of this call
	// ("Bash(npm test:*)", "Edit(//abs/dir/**)"), never broader than needed. Empty when
	// no rule would lift this ask (a binding ask, a call that cannot be scoped): the
	// answer then allows this call only.
	SessionRule string
}

// PermissionEvaluator decides tool calls (deny rules → ask rules → allow rules → mode). It
// must be safe for concurrent use: the tools of one batch run in parallel. Without an
// evaluator every call is ask.
type PermissionEvaluator interface {
	Evaluate(ctx context.Context, req PermissionRequest, mode PermissionMode) PermissionDecision
}

// Approval is a permission handler's answer.
type Approval string

const (
	ApprovalDeny         Approval = "deny"
	ApprovalAllow        Approval = "allow"
	ApprovalAllowSession Approval = "allow-session" // add ApprovalRequest.SessionRule for the rest of the session
)

// DeniedByUser is the reason of a denial a user answered.
const DeniedByUser = "denied by user"

// NoOneToAsk is the reason of a denial because nobody can answer the question (a
// headless run, in process or a client of the engine); why is the decision's reason
// for asking.
func NoOneToAsk(why string) string {
	return "approval required and no one can be asked (" + why + ")"
}

// PermissionAnswer is a permission handler's whole answer.
type PermissionAnswer struct {
	Approval Approval
	// Reason says who or what denied, in the denial's tool result (DeniedByUser when a
	// user answered, "no answer within 5m0s" ...; without one the result names no one);
	// Message is what the user adds for the model. Both are for denials only.
	Reason, Message string
	// UpdatedInput, on an allow, replaces the call's input (a JSON object; the SDK's
	// canUseTool updatedInput). The rewritten call is evaluated again: a deny rule wins.
	UpdatedInput json.RawMessage
}

// ApprovalRequest is what a permission handler is asked.
type ApprovalRequest struct {
	ToolName  string
	ToolUseID string
	Input     json.RawMessage
	Reason    string // why the decision is ask
	// SessionRule is the rule ApprovalAllowSession adds (PermissionDecision.SessionRule);
	// empty means that answer allows this call only.
	SessionRule string
}

// PermissionHandler asks the user about a call the evaluator (or a hook) answered ask. It
// must return when ctx is cancelled; if it does not, the session treats the call as denied
// anyway and ignores the late answer. Calls are serialized: one question at a time.
type PermissionHandler func(ctx context.Context, req ApprovalRequest) PermissionAnswer

// HookRunner runs the hooks configured for input.HookEventName whose matcher matches, and
// merges their outcomes. It must be safe for concurrent use and must not return before its
// hooks finish or ctx ends.
type HookRunner interface {
	Run(ctx context.Context, input HookInput) HookOutcome
}

// Store persists sessions. The session appends what the store does not hold yet (see
// store.Delta): the run's prompt and each completed tool round before the next provider
// request, and the rest with the header fields after every Run, manual Compact and
// Shutdown. A store.Store serves it as it is.
type Store interface {
	Append(ctx context.Context, d *store.Delta) error
}

// Logger records session events (the spec's Session Logging list) for diagnostics and
// replay. data is a JSON-serializable value: a map with the spec's field names, or an
// agent.Event for the replay-boundary events. Log must be safe for concurrent use, must
// serialize data before returning, and never fails the session (errors are the logger's).
type Logger interface {
	Log(event string, data any)
}

// NativeWebConfigurer is implemented by providers that own provider-hosted web tools
// (pkg/providers/anthropic). When Config.NativeWebTools is set, the session applies it
// through this port at construction, without knowing the provider.
type NativeWebConfigurer interface {
	ConfigureNativeWebTools(enable llm.NativeWebToolRequest)
}
