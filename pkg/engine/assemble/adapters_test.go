package assemble

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

func testEvaluator(t *testing.T, dir string, mode permission.Mode, l permission.Layer) evaluatorAdapter {
	t.Helper()
	rules, err := permission.Rules(l)
	if err != nil {
		t.Fatal(err)
	}
	return evaluatorAdapter{ev: permission.New(permission.Config{Mode: mode, Rules: rules, ProjectRoot: dir, Home: t.TempDir()})}
}

func jsonArgs(kv ...string) json.RawMessage {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

// TestEvaluatorAdapterMarksBindingAsks: only an ask the mode made is not Binding, so
// only that one can be lifted by a PreToolUse hook's allow.
func TestEvaluatorAdapterMarksBindingAsks(t *testing.T) {
	dir := t.TempDir()
	askTouch := permission.Layer{Ask: []string{"Bash(touch *)"}, Allow: []string{"Bash(ls *)"}, Deny: []string{"Bash(rm *)"}}
	tests := []struct {
		name     string
		mode     permission.Mode
		tool     string
		input    json.RawMessage
		behavior session.Behavior
		binding  bool
		rule     string
	}{
		{name: "mode asks", tool: "Bash", input: jsonArgs("command", "touch a"), behavior: session.BehaviorAsk},
		{name: "mode asks for every part", tool: "Bash", input: jsonArgs("command", "make && touch a"), behavior: session.BehaviorAsk},
		{name: "ask rule", tool: "Bash", input: jsonArgs("command", "touch a"), behavior: session.BehaviorAsk, binding: true, rule: "Bash(touch *)"},
		{name: "ask rule on one part", tool: "Bash", input: jsonArgs("command", "ls -la && touch a"), behavior: session.BehaviorAsk, binding: true, rule: "Bash(touch *)"},
		{name: "command that cannot be analysed", tool: "Bash", input: jsonArgs("command", "echo 'unterminated"), behavior: session.BehaviorAsk, binding: true},
		{name: "eval of a variable", tool: "Bash", input: jsonArgs("command", `eval "$X"`), behavior: session.BehaviorAsk, binding: true},
		{name: "computed program", tool: "Bash", input: jsonArgs("command", `$CMD foo`), behavior: session.BehaviorAsk, binding: true},
		{name: "mode ask with an unknown part", tool: "Bash", input: jsonArgs("command", `make && bash -c "$X"`), behavior: session.BehaviorAsk, binding: true},
		{name: "protected path", mode: permission.ModeAcceptEdits, tool: "Write", input: jsonArgs("file_path", dir+"/.git/config", "content", "x"),
			behavior: session.BehaviorAsk, binding: true},
		{name: "allow rule", tool: "Bash", input: jsonArgs("command", "ls -la"), behavior: session.BehaviorAllow, rule: "Bash(ls *)"},
		{name: "deny rule", tool: "Bash", input: jsonArgs("command", "rm -rf x"), behavior: session.BehaviorDeny, rule: "Bash(rm *)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := permission.Layer{}
			if tc.rule != "" {
				l = askTouch
			}
			mode := tc.mode
			if mode == "" {
				mode = permission.ModeDefault
			}
			d := testEvaluator(t, dir, mode, l).Evaluate(context.Background(),
				session.PermissionRequest{ToolName: tc.tool, Input: tc.input, Cwd: dir}, session.PermissionMode(mode))
			if d.Behavior != tc.behavior || d.Binding != tc.binding || d.Rule != tc.rule {
				t.Fatalf("decision %+v, want behavior %s binding %v rule %q", d, tc.behavior, tc.binding, tc.rule)
			}
		})
	}
}

// sh returns a command hook running an inline script.
func sh(script string) hook.Definition {
	return hook.Definition{Type: "command", Command: "cat > /dev/null; " + script}
}

func TestHookAdapterMapping(t *testing.T) {
	tests := []struct {
		name  string
		ev    session.HookEvent
		hook  hook.Definition
		check func(t *testing.T, o session.HookOutcome)
	}{
		{name: "PostToolUse exit 2 feeds the model", ev: session.HookPostToolUse, hook: sh("echo 'LINT FAILED' >&2; exit 2"),
			check: func(t *testing.T, o session.HookOutcome) {
				if !o.Blocked || o.Reason != "LINT FAILED" {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "PostToolUse decision block feeds the model", ev: session.HookPostToolUse, hook: sh(`echo '{"decision":"block","reason":"fix a.go:3"}'`),
			check: func(t *testing.T, o session.HookOutcome) {
				if !o.Blocked || o.Reason != "fix a.go:3" {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "PostToolUseFailure exit 2 feeds the model", ev: session.HookPostToolUseFailure, hook: sh("echo 'flaky test' >&2; exit 2"),
			check: func(t *testing.T, o session.HookOutcome) {
				if !o.Blocked || o.Reason != "flaky test" {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "continue false without stopReason blocks a prompt", ev: session.HookUserPromptSubmit, hook: sh(`echo '{"continue":false}'`),
			check: func(t *testing.T, o session.HookOutcome) {
				if !o.Blocked || o.Reason != "stopped by hook" {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "continue false with stopReason", ev: session.HookUserPromptSubmit, hook: sh(`echo '{"continue":false,"stopReason":"quota spent"}'`),
			check: func(t *testing.T, o session.HookOutcome) {
				if !o.Blocked || o.Reason != "quota spent" {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "continue false blocks a tool call", ev: session.HookPreToolUse, hook: sh(`echo '{"continue":false}'`),
			check: func(t *testing.T, o session.HookOutcome) {
				if !o.Blocked || o.Reason != "stopped by hook" {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "Stop decision block makes the agent go on", ev: session.HookStop, hook: sh(`echo '{"decision":"block","reason":"run the tests"}'`),
			check: func(t *testing.T, o session.HookOutcome) {
				if !o.Blocked || o.Reason != "run the tests" {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "Stop continue false wins over decision block", ev: session.HookStop, hook: sh(`echo '{"continue":false,"decision":"block","reason":"run the tests"}'`),
			check: func(t *testing.T, o session.HookOutcome) {
				if o.Blocked {
					t.Fatalf("the agent would go on: %+v", o)
				}
			}},
		{name: "PreToolUse ask, context and systemMessage", ev: session.HookPreToolUse,
			hook: sh(`echo '{"systemMessage":"guard ran","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"touches prod","additionalContext":"prod is read-only"}}'`),
			check: func(t *testing.T, o session.HookOutcome) {
				if o.Blocked || o.PermissionDecision != session.BehaviorAsk || o.Reason != "touches prod" ||
					o.AdditionalContext != "prod is read-only" || o.SystemMessage != "guard ran" {
					t.Fatalf("%+v", o)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := hook.ParseEvent(string(tc.ev))
			if err != nil {
				t.Fatal(err)
			}
			a := hookAdapter{r: hook.NewRunner(hook.Config{ev: {{Hooks: []hook.Definition{tc.hook}}}}, t.TempDir())}
			tc.check(t, a.Run(context.Background(), session.HookInput{HookEventName: tc.ev, ToolName: "Bash", ToolInput: jsonArgs("command", "ls")}))
		})
	}
}

type echoTool struct{ name string }

func (e echoTool) Schema() llm.ToolSchema { return llm.ToolSchema{Name: e.name} }
func (e echoTool) Execute(context.Context, json.RawMessage) llm.ToolResult {
	return llm.ToolSuccess("ran " + e.name)
}

// TestAdaptersThroughTheEnforcer: the findings end to end, real evaluator and real hooks.
func TestAdaptersThroughTheEnforcer(t *testing.T) {
	dir := t.TempDir()
	hookAllows := hook.Config{hook.PreToolUse: {{Hooks: []hook.Definition{sh(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`)}}}}
	tests := []struct {
		name    string
		layer   permission.Layer
		hooks   hook.Config
		command string
		ok      bool
		asked   bool
		wantIn  string
		askWhy  string // in the question's reason
	}{
		{name: "PostToolUse exit 2 reaches the model",
			layer:   permission.Layer{Allow: []string{"Bash(make *)"}},
			hooks:   hook.Config{hook.PostToolUse: {{Hooks: []hook.Definition{sh("echo 'LINT FAILED' >&2; exit 2")}}}},
			command: "make lint", ok: true, wantIn: "PostToolUse hook feedback: LINT FAILED"},
		{name: "hook allow does not lift an ask rule",
			layer:   permission.Layer{Ask: []string{"Bash(touch *)"}},
			hooks:   hook.Config{hook.PreToolUse: {{Hooks: []hook.Definition{sh(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`)}}}},
			command: "touch a", asked: true, wantIn: "denied by user"},
		{name: "hook allow lifts the mode's ask",
			hooks:   hook.Config{hook.PreToolUse: {{Hooks: []hook.Definition{sh(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`)}}}},
			command: "touch a", ok: true, wantIn: "ran Bash"},
		{name: "hook allow lifts the mode's ask for every part", hooks: hookAllows,
			command: "make && touch a > out.txt", ok: true, wantIn: "ran Bash"},
		{name: "hook allow does not lift an ask rule on one part",
			layer: permission.Layer{Ask: []string{"Bash(touch *)"}}, hooks: hookAllows,
			command: "make && touch a", asked: true, wantIn: "denied by user", askWhy: `ask rule "Bash(touch *)"`},
		{name: "hook allow does not lift eval of a variable", hooks: hookAllows,
			command: `eval "$X"`, asked: true, wantIn: "denied by user", askWhy: "cannot be analysed"},
		{name: "hook allow does not lift bash -c of a variable", hooks: hookAllows,
			command: `bash -c "$X"`, asked: true, wantIn: "denied by user", askWhy: "cannot be analysed"},
		{name: "hook allow does not lift a computed program", hooks: hookAllows,
			command: `$CMD --force`, asked: true, wantIn: "denied by user", askWhy: "cannot be analysed"},
		{name: "hook allow does not lift text bash evaluates again", hooks: hookAllows,
			command: `printf -v 'a[$(id)]' x`, asked: true, wantIn: "denied by user", askWhy: "evaluates again"},
		{name: "hook allow does not lift an unparsable command", hooks: hookAllows,
			command: "echo 'unterminated", asked: true, wantIn: "denied by user", askWhy: "cannot be analysed"},
		{name: "hook allow does not lift a write to an unknown path", hooks: hookAllows,
			command: "make > $F", asked: true, wantIn: "denied by user", askWhy: "path cannot be determined"},
		{name: "hook allow does not lift a protected path write",
			layer: permission.Layer{Allow: []string{"Bash(echo *)"}}, hooks: hookAllows,
			command: "echo x > .git/hooks/pre-commit", asked: true, wantIn: "denied by user", askWhy: "protected path"},
		{name: "PreToolUse additionalContext reaches the model",
			layer:   permission.Layer{Allow: []string{"Bash(make *)"}},
			hooks:   hook.Config{hook.PreToolUse: {{Hooks: []hook.Definition{sh(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"CI runs make check too"}}'`)}}}},
			command: "make", ok: true, wantIn: "CI runs make check too"},
		{name: "miscapitalised Deny asks instead of running",
			layer:   permission.Layer{Allow: []string{"Bash(make *)"}},
			hooks:   hook.Config{hook.PreToolUse: {{Hooks: []hook.Definition{sh(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"Deny"}}'`)}}}},
			command: "make", asked: true, wantIn: "denied by user", askWhy: `"Deny" is not allow, ask or deny (values are case-sensitive)`},
		{name: "the ask rule is named in the question",
			layer:   permission.Layer{Ask: []string{"Bash(touch *)"}},
			command: "touch a", asked: true, wantIn: "denied by user", askWhy: `ask rule "Bash(touch *)"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked, why := false, ""
			e := session.NewPermissionEnforcer(session.EnforcerConfig{
				Evaluator: testEvaluator(t, dir, permission.ModeDefault, tc.layer),
				Hooks:     hookAdapter{r: hook.NewRunner(tc.hooks, dir)},
				Handler: func(_ context.Context, req session.ApprovalRequest) session.PermissionAnswer {
					asked, why = true, req.Reason
					return session.PermissionAnswer{Approval: session.ApprovalDeny, Reason: session.DeniedByUser} // the test user says no
				},
				Cwd: dir,
			})
			ctx := llm.WithToolCall(context.Background(), llm.ToolCallInfo{ID: "toolu_1", Name: "Bash"})
			res := e.Wrap([]llm.Tool{echoTool{name: "Bash"}})[0].Execute(ctx, jsonArgs("command", tc.command))
			if res.Success != tc.ok || asked != tc.asked || !strings.Contains(res.ModelContent(), tc.wantIn) {
				t.Fatalf("success=%v asked=%v result %q; want success=%v asked=%v and %q", res.Success, asked, res.ModelContent(), tc.ok, tc.asked, tc.wantIn)
			}
			if !strings.Contains(why, tc.askWhy) {
				t.Fatalf("question reason %q does not contain %q", why, tc.askWhy)
			}
		})
	}
}
