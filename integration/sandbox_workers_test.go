package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 27: background commands and subagents' commands, which run in robota-worker,
// run in the same command sandbox as the session's Bash: with Read(./secret.txt) and
// Edit(./.git/**) denied, an interpreter in a background command or in a subagent's Bash
// never shows the secret and never writes a git hook, while what touches nothing denied
// works as outside.
func TestSandboxHoldsInWorkers(t *testing.T) {
	const marker = "MARK-93ab-secret"
	p := newProject(t)
	p.writeFile(t, "secret.txt", marker+"\n")
	p.writeFile(t, "notes.txt", "hello notes\n")
	if err := os.MkdirAll(filepath.Join(p.Dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": []string{"Bash"},
		"deny": []string{"Read(./secret.txt)", "Edit(./.git/**)"}}})
	p.writeFile(t, ".claude/settings.json", string(settings))
	attack := `python3 -c 'print(open("secret.txt").read())'; python3 -c 'open(".git/hooks/pre-commit","w").write("x")' 2>&1; cat notes.txt`
	in, _ := json.Marshal(map[string]any{"command": attack, "run_in_background": true})
	sub, _ := json.Marshal(map[string]any{"command": attack})
	script := p.writeScript(t, "workers.yaml", `turns:
  - when: {lastUserContains: "go"}
    toolCalls: [{id: toolu_bg, name: Bash, input: `+string(in)+`}]
  - when: {lastToolResultContains: "bash_1"}
    toolCalls: [{id: toolu_out, name: TaskOutput, input: {task_id: bash_1, block: true}}]
  - when: {lastToolResultContains: "hello notes"}
    toolCalls: [{id: toolu_agent, name: Agent, input: {description: look, prompt: "sub: read the files", subagent_type: general-purpose}}]
  - text: done
agents:
  general-purpose:
    - when: {lastUserContains: "sub:"}
      toolCalls: [{id: toolu_sub, name: Bash, input: `+string(sub)+`}]
    - text: "the subagent looked"
`)
	res := p.mustRun(t, "-p", "go", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")
	if strings.Contains(res.Stdout, marker) {
		t.Fatalf("the secret reached the model through a worker's command:\n%s", res.Stdout)
	}
	results := toolResults(t, res.Stdout)
	if out := results["toolu_out"].Content; !strings.Contains(out, "hello notes") {
		t.Fatalf("the background command's output lacks what it may read: %q\n%s", out, res.Stdout)
	}
	if !strings.Contains(res.Stdout, "hello notes") || !strings.Contains(res.Stdout, "the subagent looked") {
		t.Fatalf("the subagent's Bash did not run:\n%s", res.Stdout)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatal("a worker's command wrote a git hook")
	}
}

// The stream-json init line says whether the command sandbox is on.
func TestInitSaysTheSandboxState(t *testing.T) {
	for _, tc := range []struct {
		settings, want string
	}{
		{`{}`, "on"},
		{`{"sandbox": {"enabled": false}}`, "off"},
	} {
		p := newProject(t)
		p.writeFile(t, ".claude/settings.json", tc.settings)
		script := p.writeScript(t, "hi.yaml", "turns:\n  - text: hi\n")
		res := p.mustRun(t, "-p", "hi", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")
		var init struct {
			Subtype string `json:"subtype"`
			Sandbox string `json:"sandbox"`
		}
		if err := json.Unmarshal([]byte(strings.SplitN(res.Stdout, "\n", 2)[0]), &init); err != nil || init.Subtype != "init" {
			t.Fatalf("first line: %v\n%s", err, res.Stdout)
		}
		if init.Sandbox != tc.want {
			t.Errorf("settings %s: init sandbox %q, want %q", tc.settings, init.Sandbox, tc.want)
		}
	}
}
