package assemble

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/background"
	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// hookAgentTools are an agent hook's tools: it inspects, it never changes anything.
var hookAgentTools = []string{"Read", "Grep", "Glob"}

// hookAgentType names an agent hook's subagent in task lists and transcripts.
const hookAgentType = "hook-agent"

// errHooksNotReady reports a prompt or agent hook fired before the session that runs it
// is built (it cannot happen once Assemble returned).
var errHooksNotReady = errors.New("the session's model is not ready for hooks yet")

// hookRuntime runs the session's prompt and agent hooks. The hooks are read before the
// provider is opened and the subagents are bound, so both are set once they exist.
type hookRuntime struct {
	mu       sync.Mutex
	provider llm.Provider
	choice   ProviderChoice
	subs     *background.Subagents
}

func (h *hookRuntime) bind(p llm.Provider, choice ProviderChoice, subs *background.Subagents) {
	h.mu.Lock()
	h.provider, h.choice, h.subs = p, choice, subs
	h.mu.Unlock()
}

// resolve names the model a hook asks for: the session's when the hook names none, an
// alias resolved through the provider type's catalogue.
func (h *hookRuntime) resolve(model string) (string, error) {
	if model == "" {
		return h.choice.Model, nil
	}
	def, err := registry.Default().Lookup(h.choice.Type)
	if err != nil { // an injected provider's models are taken as given
		return model, nil
	}
	return resolveModel(def, model)
}

// ask is the prompt hooks' model call, through the session's provider (the engine's:
// workers hold no keys), without tools.
func (h *hookRuntime) ask(ctx context.Context, req hook.ModelRequest) (string, error) {
	h.mu.Lock()
	p := h.provider
	h.mu.Unlock()
	if p == nil {
		return "", errHooksNotReady
	}
	model, err := h.resolve(req.Model)
	if err != nil {
		return "", err
	}
	resp, err := p.Chat(ctx, llm.ChatRequest{Model: model, Purpose: llm.PurposeHook,
		Messages: []llm.Message{llm.NewSystemMessage(req.System), llm.NewUserMessage(req.Prompt)}}, llm.Callbacks{})
	if err != nil {
		return "", err
	}
	return resp.Message.Text(), nil
}

// runAgent is the agent hooks' subagent: read-only tools, the hook's prompt, at most
// req.MaxTurns rounds, cancelled when the hook's timeout ends. Its final answer carries
// the verdict.
func (h *hookRuntime) runAgent(ctx context.Context, req hook.AgentRequest) (string, error) {
	h.mu.Lock()
	subs := h.subs
	h.mu.Unlock()
	if subs == nil {
		return "", errHooksNotReady
	}
	model, err := h.resolve(req.Model)
	if err != nil {
		return "", err
	}
	t, err := subs.Spawn(background.Spec{AgentType: hookAgentType, Description: string(req.Event) + " agent hook",
		Prompt: req.Prompt, SystemPrompt: req.System, Model: model, Tools: hookAgentTools,
		MaxTurns: req.MaxTurns, HookAgent: true})
	if err != nil {
		return "", err
	}
	sp := background.Spawner{Subagents: subs}
	res, err := sp.Wait(ctx, t.ID)
	if err != nil {
		_ = sp.Cancel(t.ID, "agent hook timed out")
		return "", err
	}
	if !res.Succeeded() {
		return "", fmt.Errorf("subagent %s: %s", res.Status, firstNonEmpty(res.Error, "no answer"))
	}
	return res.Output, nil
}

// executors are the prompt and agent executors, the agent one only with a runner for
// subagents.
func (h *hookRuntime) executors(withAgents bool) map[string]hook.Executor {
	out := map[string]hook.Executor{"prompt": hook.PromptExecutor{Ask: h.ask}}
	if withAgents {
		out["agent"] = hook.AgentExecutor{Run: h.runAgent}
	}
	return out
}

// notifyPermission fires the Notification hooks for a permission question, as Claude
// Code does when its permission dialog opens (notification_type permission_prompt).
func (a *Assembled) notifyPermission(pr interactive.PermissionRequest) {
	in := hook.Input{Event: hook.Notification, SessionID: a.Session.ID(), TranscriptPath: a.LogPath,
		Cwd: a.cwd, PermissionMode: string(a.Session.PermissionMode()),
		Message: "Robota needs your permission to use " + pr.ToolName, Title: "Permission needed",
		NotificationType: "permission_prompt"}
	a.hookRunner.Run(context.Background(), in)
}

// hookIfFilter matches a tool call against hooks' `if` conditions (Claude Code's
// permission-rule syntax): the condition, as the only deny rule of an evaluator, matches
// when that rule denies the call, so `Bash(rm *)` matches `ls && rm x` as a deny rule
// would. Evaluators are built once per condition.
type hookIfFilter struct {
	cwd, home string
	mu        sync.Mutex
	byRule    map[string]*permission.Evaluator
}

func (f *hookIfFilter) evaluator(cond string) (*permission.Evaluator, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ev, ok := f.byRule[cond]; ok {
		return ev, nil
	}
	r, err := permission.NewRule(permission.Deny, cond, permission.Source{Name: "hook if", Root: f.cwd})
	if err != nil {
		return nil, err
	}
	ev := permission.New(permission.Config{Mode: permission.ModeBypassPermissions, Rules: []permission.Rule{r}, ProjectRoot: f.cwd, Home: f.home})
	if f.byRule == nil {
		f.byRule = map[string]*permission.Evaluator{}
	}
	f.byRule[cond] = ev
	return ev, nil
}

func (f *hookIfFilter) match(h hook.Definition, in hook.Input) bool {
	ev, err := f.evaluator(h.If)
	if err != nil {
		return true // checked when the hooks were read; a guard is never skipped
	}
	cwd := in.Cwd
	if cwd == "" {
		cwd = f.cwd
	}
	d := ev.Evaluate(permission.Request{Tool: in.ToolName, Input: in.ToolInput, Cwd: cwd})
	return d.Behavior == permission.Deny && d.Rule != nil
}
