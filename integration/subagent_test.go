package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gitInit makes dir a git repository with one commit.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"},
		{"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "init"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}

// robota -p: the model's Agent call with two jobs runs both subagents at once, each in a
// robota-worker process of its own (not robota's), the second in a git worktree that is
// kept because it holds the subagent's file; stream-json shows the subagents' messages
// with the Agent call as parent_tool_use_id.
func TestHeadlessAgentJobsRunInParallelWorkers(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	p.writeFile(t, "README.md", "project\n")
	gitInit(t, p.Dir)
	script := p.script(t, "subagents", nil)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "delegate", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("robota: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	robotaPID := cmd.ProcessState.Pid()
	a, b := readPID(t, filepath.Join(p.Scripts, "a.pid")), readPID(t, filepath.Join(p.Scripts, "b.pid"))
	if a == b || a == robotaPID || b == robotaPID {
		t.Fatalf("subagent processes a=%d b=%d robota=%d: want two workers of their own", a, b, robotaPID)
	}
	for _, pid := range []int{a, b} {
		comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) != "robota-worker" {
			t.Fatalf("pid %d is %q, want robota-worker", pid, comm)
		}
	}
	bcwd, _ := os.ReadFile(filepath.Join(p.Scripts, "b.cwd"))
	worktree := strings.TrimSpace(string(bcwd))
	if !strings.Contains(worktree, filepath.Join(".robota", "worktrees")) {
		t.Fatalf("job b ran in %q, want a worktree under .robota/worktrees", worktree)
	}
	if got, err := os.ReadFile(filepath.Join(worktree, "b.txt")); err != nil || strings.TrimSpace(string(got)) != "from-b" {
		t.Fatalf("the worktree with job b's file was not kept: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "b.txt")); err == nil {
		t.Fatal("job b's file landed in the project, not in its worktree")
	}

	var result map[string]any
	parented := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("bad line %s: %v", sc.Bytes(), err)
		}
		if line["parent_tool_use_id"] == "toolu_agents" {
			parented++
		}
		if line["type"] == "result" {
			result = line
		}
	}
	if parented < 4 {
		t.Fatalf("%d stream-json lines carry parent_tool_use_id toolu_agents, want the subagents' messages (≥ 4):\n%s", parented, out)
	}
	if result["subtype"] != "success" || result["result"] != "Both subagents finished." {
		t.Fatalf("result %v", result)
	}
	for _, want := range []string{"a met b", "b met a", worktree} {
		if !bytes.Contains(out, []byte(want)) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}
