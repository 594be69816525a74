package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

func decide(b session.Behavior, binding bool) func(session.PermissionRequest, session.PermissionMode) session.PermissionDecision {
	return func(session.PermissionRequest, session.PermissionMode) session.PermissionDecision {
		return session.PermissionDecision{Behavior: b, Reason: "rule says " + string(b), Binding: binding}
	}
}

// answer is a handler standing for a user who answers a.
func answer(a session.Approval, tr *trace) session.PermissionHandler {
	return func(context.Context, session.ApprovalRequest) session.PermissionAnswer {
		tr.add("handler")
		if a == session.ApprovalDeny {
			return session.PermissionAnswer{Approval: a, Reason: session.DeniedByUser}
		}
		return session.PermissionAnswer{Approval: a}
	}
}

func preHook(out session.HookOutcome) func(session.HookInput) session.HookOutcome {
	return func(session.HookInput) session.HookOutcome { return out }
}

// execute runs one call of the wrapped tool as the agent loop would.
func execute(tool llm.Tool, id string, args string) llm.ToolResult {
	ctx := llm.WithToolCall(context.Background(), llm.ToolCallInfo{ID: id, Name: tool.Schema().Name})
	return tool.Execute(ctx, json.RawMessage(args))
}

// The pipeline order: evaluator → PreToolUse → handler (ask only) → tool → PostToolUse(Failure).
func TestPermissionEnforcer_Pipeline(t *testing.T) {
	tests := []struct {
		name      string
		decision  session.Behavior // "" = no evaluator
		binding   bool             // the decision came from a rule or safety check, not the mode
		handler   session.Approval // "" = no handler
		pre       *session.HookOutcome
		post      *session.HookOutcome // for PostToolUse and PostToolUseFailure
		toolFails bool
		toolPanic bool
		wantSteps string
		wantOK    bool
		wantText  string // prefix of the model-visible result
		wantIn    string // also somewhere in the model-visible result
		wantMsg   string // the end event's Message
		denied    bool
	}{
		{name: "allow runs the tool", decision: session.BehaviorAllow,
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash"},
		{name: "deny stops before hooks", decision: session.BehaviorDeny,
			wantSteps: "evaluate:Bash", wantText: "Permission denied for Bash: rule says deny", denied: true},
		{name: "ask then allow", decision: session.BehaviorAsk, handler: session.ApprovalAllow,
			wantSteps: "evaluate:Bash hook:PreToolUse hook:PermissionRequest handler tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash"},
		{name: "ask then deny", decision: session.BehaviorAsk, handler: session.ApprovalDeny,
			wantSteps: "evaluate:Bash hook:PreToolUse hook:PermissionRequest handler", wantText: "Permission denied for Bash: denied by user", denied: true},
		{name: "ask without handler is deny", decision: session.BehaviorAsk,
			wantSteps: "evaluate:Bash hook:PreToolUse hook:PermissionRequest", wantText: "Permission denied", denied: true},
		{name: "no evaluator means ask", handler: session.ApprovalAllow,
			wantSteps: "hook:PreToolUse hook:PermissionRequest handler tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash"},
		{name: "unknown decision is ask", decision: "maybe",
			wantSteps: "evaluate:Bash hook:PreToolUse hook:PermissionRequest", wantText: "Permission denied", denied: true},
		{name: "hook exit 2 blocks", decision: session.BehaviorAllow, pre: &session.HookOutcome{Blocked: true, Reason: "no rm"},
			wantSteps: "evaluate:Bash hook:PreToolUse", wantText: "Blocked by hook: no rm", denied: true},
		{name: "hook permissionDecision deny blocks", decision: session.BehaviorAllow,
			pre:       &session.HookOutcome{PermissionDecision: session.BehaviorDeny, Reason: "policy"},
			wantSteps: "evaluate:Bash hook:PreToolUse", wantText: "Blocked by hook: policy", denied: true},
		{name: "hook allow skips the question the mode asks", decision: session.BehaviorAsk, handler: session.ApprovalDeny,
			pre:       &session.HookOutcome{PermissionDecision: session.BehaviorAllow},
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash"},
		// Claude Code: a hook allow skips the prompt, but ask rules still apply.
		{name: "hook allow does not lift an ask rule", decision: session.BehaviorAsk, binding: true, handler: session.ApprovalDeny,
			pre:       &session.HookOutcome{PermissionDecision: session.BehaviorAllow},
			wantSteps: "evaluate:Bash hook:PreToolUse hook:PermissionRequest handler", wantText: "Permission denied for Bash: denied by user", denied: true},
		{name: "hook allow under an ask rule still asks, approved", decision: session.BehaviorAsk, binding: true, handler: session.ApprovalAllow,
			pre:       &session.HookOutcome{PermissionDecision: session.BehaviorAllow},
			wantSteps: "evaluate:Bash hook:PreToolUse hook:PermissionRequest handler tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash"},
		{name: "hook allow under an ask rule without handler is deny", decision: session.BehaviorAsk, binding: true,
			pre:       &session.HookOutcome{PermissionDecision: session.BehaviorAllow},
			wantSteps: "evaluate:Bash hook:PreToolUse hook:PermissionRequest", wantText: "Permission denied for Bash: approval required", wantIn: "rule says ask", denied: true},
		{name: "binding on an allow changes nothing", decision: session.BehaviorAllow, binding: true,
			pre:       &session.HookOutcome{PermissionDecision: session.BehaviorAllow},
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash"},
		{name: "PreToolUse additionalContext reaches the model", decision: session.BehaviorAllow,
			pre:       &session.HookOutcome{AdditionalContext: "the repo is frozen on Fridays"},
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash",
			wantIn: "\n\nthe repo is frozen on Fridays"},
		{name: "PreToolUse additionalContext accompanies a block", decision: session.BehaviorAllow,
			pre:       &session.HookOutcome{Blocked: true, Reason: "no rm", AdditionalContext: "use trash instead"},
			wantSteps: "evaluate:Bash hook:PreToolUse", wantText: "Blocked by hook: no rm", wantIn: "use trash instead", denied: true},
		{name: "pre and post context both reach the model", decision: session.BehaviorAllow,
			pre:       &session.HookOutcome{AdditionalContext: "pre ctx"},
			post:      &session.HookOutcome{AdditionalContext: "post ctx"},
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash", wantIn: "post ctx\n\npre ctx"},
		{name: "systemMessages reach the end event, not the model", decision: session.BehaviorAllow,
			pre:       &session.HookOutcome{SystemMessage: "checked by guard"},
			post:      &session.HookOutcome{SystemMessage: "formatted a.go"},
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash",
			wantMsg: "checked by guard\nformatted a.go"},
		{name: "systemMessage of a blocking hook reaches the end event", decision: session.BehaviorAllow,
			pre:       &session.HookOutcome{Blocked: true, Reason: "no", SystemMessage: "guard blocked rm"},
			wantSteps: "evaluate:Bash hook:PreToolUse", wantText: "Blocked by hook: no", wantMsg: "guard blocked rm", denied: true},
		{name: "PostToolUseFailure feedback reaches the model", decision: session.BehaviorAllow, toolFails: true,
			post:      &session.HookOutcome{Blocked: true, Reason: "see the CI log"},
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUseFailure", wantText: "exit status 1",
			wantIn: "PostToolUseFailure hook feedback: see the CI log"},
		{name: "hook ask forces the question", decision: session.BehaviorAllow, handler: session.ApprovalAllow,
			pre:       &session.HookOutcome{PermissionDecision: session.BehaviorAsk},
			wantSteps: "evaluate:Bash hook:PreToolUse hook:PermissionRequest handler tool:Bash hook:PostToolUse", wantOK: true, wantText: "ran Bash"},
		{name: "tool failure fires PostToolUseFailure", decision: session.BehaviorAllow, toolFails: true,
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUseFailure", wantText: "exit status 1"},
		{name: "tool panic is a failure result", decision: session.BehaviorAllow, toolPanic: true,
			wantSteps: "evaluate:Bash hook:PreToolUse tool:Bash hook:PostToolUseFailure", wantText: "Error: tool Bash failed unexpectedly"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &trace{}
			tool := &funcTool{name: "Bash", tr: tr}
			if tc.toolFails {
				tool.fn = func(context.Context, json.RawMessage) llm.ToolResult { return llm.ToolFailure("exit status 1") }
			}
			if tc.toolPanic {
				tool.fn = func(context.Context, json.RawMessage) llm.ToolResult { panic("kaboom") }
			}
			hooks := &fakeHooks{tr: tr}
			if tc.pre != nil {
				hooks.on(session.HookPreToolUse, preHook(*tc.pre))
			}
			if tc.post != nil {
				hooks.on(session.HookPostToolUse, preHook(*tc.post)).on(session.HookPostToolUseFailure, preHook(*tc.post))
			}
			cfg := session.EnforcerConfig{Hooks: hooks, SessionID: "s1", Cwd: "/w"}
			if tc.decision != "" {
				cfg.Evaluator = &fakeEvaluator{tr: tr, fn: decide(tc.decision, tc.binding)}
			}
			if tc.handler != "" {
				cfg.Handler = answer(tc.handler, tr)
			}
			var events []session.ToolExecutionEvent
			cfg.Report = func(e session.ToolExecutionEvent) { events = append(events, e) }
			e := session.NewPermissionEnforcer(cfg)
			res := execute(e.Wrap([]llm.Tool{tool})[0], "toolu_1", `{"command":"ls"}`)
			if got := strings.Join(tr.get(), " "); got != tc.wantSteps {
				t.Fatalf("steps %q, want %q", got, tc.wantSteps)
			}
			if res.Success != tc.wantOK || !strings.HasPrefix(res.ModelContent(), tc.wantText) || !strings.Contains(res.ModelContent(), tc.wantIn) {
				t.Fatalf("result %+v, want success=%v and text %q…%q", res, tc.wantOK, tc.wantText, tc.wantIn)
			}
			for _, m := range strings.Split(tc.wantMsg, "\n") {
				if m != "" && strings.Contains(res.ModelContent(), m) {
					t.Fatalf("systemMessage %q reached the model: %q", m, res.ModelContent())
				}
			}
			if len(events) != 2 || events[0].Type != session.ToolStart || events[1].Type != session.ToolEnd ||
				events[1].Success != tc.wantOK || events[1].Denied != tc.denied || events[1].ToolUseID != "toolu_1" {
				t.Fatalf("tool events %+v", events)
			}
			if events[0].Message != "" || events[1].Message != tc.wantMsg {
				t.Fatalf("event messages %q / %q, want the end event to say %q", events[0].Message, events[1].Message, tc.wantMsg)
			}
			if d := e.Denials(); (len(d) == 1) != tc.denied {
				t.Fatalf("denials %+v (denied=%v)", d, tc.denied)
			}
		})
	}
}

// PermissionRequest hooks answer where the user would be asked (Claude Code), headless too.
func TestPermissionEnforcer_PermissionRequestHooks(t *testing.T) {
	tests := []struct {
		name     string
		decision session.Behavior // the evaluator's answer for every input
		denyRm   bool             // the evaluator denies inputs containing "rm"
		askRule  bool             // the evaluator's ask for inputs containing "push" is binding
		handler  session.Approval
		hook     session.HookOutcome
		want     string // the command that ran, or ""
		wantText string
		steps    string
		stopped  bool
	}{
		{name: "allow answers a headless ask", decision: session.BehaviorAsk, hook: session.HookOutcome{PermissionDecision: session.BehaviorAllow},
			want: "ls", steps: "hook:PreToolUse hook:PermissionRequest tool:Bash hook:PostToolUse"},
		{name: "allow skips the handler", decision: session.BehaviorAsk, handler: session.ApprovalDeny,
			hook: session.HookOutcome{PermissionDecision: session.BehaviorAllow}, want: "ls",
			steps: "hook:PreToolUse hook:PermissionRequest tool:Bash hook:PostToolUse"},
		{name: "deny with the hook's message", decision: session.BehaviorAsk, handler: session.ApprovalAllow,
			hook:     session.HookOutcome{PermissionDecision: session.BehaviorDeny, Reason: "not on Fridays"},
			wantText: "Permission denied for Bash: denied by PermissionRequest hook: not on Fridays", steps: "hook:PreToolUse hook:PermissionRequest"},
		{name: "deny with interrupt stops the agent", decision: session.BehaviorAsk,
			hook:     session.HookOutcome{PermissionDecision: session.BehaviorDeny, Interrupt: true},
			wantText: "Permission denied for Bash: denied by PermissionRequest hook: Permission denied by hook", steps: "hook:PreToolUse hook:PermissionRequest", stopped: true},
		{name: "updatedInput runs the new input", decision: session.BehaviorAsk,
			hook: session.HookOutcome{PermissionDecision: session.BehaviorAllow, UpdatedInput: json.RawMessage(`{"command":"ls -la"}`)},
			want: "ls -la", steps: "hook:PreToolUse hook:PermissionRequest tool:Bash hook:PostToolUse"},
		{name: "updatedInput is checked against deny rules", decision: session.BehaviorAsk, denyRm: true,
			hook:     session.HookOutcome{PermissionDecision: session.BehaviorAllow, UpdatedInput: json.RawMessage(`{"command":"rm -rf /"}`)},
			wantText: "Permission denied for Bash: rule says deny", steps: "hook:PreToolUse hook:PermissionRequest"},
		{name: "updatedInput under an ask rule still asks, about the new input", decision: session.BehaviorAsk, askRule: true, handler: session.ApprovalAllow,
			hook: session.HookOutcome{PermissionDecision: session.BehaviorAllow, UpdatedInput: json.RawMessage(`{"command":"git push"}`)},
			want: "git push", steps: "hook:PreToolUse hook:PermissionRequest handler tool:Bash hook:PostToolUse"},
		{name: "no decision goes to the handler", decision: session.BehaviorAsk, handler: session.ApprovalAllow,
			want: "ls", steps: "hook:PreToolUse hook:PermissionRequest handler tool:Bash hook:PostToolUse"},
		{name: "not fired when nothing is asked", decision: session.BehaviorAllow,
			hook: session.HookOutcome{PermissionDecision: session.BehaviorDeny}, want: "ls", steps: "hook:PreToolUse tool:Bash hook:PostToolUse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &trace{}
			var ran string
			tool := &funcTool{name: "Bash", tr: tr, fn: func(_ context.Context, in json.RawMessage) llm.ToolResult {
				var a struct{ Command string }
				_ = json.Unmarshal(in, &a)
				ran = a.Command
				return llm.ToolSuccess("ok")
			}}
			var seen session.HookInput
			hooks := (&fakeHooks{tr: tr}).on(session.HookPermissionRequest, func(in session.HookInput) session.HookOutcome {
				seen = in
				return tc.hook
			})
			ev := &fakeEvaluator{fn: func(r session.PermissionRequest, _ session.PermissionMode) session.PermissionDecision {
				switch {
				case tc.denyRm && strings.Contains(string(r.Input), "rm"):
					return session.PermissionDecision{Behavior: session.BehaviorDeny, Reason: "rule says deny"}
				case tc.askRule && strings.Contains(string(r.Input), "push"):
					return session.PermissionDecision{Behavior: session.BehaviorAsk, Reason: "ask rule", Binding: true}
				}
				return session.PermissionDecision{Behavior: tc.decision, Reason: "mode asks", SessionRule: "Bash(ls:*)"}
			}}
			stopped := false
			cfg := session.EnforcerConfig{Hooks: hooks, Evaluator: ev, Cwd: "/w", Interrupt: func() { stopped = true }}
			if tc.handler != "" {
				cfg.Handler = answer(tc.handler, tr)
			}
			res := execute(session.NewPermissionEnforcer(cfg).Wrap([]llm.Tool{tool})[0], "toolu_1", `{"command":"ls"}`)
			if got := strings.Join(tr.get(), " "); got != tc.steps {
				t.Fatalf("steps %q, want %q", got, tc.steps)
			}
			if ran != tc.want || (tc.wantText != "" && !strings.HasPrefix(res.ModelContent(), tc.wantText)) || stopped != tc.stopped {
				t.Fatalf("ran %q, result %q, stopped %v", ran, res.ModelContent(), stopped)
			}
			if strings.Contains(tc.steps, "PermissionRequest") && (seen.ToolName != "Bash" || seen.ToolUseID != "toolu_1" ||
				string(seen.ToolInput) != `{"command":"ls"}` || seen.PermissionSuggestion != "Bash(ls:*)") {
				t.Fatalf("hook input %+v", seen)
			}
		})
	}
}

func TestPermissionEnforcer_HookInputs(t *testing.T) {
	hooks := &fakeHooks{}
	tool := &funcTool{name: "Edit"}
	e := session.NewPermissionEnforcer(session.EnforcerConfig{Evaluator: allowAll(), Hooks: hooks, SessionID: "s1",
		TranscriptPath: "/logs/s1.jsonl", Cwd: "/w", Mode: func() session.PermissionMode { return "acceptEdits" }})
	execute(e.Wrap([]llm.Tool{tool})[0], "toolu_9", `{"file_path":"/w/a.go"}`)
	pre, post := hooks.of(session.HookPreToolUse), hooks.of(session.HookPostToolUse)
	if len(pre) != 1 || len(post) != 1 {
		t.Fatalf("pre %d post %d", len(pre), len(post))
	}
	for _, in := range []session.HookInput{pre[0], post[0]} {
		if in.SessionID != "s1" || in.TranscriptPath != "/logs/s1.jsonl" || in.Cwd != "/w" || in.PermissionMode != "acceptEdits" ||
			in.ToolName != "Edit" || in.ToolUseID != "toolu_9" || string(in.ToolInput) != `{"file_path":"/w/a.go"}` {
			t.Fatalf("hook input %+v", in)
		}
	}
	var resp llm.ToolResult
	if err := json.Unmarshal(post[0].ToolResponse, &resp); err != nil || !resp.Success {
		t.Fatalf("tool_response %s", post[0].ToolResponse)
	}
}

// A hook's updatedInput is what runs — and it is evaluated again, so it cannot smuggle a
// denied call through.
func TestPermissionEnforcer_UpdatedInputIsReEvaluated(t *testing.T) {
	for _, tc := range []struct {
		updated string
		wantRun bool
	}{
		{updated: `{"command":"ls -la"}`, wantRun: true},
		{updated: `{"command":"rm -rf /"}`, wantRun: false},
	} {
		tool := &funcTool{name: "Bash"}
		eval := &fakeEvaluator{fn: func(req session.PermissionRequest, _ session.PermissionMode) session.PermissionDecision {
			if strings.Contains(string(req.Input), "rm ") {
				return session.PermissionDecision{Behavior: session.BehaviorDeny, Reason: "Bash(rm *)"}
			}
			return session.PermissionDecision{Behavior: session.BehaviorAllow}
		}}
		hooks := (&fakeHooks{}).on(session.HookPreToolUse, preHook(session.HookOutcome{UpdatedInput: json.RawMessage(tc.updated)}))
		e := session.NewPermissionEnforcer(session.EnforcerConfig{Evaluator: eval, Hooks: hooks})
		res := execute(e.Wrap([]llm.Tool{tool})[0], "t1", `{"command":"ls"}`)
		if (tool.count() == 1) != tc.wantRun || res.Success != tc.wantRun {
			t.Fatalf("updated %s: ran %d times, result %+v", tc.updated, tool.count(), res)
		}
		if tc.wantRun && string(tool.calls[0]) != tc.updated {
			t.Fatalf("tool received %s, want the updated input", tool.calls[0])
		}
	}
}

// "Allow for the session" stores the rule the evaluator suggested (not the tool), every
// later evaluation sees it, and a call the rule does not cover is asked again.
func TestPermissionEnforcer_SessionRules(t *testing.T) {
	tr := &trace{}
	tool := &funcTool{name: "Bash"}
	var seen [][]string // SessionAllow of each evaluation
	var asked []session.ApprovalRequest
	eval := &fakeEvaluator{fn: func(req session.PermissionRequest, _ session.PermissionMode) session.PermissionDecision {
		seen = append(seen, req.SessionAllow)
		cmd := string(req.Input)
		switch {
		case strings.Contains(cmd, "sudo"):
			return session.PermissionDecision{Behavior: session.BehaviorDeny, Reason: "deny rule"}
		case strings.Contains(cmd, "make") && slices.Contains(req.SessionAllow, "Bash(make:*)"):
			return session.PermissionDecision{Behavior: session.BehaviorAllow, Reason: "session rule"}
		case strings.Contains(cmd, "make"):
			return session.PermissionDecision{Behavior: session.BehaviorAsk, SessionRule: "Bash(make:*)"}
		case strings.Contains(cmd, "hooked"):
			return session.PermissionDecision{Behavior: session.BehaviorAsk} // nothing to scope
		}
		return session.PermissionDecision{Behavior: session.BehaviorAsk, SessionRule: "Bash(ls:*)"}
	}}
	handler := func(_ context.Context, req session.ApprovalRequest) session.PermissionAnswer {
		tr.add("handler")
		asked = append(asked, req)
		return session.PermissionAnswer{Approval: session.ApprovalAllowSession}
	}
	e := session.NewPermissionEnforcer(session.EnforcerConfig{Evaluator: eval, Handler: handler})
	wrapped := e.Wrap([]llm.Tool{tool})[0]
	for i := range 3 {
		if res := execute(wrapped, "t", `{"command":"make"}`); !res.Success {
			t.Fatalf("call %d: %+v", i, res)
		}
	}
	if n := len(tr.get()); n != 1 || asked[0].SessionRule != "Bash(make:*)" {
		t.Fatalf("handler asked %d times (%+v), want once, offered Bash(make:*)", n, asked)
	}
	if got := e.SessionRules(); !slices.Equal(got, []string{"Bash(make:*)"}) {
		t.Fatalf("session rules %v, want [Bash(make:*)] (the rule, not the tool)", got)
	}
	if !slices.Equal(seen[len(seen)-1], []string{"Bash(make:*)"}) {
		t.Fatalf("the evaluator saw SessionAllow %v", seen[len(seen)-1])
	}
	if res := execute(wrapped, "t", `{"command":"ls"}`); !res.Success || len(tr.get()) != 2 {
		t.Fatalf("a command the rule does not cover was not asked: %d questions", len(tr.get()))
	}
	if res := execute(wrapped, "t", `{"command":"sudo make"}`); res.Success {
		t.Fatal("a deny rule was overridden by a session approval")
	}
	// An ask with no rule to offer: "allow for the session" allows this call only.
	for range 2 {
		execute(wrapped, "t", `{"command":"hooked"}`)
	}
	if n := len(tr.get()); n != 4 {
		t.Fatalf("unscoped ask: %d questions in all, want 4", n)
	}
	if got := e.SessionRules(); len(got) != 2 {
		t.Fatalf("session rules %v, want make and ls only", got)
	}
	e.ClearSessionRules()
	if got := e.SessionRules(); len(got) != 0 {
		t.Fatalf("after clear: rules %v", got)
	}
	execute(wrapped, "t", `{"command":"make"}`)
	if n := len(tr.get()); n != 5 {
		t.Fatalf("after clear: handler asked %d times, want a new question", n)
	}
}

// A deny answer may carry the user's words for the model, and a reason replacing
// "denied by user" (a timeout).
func TestPermissionEnforcer_DenyAnswerReachesModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer session.PermissionAnswer
		want   string
	}{
		{"a user's", session.PermissionAnswer{Approval: session.ApprovalDeny, Reason: session.DeniedByUser}, "Permission denied for Bash: denied by user"},
		// A denial that names no one never claims a user answered.
		{"plain", session.PermissionAnswer{Approval: session.ApprovalDeny}, "Permission denied for Bash: denied: the permission handler did not approve the call"},
		{"message", session.PermissionAnswer{Approval: session.ApprovalDeny, Message: "use make test instead"},
			"Permission denied for Bash: denied by user: use make test instead"},
		{"reason", session.PermissionAnswer{Approval: session.ApprovalDeny, Reason: "no answer within 1s"},
			"Permission denied for Bash: no answer within 1s"},
		{"unknown approval denies", session.PermissionAnswer{Approval: "maybe"}, "Permission denied for Bash: denied: the permission handler did not approve the call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := &funcTool{name: "Bash"}
			e := session.NewPermissionEnforcer(session.EnforcerConfig{
				Evaluator: &fakeEvaluator{fn: decide(session.BehaviorAsk, false)},
				Handler:   func(context.Context, session.ApprovalRequest) session.PermissionAnswer { return tc.answer },
			})
			res := execute(e.Wrap([]llm.Tool{tool})[0], "t", `{"command":"x"}`)
			if res.Success || res.ModelContent() != tc.want || tool.count() != 0 {
				t.Fatalf("result %q (ran %d), want %q", res.ModelContent(), tool.count(), tc.want)
			}
		})
	}
}

// Issue 10 §5: the result is cut to the limit in characters (not bytes), the note states
// the characters really removed and names the file holding the whole text.
func TestPermissionEnforcer_TruncatesResults(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
	}{
		{"ascii", strings.Repeat("x", 100_000)},
		{"multibyte", strings.Repeat("é", 100_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			big := "HEAD" + tc.body + "TAIL"
			total := utf8.RuneCountInString(big)
			dir := filepath.Join(t.TempDir(), "tool-output")
			tool := &funcTool{name: "Read", fn: func(context.Context, json.RawMessage) llm.ToolResult { return llm.ToolSuccess(big) }}
			var end session.ToolExecutionEvent
			e := session.NewPermissionEnforcer(session.EnforcerConfig{Evaluator: allowAll(), MaxResultChars: 1000, OutputDir: dir,
				Report: func(ev session.ToolExecutionEvent) { end = ev }})
			res := execute(e.Wrap([]llm.Tool{tool})[0], "toolu_1", `{}`)
			if n := utf8.RuneCountInString(res.Output); n > 1000 || !strings.HasPrefix(res.Output, "HEAD") || !strings.HasSuffix(res.Output, "TAIL") {
				t.Fatalf("truncated output: %d characters, metadata %v", n, res.Metadata)
			}
			m := regexp.MustCompile(`\[(\d+) characters truncated\. The full output is saved in (\S+); Read it`).FindStringSubmatch(res.Output)
			if m == nil {
				t.Fatalf("no truncation note naming a file in %q", res.Output)
			}
			head, rest, _ := strings.Cut(res.Output, "\n\n... [")
			_, tail, _ := strings.Cut(rest, "] ...\n\n")
			cut, _ := strconv.Atoi(m[1])
			if kept := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail); kept+cut != total {
				t.Fatalf("kept %d characters and reported %d cut; the result had %d", kept, cut, total)
			}
			if res.Metadata["truncated"] != true || res.Metadata["truncatedChars"] != cut || res.Metadata["fullOutputPath"] != m[2] {
				t.Fatalf("metadata %v", res.Metadata)
			}
			if saved, err := os.ReadFile(m[2]); err != nil || string(saved) != big || filepath.Dir(m[2]) != dir {
				t.Fatalf("saved file %s: %d bytes, err %v", m[2], len(saved), err)
			}
			if len(end.ToolResultData) > 4*1000+300 {
				t.Fatalf("toolResultData not truncated: %d bytes", len(end.ToolResultData))
			}
		})
	}
}

// A result that fits in characters is left alone, whatever its size in bytes.
func TestPermissionEnforcer_ResultThatFitsInCharactersIsKept(t *testing.T) {
	body := strings.Repeat("é", 900) // 1,800 bytes
	tool := &funcTool{name: "Read", fn: func(context.Context, json.RawMessage) llm.ToolResult { return llm.ToolSuccess(body) }}
	dir := t.TempDir()
	e := session.NewPermissionEnforcer(session.EnforcerConfig{Evaluator: allowAll(), MaxResultChars: 1000, OutputDir: dir})
	if res := execute(e.Wrap([]llm.Tool{tool})[0], "t", `{}`); res.Output != body || res.Metadata["truncated"] != nil {
		t.Fatalf("result cut: %d bytes, metadata %v", len(res.Output), res.Metadata)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files written: %v", entries)
	}
}

func TestPermissionEnforcer_PostHookFeedbackReachesModel(t *testing.T) {
	tool := &funcTool{name: "Write"}
	hooks := (&fakeHooks{}).on(session.HookPostToolUse, preHook(session.HookOutcome{Blocked: true, Reason: "lint failed: a.go:3"}))
	e := session.NewPermissionEnforcer(session.EnforcerConfig{Evaluator: allowAll(), Hooks: hooks})
	res := execute(e.Wrap([]llm.Tool{tool})[0], "t", `{}`)
	if !res.Success || !strings.Contains(res.Output, "PostToolUse hook feedback: lint failed: a.go:3") {
		t.Fatalf("result %+v", res)
	}
}

// Every tool call reaches OnToolExecution exactly once as start and once as end — wrapped
// tools through the enforcer, unregistered ones through the replay-event bridge.
func TestSession_ToolEventsReportedOnce(t *testing.T) {
	p := newProvider(t, `
turns:
  - toolCalls:
      - {id: call_0, name: Echo, input: {x: 1}}
      - {id: call_1, name: Nope, input: {y: 2}}
  - text: done
`)
	events := &toolEvents{}
	s := newSession(t, session.Config{Provider: p, Tools: []llm.Tool{&funcTool{name: "Echo"}}, Evaluator: allowAll(),
		Callbacks: session.Callbacks{OnToolExecution: events.add}})
	mustRun(t, s, "go")
	count := map[string]int{}
	var nopeEnd session.ToolExecutionEvent
	for _, ev := range events.get() {
		count[ev.ToolName+"/"+string(ev.Type)]++
		if ev.ToolName == "Nope" && ev.Type == session.ToolEnd {
			nopeEnd = ev
		}
	}
	if count["Echo/start"] != 1 || count["Echo/end"] != 1 || count["Nope/start"] != 1 || count["Nope/end"] != 1 || len(count) != 4 {
		t.Fatalf("event counts %v", count)
	}
	if nopeEnd.Success || nopeEnd.ErrorCode != "unknown_tool" || !strings.Contains(nopeEnd.Reason, "not registered") ||
		nopeEnd.ToolUseID != "call_1" || string(nopeEnd.ToolArgs) != `{"y":2}` {
		t.Fatalf("unknown tool end %+v", nopeEnd)
	}
}

// Denials are listed in Claude Code's permission_denials shape.
func TestSession_PermissionDenialsListed(t *testing.T) {
	p := newProvider(t, `
turns:
  - toolCalls:
      - {id: call_0, name: Read, input: {file_path: a.go}}
      - {id: call_1, name: Bash, input: {command: "curl x"}}
  - text: done
`)
	eval := &fakeEvaluator{fn: func(req session.PermissionRequest, _ session.PermissionMode) session.PermissionDecision {
		if req.ToolName == "Bash" {
			return session.PermissionDecision{Behavior: session.BehaviorAsk, Reason: "Bash needs approval"}
		}
		return session.PermissionDecision{Behavior: session.BehaviorAllow}
	}}
	s := newSession(t, session.Config{Provider: p, Evaluator: eval,
		Tools: []llm.Tool{&funcTool{name: "Read"}, &funcTool{name: "Bash"}}})
	mustRun(t, s, "go")
	b, _ := json.Marshal(s.PermissionDenials())
	if want := `[{"tool_name":"Bash","tool_use_id":"call_1","tool_input":{"command":"curl x"}}]`; string(b) != want {
		t.Fatalf("permission_denials %s, want %s", b, want)
	}
}
