package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
)

// runSubagents shows subagents and background tasks: robota -p with a scripted model
// that runs two subagents in parallel (each in a robota-worker of its own, one in a git
// worktree), starts, reads and stops a background process, and survives a worker that
// dies mid-job. It returns the next step number.
func runSubagents(bin, examples string, first int) (int, error) {
	tmp, dir, err := scratchProject(examples, "robota-demo-agents-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=demo", "-c", "user.email=demo@example.com", "commit", "-q", "-m", "wordstats"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			return 0, fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	// This part shows which process runs each subagent's commands (their parent's pid),
	// which a sandboxed command cannot see from its own PID namespace: the command
	// sandbox is off here (the other parts run with it).
	if err := os.MkdirAll(filepath.Join(dir, ".robota"), 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, ".robota", "settings.local.json"), []byte(`{"sandbox": {"enabled": false}}`), 0o644); err != nil {
		return 0, err
	}
	tpl, err := template.ParseFiles(filepath.Join(examples, "demo-subagents.script.yaml"))
	if err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, struct{ Dir, Tmp string }{dir, tmp}); err != nil {
		return 0, err
	}
	script := filepath.Join(tmp, "demo-subagents.script.yaml")
	if err := os.WriteFile(script, buf.Bytes(), 0o644); err != nil {
		return 0, err
	}

	step(first, "A git copy of the project; the model delegates to subagents and runs a background server")
	say("robota -p \"Survey the package and draft a changelog, in parallel\" --permission-mode bypassPermissions ...")
	cmd := exec.Command(filepath.Join(bin, "robota"), "-p", "Survey the package and draft a changelog, in parallel",
		"--provider", "script", "--script", script, "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("robota: %v\n%s", err, stderr.String())
	}
	transcript := stdout.String()
	if _, err := render(&stdout); err != nil {
		return 0, err
	}

	step(first+1, "What happened, checked by the demo")
	robotaPID := cmd.ProcessState.Pid()
	pids := map[string]string{}
	for _, name := range []string{"survey", "changelog"} {
		b, err := os.ReadFile(filepath.Join(tmp, name+".pid"))
		if err != nil {
			return 0, fmt.Errorf("the %s subagent left no pid: %w", name, err)
		}
		pids[name] = strings.TrimSpace(string(b))
	}
	if pids["survey"] == pids["changelog"] || pids["survey"] == fmt.Sprint(robotaPID) {
		return 0, fmt.Errorf("subagents ran in pids %v (robota %d): want two workers of their own", pids, robotaPID)
	}
	say("robota was pid %d; the subagents ran at the same time in robota-worker pids %s and %s", robotaPID, pids["survey"], pids["changelog"])
	trees, _ := filepath.Glob(filepath.Join(dir, ".robota", "worktrees", "*", "CHANGELOG.md"))
	if len(trees) != 1 {
		return 0, fmt.Errorf("the changelog worktree was not kept (found %v)", trees)
	}
	rel, _ := filepath.Rel(dir, filepath.Dir(trees[0]))
	branch, _ := exec.Command("git", "-C", filepath.Dir(trees[0]), "branch", "--show-current").Output()
	say("the changelog subagent's worktree was kept, with its change: %s (branch %s)", rel, strings.TrimSpace(string(branch)))
	if _, err := os.Stat(filepath.Join(dir, "CHANGELOG.md")); err == nil {
		return 0, fmt.Errorf("CHANGELOG.md landed in the project, not in the worktree")
	}
	say("the project's own checkout is untouched (no CHANGELOG.md there)")
	logs, _ := filepath.Glob(filepath.Join(dir, ".robota", "logs", "*", "subagents", "*.jsonl"))
	say("%d subagent transcripts under .robota/logs/<session>/subagents/", len(logs))
	if !strings.Contains(transcript, "killed by signal 9") {
		return 0, fmt.Errorf("the crashed worker was not reported")
	}
	say("the worker killed mid-job was reported as \"killed by signal 9\"; the session went on and the retry ran in a new worker")
	return first + 2, nil
}
