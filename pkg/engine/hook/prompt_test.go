package hook

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Verdict
		err  bool
	}{
		{"ok", `{"ok": true}`, Verdict{OK: true}, false},
		{"not ok with reason", `{"ok": false, "reason": "no rm"}`, Verdict{Reason: "no rm"}, false},
		{"impossible", `{"ok":false,"impossible":true,"reason":"x"}`, Verdict{Reason: "x", Impossible: true}, false},
		{"fenced", "```json\n{\"ok\": false, \"reason\": \"r\"}\n```", Verdict{Reason: "r"}, false},
		{"after prose", "I checked the tests.\n{\"ok\": true, \"reason\": \"all {passed}\"}", Verdict{OK: true, Reason: "all {passed}"}, false},
		{"unknown keys ignored", `{"ok": true, "confidence": 0.9}`, Verdict{OK: true}, false},
		{"ok as a string is no verdict", `{"ok": "false"}`, Verdict{}, true},
		{"ok null is no verdict", `{"ok": null}`, Verdict{}, true},
		{"missing ok", `{"reason": "r"}`, Verdict{}, true},
		{"legacy decision is no verdict", `{"decision": "block", "reason": "r"}`, Verdict{}, true},
		{"reason not a string", `{"ok": false, "reason": 3}`, Verdict{}, true},
		{"prose only", "Yes, that is fine.", Verdict{}, true},
		{"text after the object", `{"ok": true} done`, Verdict{}, true},
		{"empty", "", Verdict{}, true},
		{"two objects: the last answers", `{"ok": true} {"ok": false, "reason": "second"}`, Verdict{Reason: "second"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseVerdict(tc.text)
			if tc.err {
				if !errors.Is(err, ErrInvalidVerdict) && !errors.Is(err, ErrInvalidOutput) {
					t.Fatalf("want an invalid-verdict error, got %+v, %v", v, err)
				}
				return
			}
			if err != nil || v != tc.want {
				t.Fatalf("got %+v, %v; want %+v", v, err, tc.want)
			}
		})
	}
}

func TestExpandPrompt(t *testing.T) {
	in := []byte(`{"tool_name":"Bash"}`)
	if got := ExpandPrompt("Is this safe? $ARGUMENTS", in); got != `Is this safe? {"tool_name":"Bash"}` {
		t.Fatalf("got %q", got)
	}
	if got := ExpandPrompt("Is this safe?", in); got != "Is this safe?\n\nARGUMENTS: {\"tool_name\":\"Bash\"}" {
		t.Fatalf("got %q", got)
	}
}

// fakeModel answers prompt hooks and records what it was asked.
type fakeModel struct {
	mu     sync.Mutex
	answer string
	err    error
	delay  time.Duration
	got    []ModelRequest
}

func (m *fakeModel) ask(ctx context.Context, req ModelRequest) (string, error) {
	m.mu.Lock()
	m.got = append(m.got, req)
	m.mu.Unlock()
	if m.delay > 0 {
		select {
		case <-time.After(m.delay):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return m.answer, m.err
}

func promptRunner(ev Event, m *fakeModel, h Definition) *Runner {
	return NewRunner(config(ev, group("", h)), "/p", WithExecutor("prompt", PromptExecutor{Ask: m.ask}))
}

func TestPromptHookOutcomes(t *testing.T) {
	promptHook := Definition{Type: "prompt", Prompt: "Block rm: $ARGUMENTS", Model: "small"}
	tests := []struct {
		name       string
		in         Input
		hook       Definition
		answer     string
		err        error
		blocked    bool
		decision   string
		continues  bool
		permission string
		feedback   bool
		errIs      error
	}{
		{name: "PreToolUse not ok denies and ends the turn", in: bashCall("rm -rf x"), hook: promptHook,
			answer: `{"ok": false, "reason": "no rm"}`, blocked: true, decision: "deny"},
		{name: "continueOnBlock keeps the turn", in: bashCall("rm -rf x"),
			hook:   Definition{Type: "prompt", Prompt: "p", ContinueOnBlock: true},
			answer: `{"ok": false, "reason": "no rm"}`, blocked: true, decision: "deny", continues: true},
		{name: "PreToolUse ok has no opinion", in: bashCall("ls"), hook: promptHook,
			answer: `{"ok": true, "reason": "fine"}`, continues: true},
		{name: "unparseable answer is a visible non-blocking error", in: bashCall("ls"), hook: promptHook,
			answer: "sure, go ahead", continues: true, errIs: ErrInvalidVerdict},
		{name: "model failure is a non-blocking error", in: bashCall("ls"), hook: promptHook,
			err: errors.New("overloaded"), continues: true, errIs: ErrHookFailed},
		{name: "Stop not ok keeps the agent going", in: Input{Event: Stop, LastAssistantMessage: "done?"}, hook: promptHook,
			answer: `{"ok": false, "reason": "tests not run"}`, blocked: true, continues: true},
		{name: "Stop impossible lets it stop", in: Input{Event: Stop}, hook: promptHook,
			answer: `{"ok": false, "impossible": true, "reason": "no network"}`, continues: true},
		{name: "UserPromptSubmit not ok blocks the prompt", in: Input{Event: UserPromptSubmit, Prompt: "x"}, hook: promptHook,
			answer: `{"ok": false, "reason": "off topic"}`, blocked: true},
		{name: "PermissionRequest not ok denies", in: Input{Event: PermissionRequest, ToolName: "Bash"}, hook: promptHook,
			answer: `{"ok": false, "reason": "no rm"}`, blocked: true, continues: true, permission: "deny"},
		{name: "PostToolUse not ok feeds the model", in: Input{Event: PostToolUse, ToolName: "Bash"}, hook: promptHook,
			answer: `{"ok": false, "reason": "check the output"}`, feedback: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &fakeModel{answer: tc.answer, err: tc.err}
			res := promptRunner(tc.in.Event, m, tc.hook).Run(context.Background(), tc.in)
			if res.Blocked != tc.blocked || res.PermissionDecision != tc.decision || res.Continue != tc.continues {
				t.Fatalf("blocked=%v decision=%q continue=%v; want %v %q %v (errors %v)", res.Blocked,
					res.PermissionDecision, res.Continue, tc.blocked, tc.decision, tc.continues, res.Errors)
			}
			if tc.blocked && !strings.Contains(res.Reason, "[") {
				t.Fatalf("reason %q does not name the hook's prompt", res.Reason)
			}
			if tc.blocked && !tc.feedback && !strings.Contains(res.Reason, "no rm") && !strings.Contains(res.Reason, "tests not run") &&
				!strings.Contains(res.Reason, "off topic") {
				t.Fatalf("reason %q lost the model's reason", res.Reason)
			}
			if (res.Permission != nil) != (tc.permission != "") || (res.Permission != nil && res.Permission.Behavior != tc.permission) {
				t.Fatalf("permission %+v, want %q", res.Permission, tc.permission)
			}
			if tc.feedback != (len(res.ModelFeedback) == 1) {
				t.Fatalf("model feedback %q", res.ModelFeedback)
			}
			if tc.errIs != nil && (len(res.Errors) != 1 || !errors.Is(res.Errors[0], tc.errIs)) {
				t.Fatalf("errors %v, want %v", res.Errors, tc.errIs)
			}
			if tc.errIs == nil && len(res.Errors) > 0 {
				t.Fatalf("unexpected errors %v", res.Errors)
			}
			if len(m.got) != 1 {
				t.Fatalf("model asked %d times", len(m.got))
			}
			req := m.got[0]
			if !strings.Contains(req.Prompt, `"hook_event_name":"`+string(tc.in.Event)+`"`) || strings.Contains(req.Prompt, "$ARGUMENTS") {
				t.Fatalf("prompt does not carry the input: %q", req.Prompt)
			}
			if tc.hook.Model != req.Model || req.Event != tc.in.Event || !strings.Contains(req.System, `"ok"`) {
				t.Fatalf("request %+v", req)
			}
		})
	}
}

func TestPromptHookTimeout(t *testing.T) {
	m := &fakeModel{answer: `{"ok": false}`, delay: 5 * time.Second}
	h := Definition{Type: "prompt", Prompt: "p", Timeout: 0.05}
	start := time.Now()
	res := promptRunner(PreToolUse, m, h).Run(context.Background(), bashCall("ls"))
	if time.Since(start) > 2*time.Second || res.Blocked || len(res.Errors) != 1 || !errors.Is(res.Errors[0], ErrTimeout) {
		t.Fatalf("after %v: blocked=%v errors=%v", time.Since(start), res.Blocked, res.Errors)
	}
	if d := (Definition{Type: "prompt"}).timeout(); d != DefaultPromptTimeout {
		t.Fatalf("prompt default timeout %v", d)
	}
	if d := (Definition{Type: "agent"}).timeout(); d != DefaultTimeout {
		t.Fatalf("agent default timeout %v", d)
	}
}

func TestAgentHook(t *testing.T) {
	var got AgentRequest
	run := func(answer string, err error) Result {
		x := AgentExecutor{Run: func(_ context.Context, req AgentRequest) (string, error) { got = req; return answer, err }}
		r := NewRunner(config(Stop, group("", Definition{Type: "agent", Prompt: "Verify tests pass: $ARGUMENTS"})), "/p", WithExecutor("agent", x))
		return r.Run(context.Background(), Input{Event: Stop, TranscriptPath: "/t.jsonl", Response: "done"})
	}
	res := run("I ran the tests.\n{\"ok\": false, \"reason\": \"2 failures\"}", nil)
	if !res.Blocked || !strings.Contains(res.Reason, "Agent hook condition was not met: 2 failures") || !res.Continue {
		t.Fatalf("%+v", res)
	}
	if got.MaxTurns != DefaultAgentMaxTurns || !strings.Contains(got.System, "/t.jsonl") || !strings.Contains(got.Prompt, `"response":"done"`) {
		t.Fatalf("request %+v", got)
	}
	if res := run("all good", nil); res.Blocked || len(res.Errors) != 1 || !errors.Is(res.Errors[0], ErrInvalidVerdict) {
		t.Fatalf("no verdict: %+v", res)
	}
	if res := run("", errors.New("worker missing")); res.Blocked || len(res.Errors) != 1 || !errors.Is(res.Errors[0], ErrHookFailed) {
		t.Fatalf("failed run: %+v", res)
	}
}

func TestPermissionRequestOutput(t *testing.T) {
	tests := []struct {
		name    string
		stdouts []string
		exit    int
		want    *PermissionDecision
	}{
		{"allow with updated input", []string{`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`},
			0, &PermissionDecision{Behavior: "allow", UpdatedInput: json.RawMessage(`{"command":"ls"}`)}},
		{"deny with message and interrupt", []string{`{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no","interrupt":true}}}`},
			0, &PermissionDecision{Behavior: "deny", Message: "no", Interrupt: true}},
		{"deny beats allow", []string{`{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}`, `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"m"}}}`},
			0, &PermissionDecision{Behavior: "deny", Message: "m"}},
		{"miscapitalised Allow is no decision", []string{`{"hookSpecificOutput":{"decision":{"behavior":"Allow"}}}`}, 0, nil},
		{"exit 2 denies with stderr", []string{`x`}, 2, &PermissionDecision{Behavior: "deny", Message: "x"}},
		{"no decision", []string{`{}`}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hooks []Definition
			for _, s := range tc.stdouts {
				if tc.exit == 2 {
					hooks = append(hooks, cmdHook("echo "+shQuote(s)+" >&2; exit 2"))
				} else {
					hooks = append(hooks, cmdHook("printf '%s' "+shQuote(s)))
				}
			}
			res := NewRunner(config(PermissionRequest, group("Bash", hooks...)), t.TempDir()).
				Run(context.Background(), Input{Event: PermissionRequest, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"rm x"}`)})
			got, _ := json.Marshal(res.Permission)
			want, _ := json.Marshal(tc.want)
			if string(got) != string(want) {
				t.Fatalf("got %s, want %s (errors %v)", got, want, res.Errors)
			}
		})
	}
}

func TestValidateHookTypes(t *testing.T) {
	for _, tc := range []struct{ json, err string }{
		{`{"PreToolUse":[{"hooks":[{"type":"prompt","prompt":"  "}]}]}`, "prompt hook without a prompt"},
		{`{"Stop":[{"hooks":[{"type":"agent","agent":"x"}]}]}`, "agent hook without a prompt"},
		{`{"PreToolUse":[{"hooks":[{"type":"mcp_tool","server":"s","tool":"t"}]}]}`, `hook type "mcp_tool" cannot run here`},
		{`{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"ok?","continueOnBlock":true}]}]}`, ""},
	} {
		cfg, err := ParseConfig([]byte(tc.json))
		if tc.err == "" {
			if err != nil || len(cfg[PermissionRequest]) != 1 || !cfg[PermissionRequest][0].Hooks[0].ContinueOnBlock {
				t.Fatalf("%s: %v %+v", tc.json, err, cfg)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("%s: got %v, want %q", tc.json, err, tc.err)
		}
	}
}

func TestIfFilter(t *testing.T) {
	guarded := Definition{Type: "command", Command: "a", If: "Bash(rm *)"}
	plain := Definition{Type: "command", Command: "b"}
	var asked []string
	r := NewRunner(config(PreToolUse, group("Bash", guarded, plain)), "/p", WithFilter(func(h Definition, in Input) bool {
		asked = append(asked, h.If)
		return strings.Contains(string(in.ToolInput), "rm ")
	}))
	names := func(ds []Definition) (out []string) {
		for _, d := range ds {
			out = append(out, d.Command)
		}
		return out
	}
	if got := names(r.Matching(bashCall("ls"))); strings.Join(got, ",") != "b" {
		t.Fatalf("ls ran %v", got)
	}
	if got := names(r.Matching(bashCall("rm x"))); strings.Join(got, ",") != "a,b" {
		t.Fatalf("rm ran %v", got)
	}
	if len(asked) != 2 || asked[0] != "Bash(rm *)" {
		t.Fatalf("filter asked %v (only hooks with if)", asked)
	}
	// Without a filter the condition cannot be checked, and the hook runs.
	if got := names(NewRunner(config(PreToolUse, group("Bash", guarded)), "/p").Matching(bashCall("ls"))); len(got) != 1 {
		t.Fatalf("no filter: %v", got)
	}
}
