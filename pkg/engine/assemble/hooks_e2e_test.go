package assemble

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// recordingProvider remembers every request, for checks on what the model was sent.
type recordingProvider struct {
	inner llm.Provider
	mu    sync.Mutex
	reqs  []llm.ChatRequest
}

func (r *recordingProvider) Name() string { return r.inner.Name() }

func (r *recordingProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.inner.Chat(ctx, req, cb)
}

func (r *recordingProvider) of(p llm.Purpose) []llm.ChatRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []llm.ChatRequest
	for _, q := range r.reqs {
		if q.Purpose == p {
			out = append(out, q)
		}
	}
	return out
}

// promptHookSettings allows every Bash call, so only the hook stands between the model
// and the command.
const promptHookSettings = `{"permissions": {"allow": ["Bash"]},
 "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Block any rm command. Input: $ARGUMENTS"%s}]}]}}`

// The acceptance case: a prompt hook blocks a tool. The model's Bash call would delete
// victim.txt; the hook's model call (the script's `purpose: hook` turn) answers not ok
// and the command never runs. As in Claude Code, the block ends the turn unless the hook
// sets continueOnBlock; either way the reason is what the model reads next (the turns
// after the block are only picked for a request whose last tool result carries it).
func TestPromptHookBlocksTool(t *testing.T) {
	for _, tc := range []struct {
		name            string
		continueOnBlock bool
	}{{"turn ends", false}, {"continueOnBlock", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim.txt")
			writeFile(t, victim, "keep me\n")
			extra := ""
			if tc.continueOnBlock {
				extra = `, "continueOnBlock": true`
			}
			writeFile(t, filepath.Join(dir, ".claude", "settings.json"), fmt.Sprintf(promptHookSettings, extra))
			p := &recordingProvider{inner: scriptProvider(t, `
turns:
  - toolCalls: [{id: b1, name: Bash, input: {command: "rm victim.txt"}}]
  - when: {purpose: hook}
    text: '{"ok": false, "reason": "no rm"}'
  - when: {lastToolResultContains: "no rm"}
    text: "Understood, I will not delete it."
`)}
			s := newTestSession(t, p, Options{Cwd: dir})
			end := lastToolEnd(t, s, "clean up")
			if got := readFile(t, victim); got != "keep me\n" {
				t.Fatalf("victim.txt is %q: the blocked command ran", got)
			}
			hookReqs := p.of(llm.PurposeHook)
			if len(hookReqs) != 1 {
				t.Fatalf("%d hook model calls, want 1", len(hookReqs))
			}
			req := hookReqs[0]
			if len(req.Tools) != 0 || len(req.Messages) != 2 || !strings.Contains(req.Messages[0].Text(), `{"ok": false, "reason"`) ||
				!strings.Contains(req.Messages[1].Text(), `Block any rm command. Input: {`) || !strings.Contains(req.Messages[1].Text(), `"command":"rm victim.txt"`) {
				t.Fatalf("hook request %+v", req)
			}
			var toolResult string
			for _, m := range s.Session().Messages() {
				if r, ok := m.ToolResult(); ok {
					toolResult = r.Content
				}
			}
			if !strings.Contains(toolResult, "Blocked by hook") || !strings.Contains(toolResult, "no rm") {
				t.Fatalf("the model saw %q", toolResult)
			}
			if d := s.Session().PermissionDenials(); len(d) != 1 || d[0].ToolName != "Bash" {
				t.Fatalf("denials %+v", d)
			}
			if !tc.continueOnBlock {
				if sr := s.Session().LastResult().StopReason; sr != agent.StopHookStopped || end == nil || !strings.Contains(end.Message, "Stopped by hook: no rm") {
					t.Fatalf("stop reason %q, tool end %+v", sr, end)
				}
				submitAndWait(t, s, "go on")
			}
			if last := s.Session().Messages(); last[len(last)-1].Text() != "Understood, I will not delete it." {
				t.Fatalf("final answer %q", last[len(last)-1].Text())
			}
		})
	}
}

// A model answer that is not a verdict does not block (a non-blocking error, as in
// Claude Code) and is not silent: the user sees it on the call's end event and the
// session log records it.
func TestPromptHookUnreadableAnswerIsVisible(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), fmt.Sprintf(promptHookSettings, ""))
	s := newTestSession(t, scriptProvider(t, `
turns:
  - toolCalls: [{id: b1, name: Bash, input: {command: "echo hello-from-bash"}}]
  - when: {purpose: hook}
    text: "Sure, that looks fine to me."
  - text: "done"
`), Options{Cwd: dir})
	end := lastToolEnd(t, s, "say hello")
	if end == nil || end.Result != "success" || !strings.Contains(end.ToolResultData, "hello-from-bash") || !strings.Contains(end.Message, "PreToolUse prompt hook error") || !strings.Contains(end.Message, "not a verdict") {
		t.Fatalf("tool end %+v", end)
	}
	if err := Of(s).SyncLog(); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(Of(s).LogPath)
	if err != nil || !strings.Contains(string(log), "hook PreToolUse") || !strings.Contains(string(log), "not a verdict") {
		t.Fatalf("session log does not record the hook error (%v)", err)
	}
}

// A Stop prompt hook gets the final answer (response and last_assistant_message) and,
// answering not ok, keeps the agent going with its reason.
func TestPromptStopHookKeepsGoing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Did it run the tests? $ARGUMENTS"}]}]}}`)
	p := &recordingProvider{inner: scriptProvider(t, `
turns:
  - text: "All done."
  - when: {purpose: hook, lastUserContains: "All done."}
    text: '{"ok": false, "reason": "the tests were not run"}'
  - when: {lastUserContains: "the tests were not run"}
    text: "Running them now: all pass."
  - when: {purpose: hook}
    text: '{"ok": true, "reason": "tests ran"}'
`)}
	s := newTestSession(t, p, Options{Cwd: dir})
	submitAndWait(t, s, "finish")
	hooks := p.of(llm.PurposeHook)
	if len(hooks) != 2 {
		t.Fatalf("%d Stop hook calls", len(hooks))
	}
	first := hooks[0].Messages[1].Text()
	if !strings.Contains(first, `"response":"All done."`) || !strings.Contains(first, `"last_assistant_message":"All done."`) ||
		!strings.Contains(hooks[0].Messages[0].Text(), "stop-condition") {
		t.Fatalf("Stop hook request %q", first)
	}
	if last := s.Session().Messages(); last[len(last)-1].Text() != "Running them now: all pass." {
		t.Fatalf("final answer %q", last[len(last)-1].Text())
	}
}

// Hooks that cannot run stop the assembly with the file and key named; Claude Code's
// events robota does not fire are a warning.
func TestHooksThatCannotRun(t *testing.T) {
	tests := []struct {
		name, settings string
		err            []string
		warning        string
	}{
		{name: "agent hook without a runner",
			settings: `{"hooks": {"Stop": [{"hooks": [{"type": "agent", "prompt": "verify"}]}]}}`,
			err:      []string{".claude/settings.json", "hooks.Stop", "agent hook needs subagents"}},
		{name: "mcp_tool hook",
			settings: `{"hooks": {"PreToolUse": [{"hooks": [{"type": "mcp_tool", "server": "s", "tool": "t"}]}]}}`,
			err:      []string{".claude/settings.json", "hooks.PreToolUse[0].hooks[0].type", "mcp_tool"}},
		{name: "prompt hook without a prompt",
			settings: `{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": ""}]}]}}`,
			err:      []string{".claude/settings.json", "hooks.PreToolUse[0].hooks[0]", `needs a non-empty "prompt"`}},
		{name: "event robota does not fire",
			settings: `{"hooks": {"PermissionDenied": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			warning:  "hooks.PermissionDenied in .claude/settings.json: robota does not fire PermissionDenied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, ".claude", "settings.json"), tc.settings)
			a, err := Assemble(context.Background(), Options{Cwd: dir, Home: t.TempDir(), Env: envOf(nil), NewID: safeIDs(),
				LLM: scriptProvider(t, "turns: [{text: hi}]")})
			if len(tc.err) > 0 {
				if err == nil {
					t.Fatal("want a configuration error")
				}
				for _, w := range tc.err {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("error %q does not name %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(context.Background(), "other")
			if !strings.Contains(strings.Join(a.Warnings, "\n"), tc.warning) {
				t.Fatalf("warnings %q", a.Warnings)
			}
		})
	}
}

// An agent hook runs a subagent with the read-only tools only, on the hook's prompt with
// the input in place of $ARGUMENTS; its not-ok verdict keeps the agent going with the
// reason, and its ok lets it stop. Its own tool calls run no hooks (no recursion).
func TestAgentStopHook(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main // TODO: remove\n")
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), `{"hooks": {
  "Stop": [{"hooks": [{"type": "agent", "prompt": "Check that no TODO is left. Hook input: $ARGUMENTS", "maxTurns": 4}]}],
  "PreToolUse": [{"matcher": "Grep", "hooks": [{"type": "command", "command": "echo grep-hook >> hook-runs.txt"}]}]}}`)
	p := &recordingProvider{inner: scriptProvider(t, `
turns:
  - text: "Finished."
  - when: {lastUserContains: "a TODO is left"}
    text: "Removed the TODO."
agents:
  hook-agent:
    - toolCalls: [{id: g1, name: Grep, input: {pattern: "TODO", path: "`+dir+`"}}]
    - when: {lastToolResultContains: "main.go"}
      text: "Found one.\n{\"ok\": false, \"reason\": \"a TODO is left in main.go\"}"
    - text: '{"ok": true}'
`)}
	s := newTestSession(t, p, Options{Cwd: dir, Runner: worker.New(nil)})
	submitAndWait(t, s, "finish up")
	if last := s.Session().Messages(); last[len(last)-1].Text() != "Removed the TODO." {
		t.Fatalf("final answer %q", last[len(last)-1].Text())
	}
	var agentReqs []llm.ChatRequest
	for _, r := range p.of(llm.PurposeChat) {
		if r.Agent == hookAgentType {
			agentReqs = append(agentReqs, r)
		}
	}
	if len(agentReqs) != 3 {
		t.Fatalf("%d hook-agent requests, want 3 (grep, verdict; then ok)", len(agentReqs))
	}
	var tools []string
	for _, sc := range agentReqs[0].Tools {
		tools = append(tools, sc.Name)
	}
	slices.Sort(tools)
	if strings.Join(tools, ",") != "Glob,Grep,Read" {
		t.Fatalf("hook agent tools %v", tools)
	}
	first := agentReqs[0].Messages
	if !strings.Contains(first[len(first)-1].Text(), `Check that no TODO is left. Hook input: {`) ||
		!strings.Contains(first[len(first)-1].Text(), `"response":"Finished."`) {
		t.Fatalf("hook agent prompt %q", first[len(first)-1].Text())
	}
	if _, err := os.Stat(filepath.Join(dir, "hook-runs.txt")); err == nil {
		t.Fatal("the hook agent's Grep ran the session's PreToolUse hooks")
	}
}

// The settings validator knows every event the runner fires, and Claude Code's others.
func TestValidatorKnowsEveryHookEvent(t *testing.T) {
	want := slices.Clone(hook.ClaudeCodeOnlyEvents)
	for _, ev := range hook.Events {
		want = append(want, string(ev))
	}
	got := slices.Clone(config.HookEvents)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("config.HookEvents %v\nwant %v", got, want)
	}
	if !slices.Equal(config.HookTypes, hook.Types) {
		t.Fatalf("config.HookTypes %v, hook.Types %v", config.HookTypes, hook.Types)
	}
}

// PermissionRequest hooks answer the question the user would be asked: allow with a
// rewritten input (which the rules check again), or deny with a message for the model.
func TestPermissionRequestHook(t *testing.T) {
	tests := []struct {
		name, output, want string
		ran                bool
	}{
		{name: "allow with updatedInput", ran: true, want: "rewritten-by-hook",
			output: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"echo rewritten-by-hook"}}}}`},
		{name: "deny with a message", want: "denied by PermissionRequest hook: ask the release manager",
			output: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"ask the release manager"}}}`},
		{name: "updatedInput that a deny rule denies", want: "Permission denied",
			output: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"rm -rf victim"}}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "answer.json"), tc.output)
			writeFile(t, filepath.Join(dir, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(rm *)"]},
 "hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat > input.json; cat answer.json"}]}]}}`)
			s := newTestSession(t, scriptProvider(t, `
turns:
  - toolCalls: [{id: b1, name: Bash, input: {command: "echo original"}}]
  - text: "done"
`), Options{Cwd: dir})
			submitAndWait(t, s, "run it")
			var result string
			for _, m := range s.Session().Messages() {
				if r, ok := m.ToolResult(); ok {
					result = r.Content
				}
			}
			if !strings.Contains(result, tc.want) || strings.Contains(result, "original") {
				t.Fatalf("tool result %q, want %q", result, tc.want)
			}
			in := readFile(t, filepath.Join(dir, "input.json"))
			for _, w := range []string{`"hook_event_name":"PermissionRequest"`, `"tool_name":"Bash"`, `"tool_use_id":"b1"`,
				`"permission_suggestions":[{"behavior":"allow","destination":"session","rules":[{"ruleContent":"echo original`} {
				if !strings.Contains(in, w) {
					t.Fatalf("hook input %s lacks %s", in, w)
				}
			}
		})
	}
}

const makerSkill = `---
name: maker
description: Makes marker files
allowed-tools: Bash(touch:*), Read
---
MAKER-SKILL-BODY: touch the marker file.
`

// A skill's allowed-tools are allowed without asking while the prompt that invoked it
// runs — through the Skill tool or the user's /name — and not after; a deny rule still
// wins. No one answers questions here (headless), so an ask is a denial.
func TestSkillAllowedToolsLastThePrompt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "skills", "maker", "SKILL.md"), makerSkill)
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(touch blocked*)"]}}`)
	p := scriptProvider(t, `
turns:
  - when: {lastUserContains: "first"}
    toolCalls: [{id: s1, name: Skill, input: {skill: maker}}]
  - when: {lastToolResultContains: "MAKER-SKILL-BODY"}
    toolCalls: [{id: t1, name: Bash, input: {command: "touch made1.txt"}}, {id: t2, name: Bash, input: {command: "touch blocked.txt"}}]
  - when: {lastUserContains: "first"}
    text: "made"
  - when: {lastUserContains: "second"}
    toolCalls: [{id: t3, name: Bash, input: {command: "touch made2.txt"}}]
  - when: {lastUserContains: "second"}
    text: "tried"
  - when: {lastUserContains: "MAKER-SKILL-BODY"}
    toolCalls: [{id: t4, name: Bash, input: {command: "touch made3.txt"}}]
  - when: {lastUserContains: "MAKER-SKILL-BODY"}
    text: "made by slash"
  - when: {lastUserContains: "third"}
    toolCalls: [{id: t5, name: Bash, input: {command: "touch made4.txt"}}]
  - when: {lastUserContains: "third"}
    text: "tried again"
`)
	s := newTestSession(t, p, Options{Cwd: dir, Interactive: InteractiveOptions{NoPrompt: true}})
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }

	submitAndWait(t, s, "first: use the maker skill")
	if !exists("made1.txt") || exists("blocked.txt") {
		t.Fatalf("with the skill active: made1 %v (want true), blocked %v (want false: the deny rule wins)", exists("made1.txt"), exists("blocked.txt"))
	}
	submitAndWait(t, s, "second: touch again")
	if exists("made2.txt") {
		t.Fatal("the skill's allowed-tools outlived its prompt")
	}

	res, err := s.ExecuteCommand(context.Background(), "maker", "")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := res.Data["prompt"].(string)
	submitAndWait(t, s, text)
	if !exists("made3.txt") {
		t.Fatal("/maker did not grant its allowed-tools to its prompt")
	}
	submitAndWait(t, s, "third: touch once more")
	if exists("made4.txt") {
		t.Fatal("/maker's allowed-tools outlived its prompt")
	}
}

// A context: fork skill's subagent gets the skill's allowed-tools too.
func TestForkedSkillAllowedTools(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "skills", "forker", "SKILL.md"), `---
name: forker
description: Makes a marker file in a subagent
context: fork
allowed-tools: [ "Bash(touch:*)" ]
---
FORKER-BODY: touch the marker.
`)
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: s1, name: Skill, input: {skill: forker}}]
  - text: "done"
agents:
  general-purpose:
    - toolCalls: [{id: f1, name: Bash, input: {command: "touch forked.txt"}}]
    - text: "forked done"
`)
	s := newTestSession(t, p, Options{Cwd: dir, Runner: worker.New(nil), Interactive: InteractiveOptions{NoPrompt: true}})
	submitAndWait(t, s, "use forker")
	if _, err := os.Stat(filepath.Join(dir, "forked.txt")); err != nil {
		t.Fatalf("the forked skill's subagent could not touch: %v", err)
	}
}

// Notification hooks fire when a permission question is asked (Claude Code's
// permission_prompt), with the matcher tested against notification_type.
func TestNotificationHookOnPermissionPrompt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), `{"hooks": {"Notification": [{"matcher": "permission_prompt", "hooks": [{"type": "command", "command": "cat > notified.json"}]}]}}`)
	s := newTestSession(t, scriptProvider(t, `
turns:
  - toolCalls: [{id: b1, name: Bash, input: {command: "touch x.txt"}}]
  - text: "done"
`), Options{Cwd: dir})
	sub := s.Subscribe()
	defer sub.Close()
	sent, err := s.Submit("touch")
	if err != nil {
		t.Fatal(err)
	}
	ask := until(t, sub, func(e Event) bool { return e.Type == EventPermissionRequest })
	if err := s.RespondPermission(ask[len(ask)-1].Permission.RequestID, "deny", ""); err != nil {
		t.Fatal(err)
	}
	until(t, sub, ends(sent.PromptID))
	var got string
	for i := 0; i < 100 && !strings.Contains(got, "}"); i++ {
		got = readFile(t, filepath.Join(dir, "notified.json"))
		time.Sleep(20 * time.Millisecond)
	}
	for _, w := range []string{`"hook_event_name":"Notification"`, `"notification_type":"permission_prompt"`, `"message":"Robota needs your permission to use Bash"`} {
		if !strings.Contains(got, w) {
			t.Fatalf("Notification input %q lacks %s", got, w)
		}
	}
}

// A hook's `if` (Claude Code's permission-rule filter) runs it only for matching calls:
// the prompt hook's model is asked about `ls && rm victim.txt`, not about `echo hi`.
func TestHookIfCondition(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	writeFile(t, victim, "keep me\n")
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash"]},
 "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "if": "Bash(rm *)", "prompt": "No deletions: $ARGUMENTS"}]}]}}`)
	p := &recordingProvider{inner: scriptProvider(t, `
turns:
  - toolCalls: [{id: b1, name: Bash, input: {command: "echo hi"}}]
  - when: {purpose: hook}
    text: '{"ok": false, "reason": "no deletions"}'
  - when: {lastToolResultContains: "hi"}
    toolCalls: [{id: b2, name: Bash, input: {command: "ls && rm victim.txt"}}]
  - text: "stopped"
`)}
	s := newTestSession(t, p, Options{Cwd: dir})
	submitAndWait(t, s, "go")
	hooks := p.of(llm.PurposeHook)
	if len(hooks) != 1 || !strings.Contains(hooks[0].Messages[1].Text(), "ls \u0026\u0026 rm victim.txt") && !strings.Contains(hooks[0].Messages[1].Text(), `ls \u0026\u0026 rm victim.txt`) {
		t.Fatalf("%d hook calls: %v", len(hooks), hooks)
	}
	if readFile(t, victim) != "keep me\n" {
		t.Fatal("the rm ran")
	}
}

func TestHookIfMustBeARule(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(rm *"}]}]}}`)
	_, err := Assemble(context.Background(), Options{Cwd: dir, Home: t.TempDir(), Env: envOf(nil), NewID: safeIDs(), LLM: scriptProvider(t, "turns: [{text: hi}]")})
	if err == nil || !strings.Contains(err.Error(), "hooks.PreToolUse") || !strings.Contains(err.Error(), ".claude/settings.json") || !strings.Contains(err.Error(), "if:") {
		t.Fatalf("got %v", err)
	}
}

// lastToolEnd submits prompt, waits for it to end and returns its last tool_end's state
// (nil when no tool ended).
func lastToolEnd(t *testing.T, s *InteractiveSession, prompt string) *ToolState {
	t.Helper()
	sub := s.Subscribe()
	defer sub.Close()
	sent, err := s.Submit(prompt)
	if err != nil {
		t.Fatal(err)
	}
	var end *ToolState
	for _, ev := range until(t, sub, ends(sent.PromptID)) {
		if ev.Type == EventToolEnd {
			end = ev.Tool
		}
	}
	return end
}
