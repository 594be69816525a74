package assemble

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// The model's Agent call with two jobs runs both subagents (here in an in-process
// worker), each writing its file through the session's rules; the call's result holds
// one result per job, their messages reach the subscribers marked with the Agent call,
// and each subagent has its transcript under the session's logs.
func TestAgentBatchRunsBothJobs(t *testing.T) {
	dir := t.TempDir()
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: ag, name: Agent, input: {jobs: [{description: one, prompt: "job-a: write a"}, {description: two, prompt: "job-b: write b", subagent_type: general-purpose}]}}]
  - text: "both done"
agents:
  general-purpose:
    - when: {lastUserContains: "job-a"}
      toolCalls: [{id: wa, name: Write, input: {file_path: "`+filepath.Join(dir, "a.txt")+`", content: "A"}}]
    - when: {lastUserContains: "job-b"}
      toolCalls: [{id: wb, name: Write, input: {file_path: "`+filepath.Join(dir, "b.txt")+`", content: "B"}}]
    - when: {lastUserContains: "job-a"}
      text: "wrote a"
      usage: {inputTokens: 2000, outputTokens: 20}
    - when: {lastUserContains: "job-b"}
      text: "wrote b"
      usage: {inputTokens: 2000, outputTokens: 20}
`)
	s := newTestSession(t, p, Options{Cwd: dir, PermissionMode: "acceptEdits", Runner: worker.New(nil)})
	sub := s.Subscribe()
	sent, err := s.Submit("delegate")
	if err != nil {
		t.Fatal(err)
	}
	events := until(t, sub, ends(sent.PromptID))
	if last := events[len(events)-1]; last.Type != EventComplete || last.Result.Response != "both done" {
		t.Fatalf("prompt ended with %s %+v", last.Type, last.Result)
	}
	for name, want := range map[string]string{"a.txt": "A", "b.txt": "B"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Fatalf("%s = %q, %v", name, b, err)
		}
	}
	var agentResult string
	subMessages := 0
	for _, ev := range events {
		if ev.Type == EventToolEnd && ev.Tool.ToolName == "Agent" {
			agentResult = string(ev.Tool.Args)
		}
		if ev.Type == EventSubagentMessage && ev.ParentToolUseID == "ag" {
			subMessages++
		}
	}
	if agentResult == "" || subMessages < 4 {
		t.Fatalf("Agent tool_end seen: %v; subagent messages marked with the call: %d (want ≥ 4)", agentResult != "", subMessages)
	}
	hist := s.Session().Messages()
	var toolResult string
	for _, m := range hist {
		if r, ok := m.ToolResult(); ok && r.ToolCallID == "ag" {
			toolResult = r.Content
		}
	}
	for _, want := range []string{"wrote a", "wrote b", "agent-"} {
		if !strings.Contains(toolResult, want) {
			t.Fatalf("Agent result lacks %q:\n%s", want, toolResult)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, ".robota", "logs", s.ID(), "subagents", "agent-*.jsonl"))
	if len(logs) != 2 {
		t.Fatalf("subagent transcripts %v, want 2", logs)
	}
	b, _ := os.ReadFile(logs[0])
	// The transcript holds the context state after a model call (spec: context state).
	for _, want := range []string{`"session_init"`, `"pre_run"`, `"tool_execution_result"`, `"assistant"`,
		`"context_state"`, `"usedTokens":2020`, `"session_shutdown"`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("transcript %s lacks %s:\n%s", logs[0], want, b)
		}
	}
}

// The Agent result reports the subagent's usage as Claude Code does: subagent_tokens is
// its last model call's input and output, tool_uses the tool calls it made (a denied
// one included).
func TestAgentResultReportsTheSubagentsUsage(t *testing.T) {
	dir := t.TempDir()
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: ag, name: Agent, input: {description: count, prompt: "count your tools"}}]
  - text: "done"
agents:
  general-purpose:
    - toolCalls: [{id: r1, name: Bash, input: {command: "echo one"}}, {id: r2, name: Bash, input: {command: "rm -rf /tmp/nothing-here"}}]
      usage: {inputTokens: 100, outputTokens: 10}
    - text: "counted"
      usage: {inputTokens: 1200, outputTokens: 40}
`)
	s := newTestSession(t, p, Options{Cwd: dir, PermissionMode: "bypassPermissions", Deny: []string{"Bash(rm *)"}, Runner: worker.New(nil)})
	sub := s.Subscribe()
	sent, err := s.Submit("delegate")
	if err != nil {
		t.Fatal(err)
	}
	if events := until(t, sub, ends(sent.PromptID)); events[len(events)-1].Type != EventComplete {
		t.Fatalf("prompt ended with %+v", events[len(events)-1])
	}
	var toolResult string
	for _, m := range s.Session().Messages() {
		if r, ok := m.ToolResult(); ok && r.ToolCallID == "ag" {
			toolResult = r.Content
		}
	}
	for _, want := range []string{"counted", "subagent_tokens: 1240\n", "tool_uses: 2\n"} {
		if !strings.Contains(toolResult, want) {
			t.Fatalf("Agent result lacks %q:\n%s", want, toolResult)
		}
	}
}
