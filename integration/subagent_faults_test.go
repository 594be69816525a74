package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/internal/engineproc"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// toolResults maps the tool_use_id of every tool_result in stream-json output to its
// content and error flag.
func toolResults(t *testing.T, out string) map[string]struct {
	Content string
	IsError bool
} {
	t.Helper()
	res := map[string]struct {
		Content string
		IsError bool
	}{}
	for _, l := range jsonLines(t, out) {
		if l["type"] != "user" {
			continue
		}
		msg, _ := l["message"].(map[string]any)
		parts, _ := msg["content"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			if part["type"] != "tool_result" {
				continue
			}
			id, _ := part["tool_use_id"].(string)
			var content string
			switch c := part["content"].(type) {
			case string:
				content = c
			default:
				b, _ := json.Marshal(c)
				content = string(b)
			}
			isErr, _ := part["is_error"].(bool)
			res[id] = struct {
				Content string
				IsError bool
			}{content, isErr}
		}
	}
	return res
}

// lastResult is the result line of stream-json output.
func lastResult(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := jsonLines(t, out)
	if len(lines) == 0 || lines[len(lines)-1]["type"] != "result" {
		t.Fatalf("stream-json output does not end with a result:\n%s", out)
	}
	return lines[len(lines)-1]
}

// robota -p: a background `sleep 30` (Bash run_in_background, in a worker; the sleep is
// a child of the job's shell) is read through TaskOutput without blocking (running,
// not_ready) and stopped through TaskStop; the shell and the sleep are gone right after
// (checked by the run itself, while the worker lives, so the worker's own exit cannot be
// what killed them).
func TestHeadlessTaskOutputAndTaskStopOfBackgroundSleep(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	script := p.script(t, "taskstop", nil)
	start := time.Now()
	res := p.mustRun(t, "-p", "sleep in the background", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the run took %s: the sleep was waited for, not stopped", took)
	}
	results := toolResults(t, res.Stdout)
	if r := results["toolu_bg"]; r.IsError || !strings.Contains(r.Content, "bash_1") {
		t.Fatalf("background start: %+v\n%s", r, res.Stdout)
	}
	peek := results["toolu_peek"]
	for _, want := range []string{"<retrieval_status>not_ready</retrieval_status>", "<task_id>bash_1</task_id>", "<status>running</status>"} {
		if peek.IsError || !strings.Contains(peek.Content, want) {
			t.Fatalf("TaskOutput (block false) lacks %q: %+v", want, peek)
		}
	}
	stop := results["toolu_stop"]
	if stop.IsError || !strings.Contains(stop.Content, `"message":"Successfully stopped task: bash_1`) {
		t.Fatalf("TaskStop: %+v", stop)
	}
	if check := results["toolu_check"]; !strings.Contains(check.Content, "SLEEP-GONE") {
		t.Fatalf("the sleep's process outlived TaskStop: %+v", check)
	}
	if r := lastResult(t, res.Stdout); r["subtype"] != "success" || r["result"] != "The sleep was stopped." {
		t.Fatalf("result %v", r)
	}
	if pid := readPID(t, filepath.Join(p.Scripts, "sleep.pid")); engineproc.ProcessAlive(pid) {
		t.Fatalf("the background sleep (pid %d) is still alive", pid)
	}
}

// robota -p: the worker running a subagent is killed with SIGKILL while the subagent's
// Bash sleeps. The Bash's shell and sleep are ended too, the Agent call ends in a
// tool_result error naming the signal, the parent goes on, and its next Agent call runs
// in a new worker.
func TestHeadlessWorkerKilledMidJob(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	script := p.script(t, "workerkill", nil)
	endStrays(t, p, "victim-sh.pid", "victim-sleep.pid")
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "delegate", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	victimFile := filepath.Join(p.Scripts, "victim.pid")
	victim := waitPIDFile(t, victimFile, 20*time.Second)
	if comm := procComm(victim); comm != "robota-worker" || victim == cmd.Process.Pid {
		t.Fatalf("the subagent's parent process %d is %q, want a robota-worker (robota is %d)", victim, comm, cmd.Process.Pid)
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("robota after the worker's kill: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	// The killed worker's job processes (the Bash's shell and its sleep) are ended too.
	allGone(t, map[string]int{"the killed subagent's shell": readPID(t, filepath.Join(p.Scripts, "victim-sh.pid")),
		"its sleep": readPID(t, filepath.Join(p.Scripts, "victim-sleep.pid"))})
	out := stdout.String()
	killed := toolResults(t, out)["toolu_victim"]
	want := fmt.Sprintf("worker process (pid %d) killed by signal 9", victim)
	if !killed.IsError || !strings.Contains(killed.Content, want) {
		t.Fatalf("the killed subagent's Agent result is %+v, want an error with %q\n%s", killed, want, out)
	}
	second := readPID(t, filepath.Join(p.Scripts, "second.pid"))
	if second == victim || second == cmd.Process.Pid {
		t.Fatalf("the second subagent ran in pid %d (killed worker %d, robota %d), want a new worker", second, victim, cmd.Process.Pid)
	}
	if r := toolResults(t, out)["toolu_second"]; r.IsError || !strings.Contains(r.Content, "second done") {
		t.Fatalf("the Agent call after the crash: %+v", r)
	}
	res := lastResult(t, out)
	if res["subtype"] != "success" || res["result"] != "Recovered after the crash." {
		t.Fatalf("result %v", res)
	}
	// The session record keeps both tasks' snapshots, naming their transcripts.
	sessionID, _ := res["session_id"].(string)
	saved := p.recordedTasks(t, sessionID)
	if len(saved) != 2 {
		t.Fatalf("the record holds %d task snapshots, want the two subagents: %v", len(saved), saved)
	}
	for i, want := range []struct{ status, text string }{{"failed", "killed by signal 9"}, {"completed", "second done"}} {
		task := saved[i]
		got, _ := task["error"].(string)
		if task["status"] == "completed" {
			got, _ = task["result"].(string)
		}
		id, _ := task["id"].(string)
		transcript := filepath.Join(p.logsDir(), sessionID, "subagents", id+".jsonl")
		if task["kind"] != "agent" || task["status"] != want.status || !strings.Contains(got, want.text) || task["transcriptPath"] != transcript {
			t.Fatalf("saved task %d: %v; want %s with %q and transcriptPath %s", i, task, want.status, want.text, transcript)
		}
		if _, err := os.Stat(transcript); err != nil {
			t.Fatalf("saved task %d's transcript: %v", i, err)
		}
	}
}

// recordedTasks returns the background-task snapshots of a session's record, oldest first.
func (p *project) recordedTasks(t *testing.T, id string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(p.recordPath(id))
	if err != nil {
		t.Fatal(err)
	}
	ms := store.NewMemoryStore(store.Options{})
	ms.SetJournal(id, data)
	rec, err := ms.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, raw := range rec.BackgroundTasks {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("saved task %s: %v", raw, err)
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b map[string]any) int {
		x, _ := a["createdAt"].(string)
		y, _ := b["createdAt"].(string)
		return strings.Compare(x, y)
	})
	return out
}

// robota -p with provider keys in its environment: the worker running a subagent holds
// none (it asks robota for model calls); SubagentStart and SubagentStop hooks fire with
// Claude Code's fields, and the transcript they name is the subagent's JSONL log.
func TestHeadlessSubagentWorkerHasNoKeysAndHooksFire(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	hooks := filepath.Join(p.Scripts, "hooks.jsonl")
	hook := fmt.Sprintf("cat >> %s; echo >> %s", hooks, hooks)
	entry := []map[string]any{{"matcher": "", "hooks": []map[string]any{{"type": "command", "command": hook}}}}
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SubagentStart": entry, "SubagentStop": entry}})
	p.writeFile(t, filepath.Join(".claude", "settings.json"), string(settings))
	script := p.script(t, "subagent_env", nil)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "delegate", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	cmd.Env = append(cmd.Env, "ANTHROPIC_API_KEY=sk-ant-engine-only-1", "OPENAI_API_KEY=sk-openai-engine-only-2")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("robota: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	if r := lastResult(t, string(out)); r["subtype"] != "success" || r["result"] != "The subagent finished." {
		t.Fatalf("result %v", r)
	}
	// The Agent result's usage is counted in robota (the worker reports none).
	if r := toolResults(t, string(out))["toolu_env"]; r.IsError || !strings.Contains(r.Content, "tool_uses: 1\n") ||
		strings.Contains(r.Content, "subagent_tokens: 0\n") {
		t.Fatalf("Agent result %+v, want the subagent's one tool use and its tokens", r)
	}
	comm, err := os.ReadFile(filepath.Join(p.Scripts, "worker.comm"))
	if err != nil || strings.TrimSpace(string(comm)) != "robota-worker" {
		t.Fatalf("the subagent's Bash ran under %q (%v), want robota-worker", comm, err)
	}
	env, err := os.ReadFile(filepath.Join(p.Scripts, "worker.env"))
	if err != nil || !strings.Contains(string(env), "PATH=") {
		t.Fatalf("worker environment %q, %v", env, err)
	}
	for _, leak := range []string{"_API_KEY", "sk-ant-engine-only-1", "sk-openai-engine-only-2"} {
		if strings.Contains(string(env), leak) {
			t.Fatalf("the worker running the subagent holds %q:\n%s", leak, env)
		}
	}

	sessionID, _ := jsonLines(t, string(out))[0]["session_id"].(string)
	events := readHookInputs(t, hooks)
	if len(events) != 2 {
		t.Fatalf("hooks ran %d times, want SubagentStart and SubagentStop: %v", len(events), events)
	}
	start, stop := events[0], events[1]
	for _, in := range events { // Claude Code: the parent's transcript, the subagent's in agent_transcript_path
		if in["transcript_path"] != p.logPath(sessionID) || in["permission_mode"] != "bypassPermissions" {
			t.Fatalf("%v: transcript_path %v, permission_mode %v; want the parent's log %s and its mode",
				in["hook_event_name"], in["transcript_path"], in["permission_mode"], p.logPath(sessionID))
		}
	}
	agentID, _ := start["agent_id"].(string)
	if start["hook_event_name"] != "SubagentStart" || !strings.HasPrefix(agentID, "agent-") ||
		start["agent_type"] != "general-purpose" || start["session_id"] != sessionID || start["cwd"] != p.Dir {
		t.Fatalf("SubagentStart input %v (session %s)", start, sessionID)
	}
	transcript := filepath.Join(p.logsDir(), sessionID, "subagents", agentID+".jsonl")
	if stop["hook_event_name"] != "SubagentStop" || stop["agent_id"] != agentID || stop["agent_type"] != "general-purpose" ||
		stop["agent_transcript_path"] != transcript || stop["last_assistant_message"] != "Copied the environment." ||
		stop["stop_hook_active"] != false || stop["session_id"] != sessionID {
		t.Fatalf("SubagentStop input %v, want agent %s with transcript %s", stop, agentID, transcript)
	}
	data, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatalf("subagent transcript: %v", err)
	}
	for _, want := range []string{"env: copy the worker environment", "toolu_copy", "Copied the environment."} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("the transcript %s lacks %q:\n%s", transcript, want, data)
		}
	}
}

// readHookInputs parses the JSON objects the hook command appended, one a line.
func readHookInputs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("hook output: %v", err)
	}
	var out []map[string]any
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("hook input %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// waitPIDFile waits until path holds a pid.
func waitPIDFile(t *testing.T, path string, within time.Duration) int {
	t.Helper()
	pid, err := pidFile(path, within)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// pidFile waits until path holds a pid (for goroutines other than the test's).
func pidFile(path string, within time.Duration) (int, error) {
	deadline := time.Now().Add(within)
	for {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				return pid, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s was not written within %s", path, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// endStrays kills, when the test ends, the processes whose pids the named files in the
// scripts directory hold, if they still run: job processes of a worker killed with
// SIGKILL, should a test fail before it checks that they were ended, so no test leaks them.
func endStrays(t *testing.T, p *project, files ...string) {
	t.Cleanup(func() {
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(p.Scripts, f))
			if err != nil {
				continue
			}
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && engineproc.ProcessAlive(pid) {
				t.Logf("%s: pid %d outlived its killed worker; ending it", f, pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// procComm is the command name of pid ("" when it is gone).
func procComm(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b))
}

// robota -p killed with SIGKILL while a background command and a subagent run (each
// sleeping in a child of its shell): its workers, the shells and the sleeps all go.
func TestHeadlessKill9LeavesNoJobProcesses(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	script := p.script(t, "engine_kill", nil)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "sleep everywhere", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := jobPIDs(t, p)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	allGone(t, pids)
}

// robota -p: the worker running background commands is killed with SIGKILL while one
// sleeps; the command's shell and sleep are ended too, TaskOutput shows that task failed
// with the signal, and the next background command runs in a new worker.
func TestHeadlessProcessWorkerKilledMidJob(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	script := p.script(t, "processkill", nil)
	endStrays(t, p, "bg1-sh.pid", "bg1-sleep.pid")
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "sleep in the background", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := waitPIDFile(t, filepath.Join(p.Scripts, "worker1.pid"), 20*time.Second)
	if comm := procComm(first); comm != "robota-worker" {
		t.Fatalf("the background command's parent %d is %q, want robota-worker", first, comm)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Scripts, "killed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("robota after the worker's kill: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	allGone(t, map[string]int{"the killed command's shell": readPID(t, filepath.Join(p.Scripts, "bg1-sh.pid")),
		"its sleep": readPID(t, filepath.Join(p.Scripts, "bg1-sleep.pid"))})
	out := stdout.String()
	results := toolResults(t, out)
	want := fmt.Sprintf("worker process (pid %d) killed by signal 9", first)
	if r := results["toolu_out1"]; !strings.Contains(r.Content, "<status>failed</status>") || !strings.Contains(r.Content, want) {
		t.Fatalf("TaskOutput of the killed command: %+v, want failed naming %q", r, want)
	}
	if r := results["toolu_out2"]; !strings.Contains(r.Content, "<status>completed</status>") || !strings.Contains(r.Content, "second-run") {
		t.Fatalf("TaskOutput of the command after the crash: %+v", r)
	}
	if second := readPID(t, filepath.Join(p.Scripts, "worker2.pid")); second == first || second == cmd.Process.Pid {
		t.Fatalf("the second command ran under pid %d (killed worker %d, robota %d), want a new worker", second, first, cmd.Process.Pid)
	}
	if r := lastResult(t, out); r["subtype"] != "success" || r["result"] != "The background runner recovered." {
		t.Fatalf("result %v", r)
	}
}
