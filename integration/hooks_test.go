package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// robota -p with a prompt hook on PreToolUse (issue 14 §6): the model's `rm` is allowed by
// the rules, the hook's model call (the script's `purpose: hook` turn, answered by the
// engine's provider) says not ok, the file survives and the call is a permission denial.
// As in Claude Code the block ends the turn (no continueOnBlock); the reason is in the
// tool result, and `--continue` shows the model reading it (that turn is only picked for
// a request whose last tool result carries it).
func TestHeadlessPromptHookBlocksTool(t *testing.T) {
	p := newProject(t)
	victim := p.writeFile(t, "victim.txt", "keep me\n")
	p.writeFile(t, filepath.Join(".claude", "settings.json"), `{"permissions": {"allow": ["Bash"]},
 "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Block any rm command: $ARGUMENTS", "timeout": 20}]}]}}`)
	script := p.writeScript(t, "prompt_hook.yaml", `
turns:
  - when: {lastUserContains: "clean up"}
    toolCalls: [{id: toolu_rm, name: Bash, input: {command: "rm victim.txt"}}]
  - when: {purpose: hook}
    text: '{"ok": false, "reason": "no rm in this repository"}'
  - when: {lastUserContains: "go on", lastToolResultContains: "no rm in this repository"}
    text: "I left victim.txt alone."
`)
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		cmd := p.command(ctx, append(args, "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("robota: %v\n%s\nstderr:\n%s", err, out, stderr.String())
		}
		return string(out)
	}
	out := run("-p", "clean up")
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me\n" {
		t.Fatalf("victim.txt after the run: %q, %v", b, err)
	}
	r := lastResult(t, out)
	if r["subtype"] != "success" || r["num_turns"] != float64(1) {
		t.Fatalf("result %v, want the turn ended after the blocked call", r)
	}
	if d, _ := r["permission_denials"].([]any); len(d) != 1 || !strings.Contains(toJSON(d[0]), `"tool_use_id":"toolu_rm"`) {
		t.Fatalf("permission_denials %v", r["permission_denials"])
	}
	if res := toolResults(t, out)["toolu_rm"]; !res.IsError || !strings.Contains(res.Content, "no rm in this repository") {
		t.Fatalf("the tool result is %+v", res)
	}
	if r := lastResult(t, run("-p", "go on", "--continue")); r["result"] != "I left victim.txt alone." {
		t.Fatalf("after --continue: %v", r)
	}
}

// robota -p with an agent hook on Stop: the hook's subagent runs in robota-worker with
// the read-only tools, finds the TODO, and its not-ok verdict makes the agent go on.
func TestHeadlessAgentStopHook(t *testing.T) {
	p := newProject(t)
	p.writeFile(t, "main.go", "package main // TODO: remove\n")
	p.writeFile(t, filepath.Join(".claude", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "agent", "prompt": "Check that no TODO is left: $ARGUMENTS", "maxTurns": 4}]}]}}`)
	script := p.writeScript(t, "agent_hook.yaml", `
turns:
  - text: "Finished."
  - when: {lastUserContains: "a TODO is left"}
    text: "Removed the TODO."
agents:
  hook-agent:
    - toolCalls: [{id: toolu_grep, name: Grep, input: {pattern: "TODO", path: "`+p.Dir+`"}}]
    - when: {lastToolResultContains: "main.go"}
      text: "{\"ok\": false, \"reason\": \"a TODO is left in main.go\"}"
    - text: '{"ok": true}'
`)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "finish", "--provider", "script", "--script", script, "--output-format", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("robota: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	if !strings.Contains(string(out), `"result":"Removed the TODO."`) {
		t.Fatalf("output %s\nstderr:\n%s", out, stderr.String())
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
