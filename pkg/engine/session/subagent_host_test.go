package session_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// execRecorder is the worker side of a subagent's tool call: it records the input it
// was told to run with.
type execRecorder struct {
	mu     sync.Mutex
	inputs []string
}

func (r *execRecorder) exec(_ context.Context, input json.RawMessage) llm.ToolResult {
	r.mu.Lock()
	r.inputs = append(r.inputs, string(input))
	r.mu.Unlock()
	return llm.ToolSuccess("ran with " + string(input))
}

func (r *execRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.inputs)
}

// seenRequests records what the parent's evaluator was asked.
type seenRequests struct {
	mu    sync.Mutex
	reqs  []session.PermissionRequest
	modes []session.PermissionMode
}

func (s *seenRequests) add(req session.PermissionRequest, mode session.PermissionMode) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.modes = append(s.modes, mode)
	s.mu.Unlock()
}

func TestSubagentHost_ParentsDenyRuleHoldsForTheSubagent(t *testing.T) {
	seen := &seenRequests{}
	ev := &fakeEvaluator{fn: func(req session.PermissionRequest, mode session.PermissionMode) session.PermissionDecision {
		seen.add(req, mode)
		if req.ToolName == "Write" {
			return session.PermissionDecision{Behavior: session.BehaviorDeny, Reason: "matched deny rule Write(secrets/**)", Rule: "Write(secrets/**)"}
		}
		return session.PermissionDecision{Behavior: session.BehaviorAllow, Reason: "allowed"}
	}}
	hooks := &fakeHooks{}
	s := newSession(t, session.Config{Provider: newProvider(t, "turns:\n  - text: unused\n"), Evaluator: ev, Hooks: hooks,
		PermissionMode: "acceptEdits"})
	jobDir := t.TempDir()
	var subEvents toolEvents
	host := s.SubagentHost(session.SubagentHostConfig{Cwd: jobDir, OnToolExecution: subEvents.add})
	worker := &execRecorder{}

	res := host.RunTool(context.Background(), runnerapi.ToolCall{ID: "toolu_w", Name: "Write",
		Input: json.RawMessage(`{"file_path":"secrets/key","content":"x"}`)}, worker.exec)
	if res.Success || !strings.Contains(res.Error, "Permission denied for Write: matched deny rule Write(secrets/**)") {
		t.Fatalf("result = %+v, want the parent's deny", res)
	}
	if got := worker.got(); len(got) != 0 {
		t.Fatalf("the worker was told to run a denied call: %v", got)
	}
	if d := host.PermissionDenials(); len(d) != 1 || d[0].ToolName != "Write" || d[0].ToolUseID != "toolu_w" {
		t.Fatalf("subagent denials = %+v", d)
	}
	// The session's permission_denials count its subagents' denied calls too.
	if d := s.PermissionDenials(); len(d) != 1 || d[0].ToolUseID != "toolu_w" {
		t.Fatalf("the session's denials = %+v, want the subagent's denied call", d)
	}

	// An allowed call runs in the worker with the call's input; the evaluator and the
	// hooks see the job's cwd, the parent's mode (as it is now) and the parent's id.
	s.SetPermissionMode("plan")
	res = host.RunTool(context.Background(), runnerapi.ToolCall{ID: "toolu_r", Name: "Read",
		Input: json.RawMessage(`{"file_path":"a.go"}`)}, worker.exec)
	if !res.Success || res.Output != `ran with {"file_path":"a.go"}` {
		t.Fatalf("allowed result = %+v", res)
	}
	if got := worker.got(); !slices.Equal(got, []string{`{"file_path":"a.go"}`}) {
		t.Fatalf("worker ran %v", got)
	}
	if seen.reqs[0].Cwd != jobDir || seen.modes[0] != "acceptEdits" || seen.modes[1] != "plan" {
		t.Fatalf("evaluator saw cwd %q modes %v; want the job's cwd and the parent's live mode", seen.reqs[0].Cwd, seen.modes)
	}
	pre := hooks.of(session.HookPreToolUse)
	if len(pre) != 1 || pre[0].Cwd != jobDir || pre[0].SessionID != s.ID() || pre[0].ToolUseID != "toolu_r" {
		t.Fatalf("PreToolUse inputs = %+v", pre)
	}
	if post := hooks.of(session.HookPostToolUse); len(post) != 1 || post[0].ToolName != "Read" {
		t.Fatalf("PostToolUse inputs = %+v", post)
	}
	// The subagent's tool events go to its observer, as start and end of each call.
	evs := subEvents.get()
	if len(evs) != 4 || evs[1].Type != session.ToolEnd || !evs[1].Denied || evs[3].Type != session.ToolEnd || !evs[3].Success {
		t.Fatalf("subagent tool events = %+v", evs)
	}
}

func TestSubagentHost_AskIsAnsweredThroughTheParentsHandler(t *testing.T) {
	const rule = "Bash(ls:*)"
	ev := &fakeEvaluator{fn: func(req session.PermissionRequest, _ session.PermissionMode) session.PermissionDecision {
		if slices.Contains(req.SessionAllow, rule) {
			return session.PermissionDecision{Behavior: session.BehaviorAllow, Reason: "session rule"}
		}
		return session.PermissionDecision{Behavior: session.BehaviorAsk, Reason: "mode default asks", SessionRule: rule}
	}}
	tr := &trace{}
	var asked []session.ApprovalRequest
	parentHandler := func(_ context.Context, req session.ApprovalRequest) session.PermissionAnswer {
		tr.add("parent handler")
		asked = append(asked, req)
		return session.PermissionAnswer{Approval: session.ApprovalAllowSession}
	}
	// A PreToolUse hook rewrites the command: the worker must run the rewritten one.
	hooks := (&fakeHooks{}).on(session.HookPreToolUse, func(in session.HookInput) session.HookOutcome {
		return session.HookOutcome{UpdatedInput: json.RawMessage(`{"command":"ls -la"}`)}
	})
	s := newSession(t, session.Config{Provider: newProvider(t, "turns:\n  - text: unused\n"), Evaluator: ev, Hooks: hooks,
		PermissionHandler: parentHandler})
	host := s.SubagentHost(session.SubagentHostConfig{Cwd: t.TempDir(), WrapHandler: func(h session.PermissionHandler) session.PermissionHandler {
		return func(ctx context.Context, req session.ApprovalRequest) session.PermissionAnswer {
			tr.add("task waiting_permission")
			defer tr.add("task running")
			return h(ctx, req)
		}
	}})
	worker := &execRecorder{}
	res := host.RunTool(context.Background(), runnerapi.ToolCall{ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}, worker.exec)
	if !res.Success {
		t.Fatalf("approved call = %+v", res)
	}
	if got, want := tr.get(), []string{"task waiting_permission", "parent handler", "task running"}; !slices.Equal(got, want) {
		t.Fatalf("ask path = %v, want %v", got, want)
	}
	if len(asked) != 1 || asked[0].ToolName != "Bash" || asked[0].ToolUseID != "toolu_1" || asked[0].SessionRule != rule {
		t.Fatalf("parent's handler was asked %+v", asked)
	}
	if got := worker.got(); !slices.Equal(got, []string{`{"command":"ls -la"}`}) {
		t.Fatalf("worker ran %v, want the hook's input", got)
	}
	// "Allow for the session" from a subagent's ask is the parent's session rule too,
	// and the next subagent call is not asked again.
	if got := s.SessionRules(); !slices.Equal(got, []string{rule}) {
		t.Fatalf("parent's session rules = %v", got)
	}
	other := s.SubagentHost(session.SubagentHostConfig{})
	if res := other.RunTool(context.Background(), runnerapi.ToolCall{ID: "toolu_2", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}, worker.exec); !res.Success {
		t.Fatalf("second call = %+v", res)
	}
	if len(asked) != 1 {
		t.Fatalf("the parent was asked again: %+v", asked)
	}
}

func TestSubagentHost_AskWithoutAHandlerIsDenied(t *testing.T) {
	ev := &fakeEvaluator{fn: decide(session.BehaviorAsk, false)}
	s := newSession(t, session.Config{Provider: newProvider(t, "turns:\n  - text: unused\n"), Evaluator: ev})
	worker := &execRecorder{}
	res := s.SubagentHost(session.SubagentHostConfig{}).RunTool(context.Background(),
		runnerapi.ToolCall{ID: "c", Name: "Bash", Input: json.RawMessage(`{"command":"make"}`)}, worker.exec)
	if res.Success || !strings.Contains(res.Error, "no one can be asked") || len(worker.got()) != 0 {
		t.Fatalf("result = %+v, worker ran %v", res, worker.got())
	}
}

// A parent tool (the Agent tool, in real life) makes its subagent's model call during
// the parent's Run: the call goes through the parent's provider with the parent's model,
// and its usage counts in the parent's result and in SubagentUsage.
func TestSubagentHost_ChatUsesTheParentsProviderAndAccountsUsage(t *testing.T) {
	p := newProvider(t, `
turns:
  - toolCalls: [{id: call_0, name: Agent, input: {prompt: "look around"}}]
    usage: {inputTokens: 7, outputTokens: 2}
  - text: "sub answer"
    usage: {inputTokens: 100, outputTokens: 10}
  - text: "parent done"
    usage: {inputTokens: 5, outputTokens: 1}
`)
	var host *session.SubagentHost
	var deltas []string
	agentTool := &funcTool{name: "Agent", fn: func(ctx context.Context, _ json.RawMessage) llm.ToolResult {
		resp, err := host.Chat(ctx, llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage("look around")}},
			llm.Callbacks{OnTextDelta: func(d string) { deltas = append(deltas, d) }})
		if err != nil {
			return llm.ToolFailure(err.Error())
		}
		return llm.ToolSuccess(resp.Message.Text())
	}}
	s := newSession(t, session.Config{Provider: p, Model: "parent-model", Tools: []llm.Tool{agentTool}, Evaluator: allowAll()})
	host = s.SubagentHost(session.SubagentHostConfig{})
	if out := mustRun(t, s, "delegate"); out != "parent done" {
		t.Fatalf("parent answer = %q", out)
	}
	reqs := p.requests()
	if len(reqs) != 3 || reqs[1].Model != "parent-model" || reqs[1].Messages[0].Text() != "look around" {
		t.Fatalf("subagent request = %+v", reqs[1])
	}
	if strings.Join(deltas, "") != "sub answer" {
		t.Fatalf("subagent deltas = %q", deltas)
	}
	if got, want := s.LastResult().Usage, (llm.Usage{InputTokens: 112, OutputTokens: 13}); got != want {
		t.Fatalf("parent's run usage = %+v, want %+v (its own calls plus the subagent's)", got, want)
	}
	if got, want := s.SubagentUsage(), (llm.Usage{InputTokens: 100, OutputTokens: 10}); got != want {
		t.Fatalf("SubagentUsage = %+v, want %+v", got, want)
	}
}

// A subagent host given its own evaluator (a worktree job's, whose project is its
// worktree) is decided by it, in the session's mode and with the session's approvals;
// the session's calls keep the session's evaluator.
func TestSubagentHost_OwnEvaluator(t *testing.T) {
	deny := func(why string) *fakeEvaluator {
		return &fakeEvaluator{fn: func(req session.PermissionRequest, mode session.PermissionMode) session.PermissionDecision {
			if mode != "acceptEdits" {
				return session.PermissionDecision{Behavior: session.BehaviorDeny, Reason: "wrong mode " + string(mode)}
			}
			return session.PermissionDecision{Behavior: session.BehaviorDeny, Reason: why}
		}}
	}
	s := newSession(t, session.Config{Provider: newProvider(t, "turns:\n  - text: unused\n"), Evaluator: deny("the session's"),
		PermissionMode: "acceptEdits"})
	for _, tc := range []struct {
		ev   session.PermissionEvaluator
		want string
	}{{nil, "the session's"}, {deny("the worktree's"), "the worktree's"}} {
		host := s.SubagentHost(session.SubagentHostConfig{Cwd: t.TempDir(), Evaluator: tc.ev})
		res := host.RunTool(context.Background(), runnerapi.ToolCall{ID: "toolu_w", Name: "Write",
			Input: json.RawMessage(`{"file_path":"a","content":"x"}`)}, (&execRecorder{}).exec)
		if res.Success || !strings.Contains(res.Error, tc.want) {
			t.Errorf("result %+v, want the denial of %s evaluator", res, tc.want)
		}
	}
}
