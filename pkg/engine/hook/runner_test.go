package hook

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPreToolUseOutcomes runs real scripts for the PreToolUse outcomes of the issue.
func TestPreToolUseOutcomes(t *testing.T) {
	tests := []struct {
		name         string
		hooks        []Definition
		blocked      bool
		decision     string
		reason       string
		errIs        error
		updatedInput string
		// decisionWhy must be contained in PermissionDecisionReason.
		decisionWhy string
	}{
		{name: "exit 2 blocks with stderr as the reason", hooks: []Definition{cmdHook(script(t, "block.sh"))},
			blocked: true, decision: "deny", reason: "rm is not allowed in this repository"},
		{name: "exit 1 proceeds", hooks: []Definition{cmdHook(script(t, "fail.sh"))},
			blocked: false, decision: "", errIs: ErrHookFailed},
		{name: "exit 2 beats JSON allow", hooks: []Definition{cmdHook(script(t, "block_json_allow.sh"))},
			blocked: true, decision: "deny", reason: "blocked by exit code"},
		{name: "allow, ask and deny give deny", hooks: []Definition{cmdHook(script(t, "decide.sh", "allow")),
			cmdHook(script(t, "decide.sh", "ask")), cmdHook(script(t, "decide.sh", "deny"))},
			blocked: true, decision: "deny", reason: "hook said deny"},
		{name: "deny listed first still wins", hooks: []Definition{cmdHook(script(t, "decide.sh", "deny")),
			cmdHook(script(t, "decide.sh", "allow"))}, blocked: true, decision: "deny", reason: "hook said deny"},
		{name: "allow and ask give ask", hooks: []Definition{cmdHook(script(t, "decide.sh", "allow")),
			cmdHook(script(t, "decide.sh", "ask"))}, decision: "ask"},
		{name: "allow alone", hooks: []Definition{cmdHook(script(t, "decide.sh", "allow"))}, decision: "allow"},
		{name: "exit 2 beats a parallel allow", hooks: []Definition{cmdHook(script(t, "decide.sh", "allow")),
			cmdHook(script(t, "block.sh"))}, blocked: true, decision: "deny", reason: "rm is not allowed"},
		{name: "legacy decision block", hooks: []Definition{cmdHook(script(t, "json.sh", `{"decision":"block","reason":"old style"}`))},
			blocked: true, decision: "deny", reason: "old style"},
		{name: "updatedInput replaces the input", hooks: []Definition{cmdHook(script(t, "rewrite.sh"))},
			decision: "allow", updatedInput: `{"command":"npm test -- --ci"}`},
		{name: "missing executor is a non-blocking error", hooks: []Definition{{Type: "prompt", Prompt: "x"}},
			errIs: ErrNoExecutor},
		// One invalid field must not discard the others, least of all a deny.
		{name: "deny survives an invalid continue", hooks: []Definition{cmdHook(script(t, "json.sh",
			`{"continue":"yes","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no deploys"}}`))},
			blocked: true, decision: "deny", reason: "no deploys", errIs: ErrInvalidOutput},
		// Claude Code's values are case-sensitive: "Deny" is unusable, so the call is asked about.
		{name: "miscapitalised Deny asks", hooks: []Definition{cmdHook(script(t, "json.sh",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"Deny"}}`))},
			decision: "ask", errIs: ErrInvalidOutput, decisionWhy: `"Deny" is not allow, ask or deny (values are case-sensitive)`},
		{name: "miscapitalised legacy Block asks", hooks: []Definition{cmdHook(script(t, "json.sh", `{"decision":"Block"}`))},
			decision: "ask", errIs: ErrInvalidOutput, decisionWhy: "approval is required"},
		{name: "allow with an invalid field asks", hooks: []Definition{cmdHook(script(t, "json.sh",
			`{"suppressOutput":"no","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`))},
			decision: "ask", errIs: ErrInvalidOutput, decisionWhy: "suppressOutput"},
		{name: "unparsable JSON asks", hooks: []Definition{cmdHook(script(t, "json.sh", `{"hookSpecificOutput": {"permissionDecision": deny}}`))},
			decision: "ask", errIs: ErrInvalidOutput, decisionWhy: "could not be understood"},
		{name: "deny from another hook beats an unusable output", hooks: []Definition{cmdHook(script(t, "json.sh", `{"decision":"nope"}`)),
			cmdHook(script(t, "decide.sh", "deny"))}, blocked: true, decision: "deny", reason: "hook said deny", errIs: ErrInvalidOutput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRunner(config(PreToolUse, group("Bash", tc.hooks...)), t.TempDir())
			res := r.Run(context.Background(), bashCall("npm test"))
			if res.Blocked != tc.blocked || res.PermissionDecision != tc.decision {
				t.Fatalf("blocked=%v decision=%q (%s), want %v %q; errors %v", res.Blocked, res.PermissionDecision, res.Reason, tc.blocked, tc.decision, res.Errors)
			}
			if !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("reason %q does not contain %q", res.Reason, tc.reason)
			}
			if !strings.Contains(res.PermissionDecisionReason, tc.decisionWhy) {
				t.Fatalf("decision reason %q does not contain %q", res.PermissionDecisionReason, tc.decisionWhy)
			}
			if tc.blocked && res.Reason == "" {
				t.Fatal("a block must carry a reason")
			}
			if tc.errIs != nil && (len(res.Errors) == 0 || !errors.Is(res.Errors[0], tc.errIs)) {
				t.Fatalf("errors %v, want %v", res.Errors, tc.errIs)
			}
			if tc.errIs == nil && len(res.Errors) > 0 {
				t.Fatalf("unexpected errors %v", res.Errors)
			}
			if string(res.UpdatedInput) != tc.updatedInput {
				t.Fatalf("updatedInput %s, want %s", res.UpdatedInput, tc.updatedInput)
			}
			if !res.Continue {
				t.Fatal("continue must stay true")
			}
			if len(res.Runs) != len(tc.hooks) {
				t.Fatalf("%d runs for %d hooks", len(res.Runs), len(tc.hooks))
			}
		})
	}
}

// TestTimeoutKillsTheHook: a hook sleeping past its timeout is killed with its
// children, and Run returns after the timeout rather than after the sleep.
func TestTimeoutKillsTheHook(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	h := cmdHook(script(t, "sleep.sh", pidFile))
	h.Timeout = 1
	r := NewRunner(config(PreToolUse, group("", h)), t.TempDir())
	start := time.Now()
	res := r.Run(context.Background(), bashCall("ls"))
	elapsed := time.Since(start)
	if elapsed >= 60*time.Second { // the script sleeps 300 s
		t.Fatalf("Run waited %v for a hook with a 1 s timeout", elapsed)
	}
	if res.Blocked || len(res.Errors) != 1 || !errors.Is(res.Errors[0], ErrTimeout) {
		t.Fatalf("want one non-blocking timeout error, got blocked=%v errors=%v", res.Blocked, res.Errors)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pids := strings.Fields(string(b))
	if len(pids) != 2 {
		t.Fatalf("pid file %q", b)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		waitGone(t, pid)
	}
}

// waitGone waits (bounded) until pid no longer runs: gone, or a zombie nobody reaped.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running after the hook ended", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHooksRunInParallel: three hooks that each wait for the other two can only all
// succeed when they run at the same time.
func TestHooksRunInParallel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "checkins")
	var hooks []Definition
	for i := 0; i < 3; i++ {
		hooks = append(hooks, cmdHook(script(t, "rendezvous.sh", dir, "3")+" # hook "+strconv.Itoa(i)))
	}
	r := NewRunner(config(PreToolUse, group("*", hooks...)), t.TempDir())
	res := r.Run(context.Background(), bashCall("ls"))
	if len(res.Errors) != 0 || len(res.Runs) != 3 {
		t.Fatalf("hooks did not meet: %v", res.Errors)
	}
}

func TestMatchers(t *testing.T) {
	tools := []string{"Edit", "Write", "MultiEdit", "NotebookEdit", "Bash", "Read", "EditX"}
	tests := []struct {
		matcher string
		want    []string
	}{
		{"*", tools},
		{"", tools},
		{"Edit|Write", []string{"Edit", "Write"}},
		{"Edit, Write", []string{"Edit", "Write"}},
		{"Edit,Write", []string{"Edit", "Write"}},
		{"^Notebook", []string{"NotebookEdit"}},
		{"Edit.*", []string{"Edit", "MultiEdit", "NotebookEdit", "EditX"}},
		{"Bash", []string{"Bash"}},
		{"mcp__.*", nil},
		{"(", nil},
	}
	for _, tc := range tests {
		t.Run(tc.matcher, func(t *testing.T) {
			cfg := Config{PreToolUse: {group(tc.matcher, cmdHook(script(t, "say.sh", "ran")))}}
			r := NewRunner(cfg, t.TempDir())
			var got []string
			for _, tool := range tools {
				in := bashCall("x")
				in.ToolName = tool
				if res := r.Run(context.Background(), in); len(res.Runs) == 1 && res.Runs[0].Response.Stdout == "ran\n" {
					got = append(got, tool)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("matcher %q selected %v, want %v", tc.matcher, got, tc.want)
			}
		})
	}
	// A group without a matcher key matches everything.
	cfg, err := ParseConfig([]byte(`{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(NewRunner(cfg, t.TempDir()).Matching(bashCall("x"))); n != 1 {
		t.Fatalf("omitted matcher selected %d hooks", n)
	}
}

// Claude Code's subagent tool was renamed from Task to Agent: a matcher naming either
// selects the calls of both names, for tool events only.
func TestTaskMatcherSelectsAgent(t *testing.T) {
	tests := []struct {
		ev       Event
		matcher  string
		toolName string
		agent    string
		want     int
	}{
		{PreToolUse, "Task", "Agent", "", 1},
		{PostToolUse, "Task", "Agent", "", 1},
		{PostToolUseFailure, "Task|Bash", "Agent", "", 1},
		{PreToolUse, "Agent", "Task", "", 1},
		{PreToolUse, "^Task$", "Agent", "", 1},
		{PreToolUse, "Task", "Bash", "", 0},
		{PreToolUse, "Tasks", "Agent", "", 0},
		{PreToolUse, "Task", "TaskOutput", "", 0},
		{SubagentStart, "Task", "", "Agent", 0},
	}
	for _, tc := range tests {
		r := NewRunner(config(tc.ev, group(tc.matcher, cmdHook("true"))), t.TempDir())
		in := Input{Event: tc.ev, ToolName: tc.toolName, AgentType: tc.agent}
		if n := len(r.Matching(in)); n != tc.want {
			t.Errorf("%s matcher %q, tool %q: %d hooks selected, want %d", tc.ev, tc.matcher, tc.toolName, n, tc.want)
		}
	}
}

func TestEventsWithoutMatcherAlwaysRun(t *testing.T) {
	for _, ev := range []Event{UserPromptSubmit, Stop, WorktreeCreate, WorktreeRemove} {
		r := NewRunner(config(ev, group("NeverMatches", cmdHook("true"))), t.TempDir())
		if n := len(r.Matching(Input{Event: ev})); n != 1 {
			t.Errorf("%s: %d hooks selected", ev, n)
		}
	}
	r := NewRunner(config(SessionStart, group("resume", cmdHook("true"))), t.TempDir())
	if len(r.Matching(Input{Event: SessionStart, Source: "startup"})) != 0 || len(r.Matching(Input{Event: SessionStart, Source: "resume"})) != 1 {
		t.Error("SessionStart matchers select on source")
	}
}

func TestIdenticalHooksRunOnce(t *testing.T) {
	h := cmdHook(script(t, "say.sh", "once"))
	r := NewRunner(config(PreToolUse, group("Bash", h), group("*", h)), t.TempDir())
	if res := r.Run(context.Background(), bashCall("x")); len(res.Runs) != 1 {
		t.Fatalf("%d runs", len(res.Runs))
	}
}

// TestExit2ByEvent checks where exit 2 and decision "block" take effect per event.
func TestExit2ByEvent(t *testing.T) {
	block := cmdHook(script(t, "block.sh"))
	jsonBlock := cmdHook(script(t, "json.sh", `{"decision":"block","reason":"keep going"}`))
	tests := []struct {
		ev       Event
		h        Definition
		blocked  bool
		feedback bool
		user     bool
	}{
		{UserPromptSubmit, block, true, false, false},
		{Stop, block, true, false, false},
		{SubagentStop, block, true, false, false},
		{PreCompact, block, true, false, false},
		{PostToolUse, block, false, true, false},
		{PostToolUseFailure, block, false, true, false},
		{Notification, block, false, false, true},
		{SessionStart, block, false, false, true},
		{SessionEnd, block, false, false, true},
		{PostCompact, block, false, false, true},
		{SubagentStart, block, false, false, true},
		{WorktreeCreate, block, true, false, false},
		{WorktreeCreate, cmdHook(script(t, "fail.sh")), true, false, false},
		{Stop, jsonBlock, true, false, false},
		{UserPromptSubmit, jsonBlock, true, false, false},
		{PostToolUse, jsonBlock, false, true, false},
		{SessionStart, jsonBlock, false, false, false},
	}
	for _, tc := range tests {
		t.Run(string(tc.ev)+" "+filepath.Base(strings.Fields(tc.h.Command)[0]), func(t *testing.T) {
			res := NewRunner(config(tc.ev, group("", tc.h)), t.TempDir()).Run(context.Background(), Input{Event: tc.ev})
			if res.Blocked != tc.blocked || (len(res.ModelFeedback) > 0) != tc.feedback || (len(res.UserMessages) > 0) != tc.user {
				t.Fatalf("blocked=%v feedback=%q user=%q", res.Blocked, res.ModelFeedback, res.UserMessages)
			}
			if tc.blocked && res.Reason == "" {
				t.Fatal("no reason")
			}
		})
	}
}

func TestStdoutAndJSON(t *testing.T) {
	long := strings.Repeat("é", MaxContext+50)
	tests := []struct {
		name    string
		ev      Event
		stdout  string
		context string
		check   func(t *testing.T, r Result)
	}{
		{name: "plain stdout is context for UserPromptSubmit", ev: UserPromptSubmit, stdout: "branch: main", context: "branch: main"},
		{name: "plain stdout is context for SessionStart", ev: SessionStart, stdout: "todo: 3", context: "todo: 3"},
		{name: "plain stdout is not context for PreToolUse", ev: PreToolUse, stdout: "hello", context: ""},
		{name: "plain stdout is not context for Stop", ev: Stop, stdout: "hello", context: ""},
		{name: "additionalContext", ev: PostToolUse, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint ok"}}`, context: "lint ok"},
		{name: "additionalContext is capped", ev: UserPromptSubmit, stdout: `{"hookSpecificOutput":{"additionalContext":"` + long + `"}}`, context: long[:2*MaxContext]},
		{name: "plain context is capped", ev: UserPromptSubmit, stdout: long, context: long[:2*MaxContext]},
		{name: "invalid JSON is text", ev: UserPromptSubmit, stdout: `{"continue": nope}`, context: `{"continue": nope}`,
			check: func(t *testing.T, r Result) {
				if len(r.Errors) != 1 || !errors.Is(r.Errors[0], ErrInvalidOutput) {
					t.Fatalf("errors %v", r.Errors)
				}
			}},
		{name: "continue false", ev: PostToolUse, stdout: `{"continue":false,"stopReason":"build broke","systemMessage":"stopping"}`,
			check: func(t *testing.T, r Result) {
				if r.Continue || r.StopReason != "build broke" || len(r.UserMessages) != 1 || r.UserMessages[0] != "stopping" {
					t.Fatalf("%+v", r)
				}
			}},
		{name: "hookSpecificOutput for another event is ignored", ev: PostToolUse, stdout: `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"x"}}`,
			check: func(t *testing.T, r Result) {
				if r.AdditionalContext != "" || r.Blocked || len(r.Errors) != 1 {
					t.Fatalf("%+v", r)
				}
			}},
		{name: "PreToolUse output for another event asks", ev: PreToolUse, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}`,
			check: func(t *testing.T, r Result) {
				if r.PermissionDecision != "ask" || r.Blocked || len(r.Errors) != 1 {
					t.Fatalf("%+v", r)
				}
			}},
		{name: "valid fields survive an invalid one", ev: PostToolUse, stdout: `{"continue":"no","systemMessage":"formatted","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint ok"}}`,
			context: "lint ok",
			check: func(t *testing.T, r Result) {
				// A "continue" that did not parse is no answer at all, least of all false.
				if !r.Continue || len(r.UserMessages) != 1 || r.UserMessages[0] != "formatted" ||
					len(r.Errors) != 1 || !errors.Is(r.Errors[0], ErrInvalidOutput) {
					t.Fatalf("%+v", r)
				}
			}},
		{name: "permissionDecision only counts for PreToolUse", ev: PostToolUse, stdout: `{"hookSpecificOutput":{"permissionDecision":"deny"}}`,
			check: func(t *testing.T, r Result) {
				if r.PermissionDecision != "" || r.Blocked {
					t.Fatalf("%+v", r)
				}
			}},
		{name: "suppressOutput", ev: PostToolUse, stdout: `{"suppressOutput":true}`,
			check: func(t *testing.T, r Result) {
				if !r.SuppressOutput {
					t.Fatal("suppressOutput lost")
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := NewRunner(config(tc.ev, group("", cmdHook(script(t, "json.sh", tc.stdout)))), t.TempDir()).Run(context.Background(), Input{Event: tc.ev, ToolName: "Bash"})
			if res.AdditionalContext != tc.context {
				t.Fatalf("context %q (len %d), want len %d", res.AdditionalContext[:min(len(res.AdditionalContext), 80)], len(res.AdditionalContext), len(tc.context))
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
}

func TestAsyncHookIsNotAwaited(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "async-ran")
	h := cmdHook("cat > /dev/null; : > " + shQuote(marker) + "; exit 2")
	h.Async = true
	res := NewRunner(config(PostToolUse, group("", h)), dir).Run(context.Background(), Input{Event: PostToolUse})
	if len(res.Runs) != 1 || !res.Runs[0].Async || len(res.ModelFeedback) != 0 {
		t.Fatalf("%+v", res)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, err := os.Stat(marker); err != nil; _, err = os.Stat(marker) {
		if time.Now().After(deadline) {
			t.Fatal("async hook never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRegisteredExecutor(t *testing.T) {
	var got Definition
	var stdin map[string]any
	prompt := ExecutorFunc(func(ctx context.Context, h Definition, input []byte) (Response, error) {
		got = h
		if err := json.Unmarshal(input, &stdin); err != nil {
			return Response{}, err
		}
		return Response{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"model is unsure"}}`}, nil
	})
	cfg, err := ParseConfig([]byte(`{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"Is $ARGUMENTS safe?","model":"small"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1000, 0)
	tick := func() time.Time { clock = clock.Add(250 * time.Millisecond); return clock }
	res := NewRunner(cfg, t.TempDir(), WithExecutor("prompt", prompt), WithClock(tick)).Run(context.Background(), bashCall("ls"))
	if res.PermissionDecision != "ask" || res.PermissionDecisionReason != "model is unsure" {
		t.Fatalf("%+v", res)
	}
	if len(res.Runs) != 1 || res.Runs[0].Duration != 250*time.Millisecond {
		t.Fatalf("runs %+v", res.Runs)
	}
	if got.Prompt != "Is $ARGUMENTS safe?" || got.Model != "small" || !strings.Contains(string(got.Raw), `"model":"small"`) {
		t.Fatalf("definition %+v", got)
	}
	if stdin["tool_name"] != "Bash" || stdin["hook_event_name"] != "PreToolUse" {
		t.Fatalf("stdin %v", stdin)
	}
}

func TestCancelledContextKillsHooks(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	r := NewRunner(config(Stop, group("", cmdHook(script(t, "sleep.sh", pidFile)))), t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() { done <- r.Run(ctx, Input{Event: Stop}) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil && len(strings.Fields(string(b))) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("hook did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	res := <-done
	if res.Blocked || len(res.Errors) != 1 || !errors.Is(res.Errors[0], context.Canceled) {
		t.Fatalf("%+v", res)
	}
	b, _ := os.ReadFile(pidFile)
	for _, p := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(p)
		waitGone(t, pid)
	}
}
