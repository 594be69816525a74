package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The sandbox covers what an earlier command of the session made: a repository
// initialised by one command has read-only hooks for the next, and a denied file an
// archive brought in is hidden from the next. (The session's one sandbox server was made
// at the first command, when neither existed.)
func TestSandboxCoversPathsMadeByEarlierCommands(t *testing.T) {
	for _, tool := range []string{"git", "python3", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test needs %s on PATH", tool)
		}
	}
	const marker = "MARK-later-7f3a"
	p := newProject(t)
	p.writeFile(t, ".claude/settings.json", `{"permissions":{"allow":["Bash"],"deny":["Read(./secret.txt)","Edit(./.git/**)"]}}`)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "secret.txt"), []byte(marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-C", src, "-cf", filepath.Join(p.Dir, "b.tar"), "secret.txt").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	script := p.writeScript(t, "later.yaml", `turns:
  - toolCalls:
      - {id: c1, name: Bash, input: {command: "echo first"}}
  - toolCalls:
      - {id: c2, name: Bash, input: {command: "git init -q . && sh -c 'tar -xf b.tar' && echo made"}}
  - toolCalls:
      - {id: c3, name: Bash, input: {command: "python3 -c 'print(open(\"secret.txt\").read())'"}}
      - {id: c4, name: Bash, input: {command: "python3 -c 'open(\".git/hooks/pre-commit\",\"w\").write(\"echo pwned\")'; echo tried"}}
      - {id: c5, name: Bash, input: {command: "git status --short b.tar"}}
  - text: done
`)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "go", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("robota: %v\nstderr:\n%s", err, stderr.String())
	}
	results, denied := sandboxToolResults(t, stdout.String())
	if !strings.Contains(results["c2"], "made") {
		t.Fatalf("the command that makes the repository and the secret: %q", results["c2"])
	}
	if strings.Contains(results["c3"], marker) {
		t.Errorf("a later command read the secret an earlier one brought in: %q", results["c3"])
	}
	if !strings.Contains(results["c4"], "tried") || denied["c4"] {
		t.Errorf("the hook write was not run in the sandbox (denied %v): %q", denied["c4"], results["c4"])
	}
	if _, err := os.Stat(filepath.Join(p.Dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Errorf("a git hook landed in the repository an earlier command made")
	}
	if !strings.Contains(results["c5"], "b.tar") || denied["c5"] {
		t.Errorf("git status in the new repository: denied %v, %q", denied["c5"], results["c5"])
	}
}

// The same in a worker: a subagent whose first command makes a repository cannot write
// its hooks with the next.
func TestSandboxInWorkersCoversARepositoryAJobMade(t *testing.T) {
	p := newProject(t)
	p.writeFile(t, ".claude/settings.json", `{"permissions":{"allow":["Bash"]}}`)
	script := p.writeScript(t, "workers-later.yaml", `turns:
  - when: {lastUserContains: "go"}
    toolCalls: [{id: toolu_agent, name: Agent, input: {description: setup, prompt: "sub: make a repository", subagent_type: general-purpose}}]
  - text: done
agents:
  general-purpose:
    - when: {lastUserContains: "sub:"}
      toolCalls: [{id: toolu_init, name: Bash, input: {command: "git init -q . && echo made"}}]
    - when: {lastToolResultContains: "made"}
      toolCalls: [{id: toolu_hook, name: Bash, input: {command: "python3 -c 'open(\".git/hooks/pre-commit\",\"w\").write(\"echo pwned\")'; echo tried"}}]
    - text: "the subagent tried"
`)
	res := p.mustRun(t, "-p", "go", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")
	if !strings.Contains(res.Stdout, "the subagent tried") {
		t.Fatalf("the subagent did not run both commands:\n%s", res.Stdout)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, ".git", "hooks")); err != nil {
		t.Fatalf("the subagent's git init made no repository: %v", err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatal("a worker's command wrote a hook into the repository the job's earlier command made")
	}
}

// The same in a worker for a denied file: a subagent whose first command brings in a
// file a Read deny rule covers (an archive extracted) cannot read it with the next. The
// job's sandbox was made as it started, when the file did not exist; the engine sends
// the policy walked again with each command it lets the worker run (issue 27).
func TestSandboxInWorkersHidesADeniedFileAJobBroughtIn(t *testing.T) {
	for _, tool := range []string{"python3", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test needs %s on PATH", tool)
		}
	}
	const marker = "MARK-job-later-5c1e"
	p := newProject(t)
	p.writeFile(t, ".claude/settings.json", `{"permissions":{"allow":["Bash"],"deny":["Read(./secret.txt)"]}}`)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "secret.txt"), []byte(marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-C", src, "-cf", filepath.Join(p.Dir, "b.tar"), "secret.txt").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	script := p.writeScript(t, "workers-later-secret.yaml", `turns:
  - when: {lastUserContains: "go"}
    toolCalls: [{id: toolu_agent, name: Agent, input: {description: setup, prompt: "sub: unpack", subagent_type: general-purpose}}]
  - text: done
agents:
  general-purpose:
    - when: {lastUserContains: "sub:"}
      toolCalls: [{id: toolu_unpack, name: Bash, input: {command: "sh -c 'tar -xf b.tar' && echo extracted"}}]
    - when: {lastToolResultContains: "extracted"}
      toolCalls: [{id: toolu_read, name: Bash, input: {command: "python3 -c 'import os; print(\"read:\", open(os.path.join(\".\", \"secret\" + \".txt\")).read())'; echo tried"}}]
    - when: {lastToolResultContains: "`+marker+`"}
      text: "the subagent LEAKED the secret"
    - when: {lastToolResultContains: "tried"}
      text: "the subagent read nothing"
`)
	res := p.mustRun(t, "-p", "go", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")
	if _, err := os.Stat(filepath.Join(p.Dir, "secret.txt")); err != nil {
		t.Fatalf("the subagent's first command brought in no secret: %v\n%s", err, res.Stdout)
	}
	if strings.Contains(res.Stdout, "LEAKED") {
		t.Fatalf("a worker's command read the denied file the job's earlier command brought in:\n%s", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "the subagent read nothing") {
		t.Fatalf("the subagent did not run both commands:\n%s", res.Stdout)
	}
}

// The same for a subagent working in a git worktree (isolation: worktree): its first
// command makes, in its worktree, a file a Read deny rule covers (`Read(./secret.txt)`,
// the project's rule, covers the worktree's copy), which the project does not have; its
// next command cannot read it. The project's walk mirrored into the worktree lists only
// what the project has; the engine walks the worktree itself, asking the rules about
// each entry's counterpart in the project (issue 27).
func TestSandboxInWorkersHidesADeniedFileAWorktreeJobMade(t *testing.T) {
	for _, tool := range []string{"git", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test needs %s on PATH", tool)
		}
	}
	// The command writes the marker without spelling it, so only a read can show it.
	const marker = "MARK-wt-later-9d2a"
	p := newProject(t)
	p.writeFile(t, ".claude/settings.json", `{"permissions":{"allow":["Bash"],"deny":["Read(./secret.txt)"]}}`)
	gitInit(t, p.Dir)
	script := p.writeScript(t, "workers-worktree-secret.yaml", `turns:
  - when: {lastUserContains: "go"}
    toolCalls: [{id: toolu_agent, name: Agent, input: {description: setup, prompt: "sub: make", subagent_type: general-purpose, isolation: worktree}}]
  - text: done
agents:
  general-purpose:
    - when: {lastUserContains: "sub:"}
      toolCalls: [{id: toolu_make, name: Bash, input: {command: "printf 'MARK-wt-later-%s' 9d2a > secret.txt && echo made"}}]
    - when: {lastToolResultContains: "made"}
      toolCalls: [{id: toolu_read, name: Bash, input: {command: "python3 -c 'import os; print(\"read:\", open(os.path.join(\".\", \"secret\" + \".txt\")).read())'; echo tried"}}]
    - when: {lastToolResultContains: "`+marker+`"}
      text: "the subagent LEAKED the secret"
    - when: {lastToolResultContains: "tried"}
      text: "the subagent read nothing"
`)
	res := p.mustRun(t, "-p", "go", "--provider", "script", "--script", script, "--permission-mode", "acceptEdits",
		"--output-format", "stream-json", "--verbose")
	made, _ := filepath.Glob(filepath.Join(p.Dir, ".robota", "worktrees", "*", "secret.txt"))
	if len(made) != 1 {
		t.Fatalf("the subagent's first command made no secret in a worktree (%v)\n%s", made, res.Stdout)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "secret.txt")); err == nil {
		t.Fatalf("the secret was made in the project, not the worktree")
	}
	if strings.Contains(res.Stdout, "LEAKED") || strings.Contains(res.Stdout, marker) {
		t.Fatalf("a worker's command read the denied file the worktree job's earlier command made:\n%s", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "the subagent read nothing") {
		t.Fatalf("the subagent did not run both commands:\n%s", res.Stdout)
	}
}
