package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 14 acceptance, a forked skill over the real binaries: the model loads a
// `context: fork` skill with the Skill tool; its expanded text runs as a subagent in a
// robota-worker process (the subagent's Bash records the name of its parent process),
// and the subagent's answer is the Skill tool's result.
func TestHeadlessForkedSkillRunsInAWorker(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	p.writeFile(t, filepath.Join(".claude", "skills", "research", "SKILL.md"), `---
name: research
description: Research a topic in a subagent
context: fork
agent: general-purpose
---
Research $ARGUMENTS and report what you found in one line.
`)
	comm := filepath.Join(p.Scripts, "fork.comm")
	script := p.writeScript(t, "fork.yaml", `
turns:
  - when: {systemContains: "research: Research a topic in a subagent"}
    toolCalls: [{id: toolu_skill, name: Skill, input: {skill: research, args: "go generics"}}]
  - when: {lastToolResultContains: "the fork found three generics notes"}
    text: "The research subagent reported back."
agents:
  general-purpose:
    - when: {lastUserContains: "Research go generics and report what you found in one line."}
      toolCalls: [{id: toolu_comm, name: Bash, input: {command: "cat /proc/$PPID/comm > `+comm+`"}}]
    - text: "the fork found three generics notes"
`)
	out := p.mustRun(t, "-p", "research generics", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose").Stdout
	if r := lastResult(t, out); r["subtype"] != "success" || r["result"] != "The research subagent reported back." {
		t.Fatalf("result %v", r)
	}
	if r := toolResults(t, out)["toolu_skill"]; r.IsError || !strings.Contains(r.Content, "the fork found three generics notes") {
		t.Fatalf("Skill result %+v, want the subagent's answer", r)
	}
	got, err := os.ReadFile(comm)
	if err != nil || strings.TrimSpace(string(got)) != "robota-worker" {
		t.Fatalf("the forked skill's Bash ran under %q (%v), want robota-worker", got, err)
	}
}
