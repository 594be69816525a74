package interactive_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// Issue 13 §1: an allow may carry updatedInput (the Agent SDK's canUseTool): the call
// runs with it; a rewrite that a deny rule covers is denied.
func TestRespondPermissionInputRewritesTheCall(t *testing.T) {
	tests := []struct {
		name    string
		updated string
		want    string // tool_end result
		output  string // in the tool's result
	}{
		{"rewritten", `{"command":"echo two"}`, "success", "two"},
		{"kept", ``, "success", "one"},
		{"rewrite hits a deny rule", `{"command":"rm -rf nothing-here"}`, "denied", "Bash(rm:*)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := scriptProvider(t, `
turns:
  - toolCalls: [{id: c1, name: Bash, input: {command: "echo one"}}]
  - text: "done"
`)
			s := newTestSession(t, p, Options{Deny: []string{"Bash(rm:*)"}})
			sub := s.Subscribe()
			sent, _ := s.Submit("go")
			ev := until(t, sub, isType(EventPermissionRequest))
			req := ev[len(ev)-1].Permission
			if err := s.RespondPermissionInput(req.RequestID, session.ApprovalAllow, "", json.RawMessage(tt.updated)); err != nil {
				t.Fatal(err)
			}
			events := until(t, sub, ends(sent.PromptID))
			var ends []*ToolState
			for _, e := range events {
				if e.Type == EventToolEnd {
					ends = append(ends, e.Tool)
				}
			}
			if len(ends) != 1 || ends[0].Result != tt.want || !strings.Contains(ends[0].ToolResultData+ends[0].Reason, tt.output) {
				t.Fatalf("tool ends %+v, want one %s with %q", ends, tt.want, tt.output)
			}
		})
	}
}

// Options.Hooks run with Options.HookExecutors next to the settings' hooks.
func TestOptionsHooksRunWithTheirExecutor(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: c1, name: Bash, input: {command: "echo one"}}]
  - text: "done"
`)
	var calls atomic.Int32
	x := hook.ExecutorFunc(func(_ context.Context, _ hook.Definition, input []byte) (hook.Response, error) {
		calls.Add(1)
		return hook.Response{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"by the sdk"}}`}, nil
	})
	s := newTestSession(t, p, Options{PermissionMode: "bypassPermissions",
		Hooks:         hook.Config{hook.PreToolUse: {{Matcher: "Bash", Hooks: []hook.Definition{{Type: "sdk_test"}}}}},
		HookExecutors: map[string]hook.Executor{"sdk_test": x}})
	sub := s.Subscribe()
	sent, _ := s.Submit("go")
	events := until(t, sub, ends(sent.PromptID))
	denied := false
	for _, e := range events {
		if e.Type == EventToolEnd && e.Tool.Result == "denied" {
			denied = true
		}
	}
	if calls.Load() != 1 || !denied {
		t.Fatalf("hook ran %d times, call denied %v", calls.Load(), denied)
	}
}

// Options.Agents add agent types (the Agent SDK's initialize agents): the model's Agent
// call with that subagent_type runs with the definition's prompt.
func TestOptionsAgentsAreAgentTypes(t *testing.T) {
	dir := t.TempDir()
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: ag, name: Agent, input: {description: review, prompt: "look at it", subagent_type: sdk-reviewer}}]
  - text: "all done"
agents:
  sdk-reviewer:
    - when: {systemContains: "You review code for the SDK."}
      text: "reviewed by the sdk agent"
`)
	s := newTestSession(t, p, Options{Cwd: dir, Runner: worker.New(nil), Agents: []agentdef.Definition{{
		Name: "sdk-reviewer", Description: "Reviews code", SystemPrompt: "You review code for the SDK.", Tools: []string{"Read"}}}})
	sub := s.Subscribe()
	sent, _ := s.Submit("delegate")
	until(t, sub, ends(sent.PromptID))
	var result string
	for _, m := range s.Session().Messages() {
		if r, ok := m.ToolResult(); ok && r.ToolCallID == "ag" {
			result = r.Content
		}
	}
	if !strings.Contains(result, "reviewed by the sdk agent") {
		t.Fatalf("Agent result %q", result)
	}
}
