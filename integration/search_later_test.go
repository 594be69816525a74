package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A subagent's Grep and Glob leave out a file a Read deny rule covers that the job's own
// earlier command made (in the project, or in the job's worktree): the engine walks the rules again for each search call, as it
// does for each command, instead of sending the list of denied paths the job started
// with. This holds with the command sandbox off too: the search tools' filter is no
// part of the sandbox.
func TestSubagentSearchLeavesOutADeniedFileTheJobMade(t *testing.T) {
	for _, tool := range []string{"git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test needs %s on PATH", tool)
		}
	}
	cases := []struct {
		name     string
		worktree bool
		sandbox  string // the settings' sandbox object
	}{
		{name: "project", sandbox: `{}`},
		{name: "project-sandbox-off", sandbox: `{"enabled":false}`},
		{name: "worktree", worktree: true, sandbox: `{}`},
		{name: "worktree-sandbox-off", worktree: true, sandbox: `{"enabled":false}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const marker = "MARK-search-later-41d7"
			p := newProject(t)
			p.writeFile(t, ".claude/settings.json", `{"permissions":{"allow":["Bash","Grep","Glob"],"deny":["Read(./secret.txt)"]},"sandbox":`+tc.sandbox+`}`)
			p.writeFile(t, "notes.txt", "nothing here\n")
			isolation := ""
			if tc.worktree {
				gitInit(t, p.Dir)
				isolation = ", isolation: worktree"
			}
			script := p.writeScript(t, "search-later.yaml", `turns:
  - when: {lastUserContains: "go"}
    toolCalls: [{id: toolu_agent, name: Agent, input: {description: setup, prompt: "sub: unpack", subagent_type: general-purpose`+isolation+`}}]
  - text: done
agents:
  general-purpose:
    - when: {lastUserContains: "sub:"}
      toolCalls: [{id: toolu_unpack, name: Bash, input: {command: "printf 'MARK-search-later-%s\\n' 41d7 > secret.txt && echo extracted"}}]
    - when: {lastToolResultContains: "extracted"}
      toolCalls: [{id: toolu_grep, name: Grep, input: {pattern: "MARK-search", output_mode: content}}]
    - when: {lastToolResultContains: "`+marker+`"}
      text: "the subagent's Grep LEAKED the secret"
    - when: {lastToolResultContains: "secret.txt"}
      text: "the subagent's search LISTED the secret"
    - when: {lastToolResultContains: "notes.txt"}
      text: "the subagent found nothing"
    - toolCalls: [{id: toolu_glob, name: Glob, input: {pattern: "*.txt"}}]
`)
			res := p.mustRun(t, "-p", "go", "--provider", "script", "--script", script, "--permission-mode", "acceptEdits",
				"--output-format", "stream-json", "--verbose")
			made := []string{filepath.Join(p.Dir, "secret.txt")}
			if tc.worktree {
				made, _ = filepath.Glob(filepath.Join(p.Dir, ".robota", "worktrees", "*", "secret.txt"))
			}
			if len(made) != 1 {
				t.Fatalf("the subagent's command brought in no secret (%v)\n%s", made, res.Stdout)
			}
			if _, err := os.Stat(made[0]); err != nil {
				t.Fatalf("the subagent's command brought in no secret: %v\n%s", err, res.Stdout)
			}
			for _, leak := range []string{"LEAKED", "LISTED", marker} {
				if strings.Contains(res.Stdout, leak) {
					t.Fatalf("a subagent's search reached the denied file its earlier command made (%s):\n%s", leak, res.Stdout)
				}
			}
			if !strings.Contains(res.Stdout, "the subagent found nothing") {
				t.Fatalf("the subagent did not run its searches:\n%s", res.Stdout)
			}
		})
	}
}
