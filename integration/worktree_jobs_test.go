package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issues 28 and 31 (worktree jobs): in acceptEdits an Agent job with isolation: worktree
// writes in its worktree (under .robota/worktrees, a protected path of the project, but
// the job's own project); the project's deny rules cover the worktree's copy of a file
// (a rule anchored at the project root too); and its writes into the main checkout ask
// as any write outside the project would (headless: nobody can be asked, so refused).
// An interpreter the permission checker cannot see into meets the command sandbox,
// which hides the worktree's copy of the Read-denied file as it hides the project's.
// Under --engine the client denies the engine's questions itself (nobody can be asked):
// the engine must not word that "denied by user" either.
func TestHeadlessWorktreeJobWritesInItsWorktreeOnly(t *testing.T) {
	t.Run("inprocess", func(t *testing.T) { testWorktreeJobWritesInItsWorktreeOnly(t, newProject(t), nil) })
	t.Run("engine", func(t *testing.T) {
		p, addr := engineProject(t)
		testWorktreeJobWritesInItsWorktreeOnly(t, p, []string{"--engine", addr})
	})
}

func testWorktreeJobWritesInItsWorktreeOnly(t *testing.T, p *project, extra []string) {
	const secret = "MARK-7c1f-secret"
	p.writeFile(t, "secret.txt", secret+"\n")
	p.writeFile(t, "locked.txt", "locked\n")
	p.writeFile(t, ".claude/settings.json", `{"permissions": {
		"allow": ["Bash"],
		"deny": ["Read(/secret.txt)", "Edit(/locked.txt)"]}}`)
	gitInit(t, p.Dir)
	escape := filepath.Join(p.Dir, "escape.txt")
	script := p.writeScript(t, "worktree.yaml", `turns:
  - toolCalls:
      - id: toolu_agent
        name: Agent
        input: {description: "isolated job", prompt: "job: work", isolation: worktree}
  - text: "done"
agents:
  general-purpose:
    - toolCalls:
        - {id: toolu_w, name: Write, input: {file_path: "out.txt", content: "from-job\n"}}
        - {id: toolu_r, name: Read, input: {file_path: "secret.txt"}}
        - {id: toolu_l, name: Write, input: {file_path: "locked.txt", content: "changed\n"}}
        - {id: toolu_b, name: Bash, input: {command: "echo from-bash > inside.txt"}}
        - {id: toolu_e, name: Bash, input: {command: "echo escaped > `+escape+`"}}
        - {id: toolu_p, name: Bash, input: {command: "python3 -c 'print(open(\"secret.txt\").read())'"}}
    - text: "job done"
`)
	res := p.mustRun(t, append([]string{"-p", "go", "--provider", "script", "--script", script,
		"--permission-mode", "acceptEdits", "--output-format", "stream-json", "--verbose"}, extra...)...)
	wts, _ := filepath.Glob(filepath.Join(p.Dir, ".robota", "worktrees", "*"))
	if len(wts) != 1 {
		t.Fatalf("worktrees %v, want the job's one kept (it holds work)\nstdout:\n%s\nstderr:\n%s", wts, res.Stdout, res.Stderr)
	}
	wt := wts[0]
	for name, want := range map[string]string{"out.txt": "from-job", "inside.txt": "from-bash", "locked.txt": "locked"} {
		got, err := os.ReadFile(filepath.Join(wt, name))
		if err != nil || strings.TrimSpace(string(got)) != want {
			t.Errorf("worktree %s: %q, %v; want %q\nstdout:\n%s", name, got, err, want, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, secret) {
		t.Errorf("the worktree's copy of a Read-denied file reached the model:\n%s", res.Stdout)
	}
	for _, want := range []string{"Read(/secret.txt)", "Edit(/locked.txt)"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("no denial naming %s in the job's results:\n%s", want, res.Stdout)
		}
	}
	if _, err := os.Stat(escape); err == nil {
		t.Errorf("the job wrote into the main checkout without asking")
	}
	if strings.Contains(res.Stdout, "denied by user") {
		t.Errorf("a denial says \"by user\" though nobody was asked:\n%s", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "approval required and no one can be asked") {
		t.Errorf("the write into the main checkout was not refused as a headless run refuses it:\n%s", res.Stdout)
	}
}
