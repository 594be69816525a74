package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/internal/engineproc"
)

// taskWatch collects a session's background-task state changes from a Watch stream.
type taskWatch struct {
	mu     sync.Mutex
	states map[string][]robotav1.BackgroundTaskStatus // per task, consecutive repeats folded
	// progress is, per task, its tool starts and ends ("tool_start ID NAME") and the
	// current actions of its snapshots ("action …").
	progress map[string][]string
	text     map[string]string // per task, its text deltas joined (they may be coalesced)
	done     chan struct{}
	err      error
}

func watchTasks(ctx context.Context, t *testing.T, c robotav1.EngineServiceClient, id string) *taskWatch {
	t.Helper()
	stream, err := c.Watch(ctx, &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	// The watch has subscribed once its response headers came.
	if _, err := stream.Header(); err != nil {
		t.Fatal(err)
	}
	w := &taskWatch{states: map[string][]robotav1.BackgroundTaskStatus{}, progress: map[string][]string{}, text: map[string]string{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			resp, err := stream.Recv()
			if err != nil {
				if !errors.Is(err, io.EOF) && ctx.Err() == nil {
					w.err = err
				}
				return
			}
			be := resp.GetEvent().GetBackgroundTaskEvent()
			if be == nil {
				continue
			}
			w.mu.Lock()
			p := w.progress[be.GetTaskId()]
			switch {
			case be.GetToolStart() != nil:
				p = append(p, "tool_start "+be.GetToolStart().GetToolCallId()+" "+be.GetToolStart().GetToolName())
			case be.GetToolEnd() != nil:
				p = append(p, "tool_end "+be.GetToolEnd().GetToolCallId()+" "+be.GetToolEnd().GetToolName())
			case be.GetTextDelta() != "":
				w.text[be.GetTaskId()] += be.GetTextDelta()
			case be.GetStateChanged().GetCurrentAction() != "":
				p = append(p, "action "+be.GetStateChanged().GetCurrentAction())
			}
			w.progress[be.GetTaskId()] = p
			w.mu.Unlock()
			st := be.GetStateChanged()
			if st == nil {
				continue
			}
			w.mu.Lock()
			seq := w.states[st.GetTaskId()]
			if len(seq) == 0 || seq[len(seq)-1] != st.GetStatus() {
				w.states[st.GetTaskId()] = append(seq, st.GetStatus())
			}
			w.mu.Unlock()
		}
	}()
	return w
}

// waitStatus waits until task's states end with want.
func (w *taskWatch) waitStatus(t *testing.T, task string, want robotav1.BackgroundTaskStatus, within time.Duration) []robotav1.BackgroundTaskStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		w.mu.Lock()
		seq := slices.Clone(w.states[task])
		w.mu.Unlock()
		if len(seq) > 0 && seq[len(seq)-1] == want {
			return seq
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: Watch showed %v, want it to reach %v (watch error %v)", task, seq, want, w.err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasProgress reports whether task's progress holds an entry starting with each prefix.
func (w *taskWatch) hasProgress(task string, prefixes ...string) ([]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	got := slices.Clone(w.progress[task])
	for _, pre := range prefixes {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, pre) }) {
			return got, false
		}
	}
	return got, true
}

// textOf is task's streamed text so far.
func (w *taskWatch) textOf(task string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text[task]
}

// isSubsequence reports whether want appears in got in order.
func isSubsequence(want, got []robotav1.BackgroundTaskStatus) bool {
	i := 0
	for _, s := range got {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	return i == len(want)
}

// Through robota-engine, with provider keys in its environment: the model's Agent call
// with two jobs runs both subagents at once, each in a worker process of its own (not the
// engine), the second in a git worktree that is kept and listed with its branch. Each subagent's Bash asks for approval (default mode); the ask reaches the
// client as a permission_request naming the subagent's task, the client approves it with
// RespondPermission and the command runs. Watch shows each task go running →
// waiting_permission → running → completed, with progress (the Bash's start and end, a
// snapshot whose current action is the Bash, the answer's text); ListBackgroundTasks lists
// both agent tasks with their workers' pids; the workers' environment holds no API key.
func TestEngineAgentJobsAskThroughTheParentsClient(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-engine-only-1")
	t.Setenv("OPENAI_API_KEY", "sk-openai-engine-only-2")
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	t.Setenv("HOME", p.Home)
	p.writeFile(t, "README.md", "project\n")
	gitInit(t, p.Dir)
	script := p.script(t, "engine_subagents", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, c := engineClient(t, t.TempDir())
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: p.Dir, Provider: "script", Script: script,
		PermissionMode: robotav1.PermissionMode_PERMISSION_MODE_DEFAULT})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetSession().GetSessionId()
	watch := watchTasks(ctx, t, c, id)

	stream, err := c.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: "delegate"})
	if err != nil {
		t.Fatal(err)
	}
	var asks []*robotav1.PermissionRequestEvent
	var last *robotav1.SessionEvent
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("submit: %v", err)
		}
		for _, ev := range resp.GetEvents() {
			last = ev
			if pr := ev.GetPermissionRequest(); pr != nil {
				asks = append(asks, pr)
				if _, err := c.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id,
					RequestId: pr.GetRequestId(), Answer: robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW}); err != nil {
					t.Fatalf("RespondPermission: %v", err)
				}
			}
		}
	}
	if got := last.GetComplete().GetResult().GetResponse(); got != "Both subagents finished." {
		t.Fatalf("the prompt ended with %v, want the answer after both subagents met", last)
	}

	list, err := c.ListBackgroundTasks(ctx, &robotav1.ListBackgroundTasksRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.GetTasks()) != 2 {
		t.Fatalf("ListBackgroundTasks: %v, want the two agent tasks", list.GetTasks())
	}
	var taskIDs []string
	taskPIDs := map[string]int{} // by label
	labelTasks := map[string]string{}
	labelled := map[string]*robotav1.BackgroundTaskState{}
	for _, task := range list.GetTasks() {
		if task.GetKind() != robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_AGENT ||
			task.GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED ||
			!strings.HasPrefix(task.GetTaskId(), "agent-") || !strings.Contains(task.GetLabel(), "job ") {
			t.Fatalf("listed task %v, want a completed agent task", task)
		}
		taskIDs = append(taskIDs, task.GetTaskId())
		taskPIDs[task.GetLabel()] = int(task.GetPid())
		labelTasks[task.GetLabel()] = task.GetTaskId()
		labelled[task.GetLabel()] = task
	}

	if len(asks) != 2 {
		t.Fatalf("%d permission requests reached the client, want one per subagent's Bash: %v", len(asks), asks)
	}
	var askedBy []string
	for _, a := range asks {
		if a.GetToolName() != "Bash" || !slices.Contains(taskIDs, a.GetTaskId()) {
			t.Fatalf("permission request %v: want a Bash ask naming one of the tasks %v", a, taskIDs)
		}
		askedBy = append(askedBy, a.GetTaskId())
	}
	if askedBy[0] == askedBy[1] {
		t.Fatalf("both asks name task %s, want one per subagent", askedBy[0])
	}
	want := []robotav1.BackgroundTaskStatus{robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING,
		robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_WAITING_PERMISSION,
		robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING,
		robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED}
	for _, task := range taskIDs {
		if seq := watch.waitStatus(t, task, want[len(want)-1], 10*time.Second); !isSubsequence(want, seq) {
			t.Fatalf("task %s: Watch showed %v, want %v in that order", task, seq, want)
		}
	}
	// Progress: the subagent's Bash start and end, its answer's text, and a snapshot
	// whose current action is the running Bash (each Bash lasts at least 0.3 s, so the
	// one that finds the other's file at once is still seen running: CI saw it missed).
	for label, task := range labelTasks {
		job := strings.TrimPrefix(label, "general-purpose: job ")
		answer := map[string]string{"a": "a met b", "b": "b met a"}[job]
		if got, ok := watch.hasProgress(task, "tool_start toolu_"+job+" Bash", "tool_end toolu_"+job+" Bash",
			"action Bash echo $PPID > "); !ok {
			t.Fatalf("task %s (%s): Watch progress %q lacks the Bash start, end or current action", task, label, got)
		}
		if text := watch.textOf(task); !strings.Contains(text, answer) {
			t.Fatalf("task %s (%s): Watch streamed the text %q, want the answer %q", task, label, text, answer)
		}
	}

	enginePID := e.Cmd.Process.Pid
	a, b := readPID(t, filepath.Join(p.Scripts, "a.pid")), readPID(t, filepath.Join(p.Scripts, "b.pid"))
	if a == b || a == enginePID || b == enginePID {
		t.Fatalf("subagent processes a=%d b=%d engine=%d: want two workers of their own", a, b, enginePID)
	}
	// Job b ran in a git worktree, kept (with its branch) because it holds b's file.
	bcwd, _ := os.ReadFile(filepath.Join(p.Scripts, "b.cwd"))
	worktree := strings.TrimSpace(string(bcwd))
	taskB := labelled["general-purpose: job b"]
	if !strings.HasPrefix(worktree, filepath.Join(p.Dir, ".robota", "worktrees")+string(filepath.Separator)) ||
		taskB.GetWorktreePath() != worktree || taskB.GetBranchName() == "" || labelled["general-purpose: job a"].GetWorktreePath() != "" {
		t.Fatalf("job b ran in %q; listed worktree %q branch %q: want the kept worktree under .robota/worktrees for b only",
			worktree, taskB.GetWorktreePath(), taskB.GetBranchName())
	}
	if got, err := os.ReadFile(filepath.Join(worktree, "b.txt")); err != nil || strings.TrimSpace(string(got)) != "from-b" {
		t.Fatalf("the worktree lacks job b's file: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "b.txt")); err == nil {
		t.Fatal("job b's file landed in the project, not in its worktree")
	}
	if taskPIDs["general-purpose: job a"] != a || taskPIDs["general-purpose: job b"] != b {
		t.Fatalf("ListBackgroundTasks pids %v, want the workers the subagents ran in (a=%d, b=%d)", taskPIDs, a, b)
	}
	for _, pid := range []int{a, b} {
		if comm := procComm(pid); comm != "" && comm != "robota-worker" {
			t.Fatalf("pid %d is %q, want robota-worker", pid, comm)
		}
	}
	env, err := os.ReadFile(filepath.Join(p.Scripts, "a.env"))
	if err != nil || !strings.Contains(string(env), "PATH=") {
		t.Fatalf("worker environment %q, %v", env, err)
	}
	if engineEnv := readEnviron(t, enginePID); !strings.Contains(engineEnv, "ANTHROPIC_API_KEY=sk-ant-engine-only-1") {
		t.Fatal("test setup: the engine lacks ANTHROPIC_API_KEY")
	}
	for _, leak := range []string{"_API_KEY", "sk-ant-engine-only-1", "sk-openai-engine-only-2"} {
		if strings.Contains(string(env), leak) {
			t.Fatalf("the worker running subagent a holds %q:\n%s", leak, env)
		}
	}
}

// submitTools submits prompt (no permission asks expected: answered with deny) while
// during runs beside it, and returns the session's tool_end states by call id and the
// prompt's last event.
func submitTools(ctx context.Context, t *testing.T, c robotav1.EngineServiceClient, id, prompt string, during func()) (map[string]*robotav1.ToolState, *robotav1.SessionEvent) {
	t.Helper()
	stream, err := c.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	if during != nil {
		wg.Add(1)
		go func() { defer wg.Done(); during() }()
	}
	defer wg.Wait()
	ends := map[string]*robotav1.ToolState{}
	var last *robotav1.SessionEvent
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return ends, last
		}
		if err != nil {
			t.Errorf("submit %q: %v", prompt, err)
			return ends, last
		}
		for _, ev := range resp.GetEvents() {
			last = ev
			if te := ev.GetToolEnd(); te != nil {
				ends[te.GetTool().GetToolCallId()] = te.GetTool()
			}
			if pr := ev.GetPermissionRequest(); pr != nil {
				t.Errorf("unexpected permission request %v", pr)
				_, _ = c.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id,
					RequestId: pr.GetRequestId(), Answer: robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY})
			}
		}
	}
}

// historyResults returns the tool results of a session's history by tool_use_id (the
// text the model read).
func historyResults(ctx context.Context, t *testing.T, c robotav1.EngineServiceClient, id string) map[string]*robotav1.ToolResultPart {
	t.Helper()
	hist, err := c.GetHistory(ctx, &robotav1.GetHistoryRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*robotav1.ToolResultPart{}
	for _, e := range hist.GetEntries() {
		for _, part := range e.GetMessage().GetParts() {
			if r := part.GetToolResult(); r != nil {
				out[r.GetToolUseId()] = r
			}
		}
	}
	return out
}

// bypassSession starts an engine and a bypassPermissions session in p running script.
func bypassSession(ctx context.Context, t *testing.T, p *project, script string) (robotav1.EngineServiceClient, string, int) {
	t.Helper()
	t.Setenv("HOME", p.Home)
	e, c := engineClient(t, t.TempDir())
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: p.Dir, Provider: "script", Script: script,
		PermissionMode: robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	if err != nil {
		t.Fatal(err)
	}
	return c, created.GetSession().GetSessionId(), e.Cmd.Process.Pid
}

// Through robota-engine: a background `sleep 30` read through TaskOutput (block false:
// running, not_ready) and stopped through TaskStop; the job's shell and its sleep are
// gone at once, and the engine lists the process task as cancelled.
func TestEngineTaskOutputAndTaskStopOfBackgroundSleep(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, id, _ := bypassSession(ctx, t, p, p.script(t, "taskstop", nil))
	ends, last := submitTools(ctx, t, c, id, "sleep in the background", nil)
	if got := last.GetComplete().GetResult().GetResponse(); got != "The sleep was stopped." {
		t.Fatalf("the prompt ended with %v", last)
	}
	for _, call := range []string{"toolu_bg", "toolu_peek", "toolu_stop", "toolu_check"} {
		if ends[call].GetOutcome() != robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS {
			t.Fatalf("%s ended with %v", call, ends[call])
		}
	}
	results := historyResults(ctx, t, c, id)
	if out := results["toolu_bg"].GetContent(); !strings.Contains(out, "bash_1") {
		t.Fatalf("background start: %v", results["toolu_bg"])
	}
	for _, want := range []string{"<retrieval_status>not_ready</retrieval_status>", "<status>running</status>"} {
		if !strings.Contains(results["toolu_peek"].GetContent(), want) {
			t.Fatalf("TaskOutput (block false) lacks %q: %v", want, results["toolu_peek"])
		}
	}
	if !strings.Contains(results["toolu_stop"].GetContent(), "Successfully stopped task: bash_1") {
		t.Fatalf("TaskStop: %v", results["toolu_stop"])
	}
	if !strings.Contains(results["toolu_check"].GetContent(), "SLEEP-GONE") {
		t.Fatalf("the sleep outlived TaskStop: %v", results["toolu_check"])
	}
	got, err := c.GetBackgroundTask(ctx, &robotav1.GetBackgroundTaskRequest{SessionId: id, TaskId: "bash_1"})
	if err != nil {
		t.Fatal(err)
	}
	if task := got.GetTask(); task.GetKind() != robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_PROCESS ||
		task.GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED {
		t.Fatalf("bash_1 after TaskStop: %v, want a cancelled process task", task)
	}
	for _, f := range []string{"sh.pid", "sleep.pid"} {
		if pid := readPID(t, filepath.Join(p.Scripts, f)); engineproc.ProcessAlive(pid) {
			t.Fatalf("%s %d is still alive", f, pid)
		}
	}
}

// Through robota-engine: the worker running a subagent is killed with SIGKILL (its pid
// read from ListBackgroundTasks) while the subagent's Bash sleeps. The Bash's shell and
// sleep are ended too, the task fails with a reason naming the signal, the Agent call
// ends in an error, the prompt completes, and the next Agent call runs in a new worker.
func TestEngineWorkerKilledMidJob(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, id, enginePID := bypassSession(ctx, t, p, p.script(t, "workerkill", nil))
	endStrays(t, p, "victim-sh.pid", "victim-sleep.pid")
	watch := watchTasks(ctx, t, c, id)
	var victim int
	var victimTask string
	ends, last := submitTools(ctx, t, c, id, "delegate", func() {
		written, err := pidFile(filepath.Join(p.Scripts, "victim.pid"), 20*time.Second)
		if err != nil {
			t.Error(err)
			return
		}
		list, err := c.ListBackgroundTasks(ctx, &robotav1.ListBackgroundTasksRequest{SessionId: id,
			Statuses: []robotav1.BackgroundTaskStatus{robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING}})
		if err != nil || len(list.GetTasks()) != 1 {
			t.Errorf("running tasks: %v, %v", list, err)
			return
		}
		victim, victimTask = int(list.GetTasks()[0].GetPid()), list.GetTasks()[0].GetTaskId()
		if victim != written || victim == enginePID || procComm(victim) != "robota-worker" {
			t.Errorf("the running task's pid %d (%q): want the robota-worker the subagent runs in (%d)", victim, procComm(victim), written)
			return
		}
		if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
			t.Error(err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	allGone(t, map[string]int{"the killed subagent's shell": readPID(t, filepath.Join(p.Scripts, "victim-sh.pid")),
		"its sleep": readPID(t, filepath.Join(p.Scripts, "victim-sleep.pid"))})
	want := fmt.Sprintf("worker process (pid %d) killed by signal 9", victim)
	results := historyResults(ctx, t, c, id)
	if ev, r := ends["toolu_victim"], results["toolu_victim"]; ev.GetOutcome() != robotav1.ToolOutcome_TOOL_OUTCOME_ERROR ||
		!strings.Contains(ev.GetError(), want) || !r.GetIsError() || !strings.Contains(r.GetContent(), want) {
		t.Fatalf("the killed subagent's Agent call ended with %v, result %v; want an error naming %q", ev, r, want)
	}
	if got := last.GetComplete().GetResult().GetResponse(); got != "Recovered after the crash." {
		t.Fatalf("the prompt ended with %v", last)
	}
	got, err := c.GetBackgroundTask(ctx, &robotav1.GetBackgroundTaskRequest{SessionId: id, TaskId: victimTask})
	if err != nil {
		t.Fatal(err)
	}
	if task := got.GetTask(); task.GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_FAILED ||
		!strings.Contains(task.GetError(), "killed by signal 9") {
		t.Fatalf("the killed task: %v, want failed naming the signal", task)
	}
	watch.waitStatus(t, victimTask, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_FAILED, 5*time.Second)
	second := readPID(t, filepath.Join(p.Scripts, "second.pid"))
	if second == victim || second == enginePID {
		t.Fatalf("the second subagent ran in pid %d (killed worker %d, engine %d), want a new worker", second, victim, enginePID)
	}
	if ev, r := ends["toolu_second"], results["toolu_second"]; ev.GetOutcome() != robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS ||
		r.GetIsError() || !strings.Contains(r.GetContent(), "second done") {
		t.Fatalf("the Agent call after the crash: %v, result %v", ev, r)
	}
}

// robota-engine stopped with SIGTERM while a background command and a subagent run: it
// exits 0 and takes the workers, the shells and the sleeps with it.
func TestEngineSIGTERMStopsJobProcesses(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	e, _, pids := startJobs(t, p)
	if err := e.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := e.Wait(15 * time.Second); err != nil || code != 0 {
		t.Fatalf("engine after SIGTERM: exit %d, %v\nlog:\n%s", code, err, e.RawLog())
	}
	allGone(t, pids)
}

// startJobs starts an engine and a session running the engine_kill script in p, and
// waits until its commands have recorded their pids, which it returns.
func startJobs(t *testing.T, p *project) (*engineproc.Proc, engineproc.LogEntry, map[string]int) {
	t.Helper()
	t.Setenv("HOME", p.Home)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	e, ready := startEngine(t, "--state-dir", t.TempDir())
	conn, err := e.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := robotav1.NewEngineServiceClient(conn)
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: p.Dir, Provider: "script",
		Script: p.script(t, "engine_kill", nil), PermissionMode: robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := c.Submit(ctx, &robotav1.SubmitRequest{SessionId: created.GetSession().GetSessionId(), Prompt: "sleep everywhere"})
	if err != nil {
		t.Fatal(err)
	}
	go func() { // drain until the engine's end cuts the stream
		for {
			if _, err := stream.Recv(); err != nil {
				return
			}
		}
	}()
	return e, ready, jobPIDs(t, p)
}

// robota-engine killed with SIGKILL while a background command and a subagent run (each
// sleeping in a child of its shell): the workers, the shells and the sleeps all go, none
// is left orphaned.
func TestEngineKill9LeavesNoJobProcesses(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	e, ready, pids := startJobs(t, p)
	if pids["bg-worker"] != ready.Int("pid") {
		t.Fatalf("the background command runs under pid %d, want the engine's process-job worker %d", pids["bg-worker"], ready.Int("pid"))
	}
	if err := e.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	allGone(t, pids)
}

// jobPIDs waits for the pids the engine_kill script's commands record and checks that
// they run, the workers being robota-workers.
func jobPIDs(t *testing.T, p *project) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for _, f := range []string{"bg-worker", "bg-sh", "bg-sleep", "agent-worker", "agent-sh", "agent-sleep"} {
		pids[f] = waitPIDFile(t, filepath.Join(p.Scripts, f+".pid"), 20*time.Second)
	}
	for name, pid := range pids {
		if !engineproc.ProcessAlive(pid) {
			t.Fatalf("%s (pid %d) is not running before the kill", name, pid)
		}
	}
	for _, w := range []string{"bg-worker", "agent-worker"} {
		if comm := procComm(pids[w]); comm != "robota-worker" {
			t.Fatalf("%s %d is %q, want robota-worker", w, pids[w], comm)
		}
	}
	return pids
}

// allGone waits up to 5 s for every process of pids to be gone (or a zombie).
func allGone(t *testing.T, pids map[string]int) {
	t.Helper()
	if err := goneWithin(pids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

// goneWithin waits for every process of pids to be gone (or a zombie); the ones still
// there after within are killed, so they do not outlive the test, and named in the error.
func goneWithin(pids map[string]int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		var alive []string
		for name, pid := range pids {
			if engineproc.ProcessAlive(pid) {
				alive = append(alive, fmt.Sprintf("%s (pid %d)", name, pid))
			}
		}
		if len(alive) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			slices.Sort(alive)
			for _, pid := range pids {
				if engineproc.ProcessAlive(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return fmt.Errorf("still running %s later: %s", within, strings.Join(alive, ", "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Through robota-engine's background-task RPCs: a running background command's output so
// far is read with ReadBackgroundTaskLog; CancelBackgroundTask stops it and a running
// subagent, killing each one's whole process group (shell and sleep); the Agent call
// ends in an error giving the reason, the prompt completes, and the cancelled command's
// log stays readable.
func TestEngineCancelBackgroundTasksKillsTheirGroups(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, id, _ := bypassSession(ctx, t, p, p.script(t, "engine_cancel", nil))
	const reason = "the client gave up"
	pids := map[string]int{}
	var agentTask string
	ends, last := submitTools(ctx, t, c, id, "sleep everywhere", func() {
		for _, f := range []string{"bg-sh", "bg-sleep", "agent-sh", "agent-sleep"} {
			pid, err := pidFile(filepath.Join(p.Scripts, f+".pid"), 20*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			pids[f] = pid
		}
		if log := readTaskLog(ctx, t, c, id, "bash_1", "first-output"); !strings.Contains(log, "first-output") {
			t.Errorf("ReadBackgroundTaskLog of the running command: %q", log)
		}
		list, err := c.ListBackgroundTasks(ctx, &robotav1.ListBackgroundTasksRequest{SessionId: id})
		if err != nil {
			t.Error(err)
			return
		}
		for _, task := range list.GetTasks() {
			if task.GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING {
				t.Errorf("task %v is not running before the cancel", task)
			}
			if task.GetKind() == robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_AGENT {
				agentTask = task.GetTaskId()
			}
			got, err := c.CancelBackgroundTask(ctx, &robotav1.CancelBackgroundTaskRequest{SessionId: id, TaskId: task.GetTaskId(), Reason: reason})
			if err != nil {
				t.Errorf("CancelBackgroundTask %s: %v", task.GetTaskId(), err)
			} else if got.GetTask().GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED {
				t.Errorf("CancelBackgroundTask returned %v, want it cancelled", got.GetTask())
			}
		}
		if err := goneWithin(pids, 5*time.Second); err != nil { // at once, not when the prompt ends
			t.Errorf("after CancelBackgroundTask: %v", err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	if agentTask == "" {
		t.Fatal("no agent task was listed while the subagent ran")
	}
	if ev := ends["toolu_agent"]; ev.GetOutcome() == robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS || !strings.Contains(ev.GetError(), reason) {
		t.Fatalf("the cancelled subagent's Agent call ended with %v, want an error giving %q", ev, reason)
	}
	if got := last.GetComplete().GetResult().GetResponse(); got != "The subagent was cancelled." {
		t.Fatalf("the prompt ended with %v", last)
	}
	for _, task := range []string{"bash_1", agentTask} {
		got, err := c.GetBackgroundTask(ctx, &robotav1.GetBackgroundTaskRequest{SessionId: id, TaskId: task})
		if err != nil || got.GetTask().GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED {
			t.Fatalf("task %s after the cancel: %v, %v", task, got.GetTask(), err)
		}
	}
	if log := readTaskLog(ctx, t, c, id, "bash_1", ""); !strings.Contains(log, "first-output") {
		t.Fatalf("the cancelled command's log: %q, want its output so far", log)
	}
}

// readTaskLog reads a task's log from the start, page by page, until its end or until it
// holds want (polling for up to 10 s while the task runs).
func readTaskLog(ctx context.Context, t *testing.T, c robotav1.EngineServiceClient, id, task, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var log []byte
	var offset int64
	for {
		page, err := c.ReadBackgroundTaskLog(ctx, &robotav1.ReadBackgroundTaskLogRequest{SessionId: id, TaskId: task, Offset: offset})
		if err != nil {
			t.Errorf("ReadBackgroundTaskLog %s: %v", task, err)
			return string(log)
		}
		log, offset = append(log, page.GetData()...), page.GetNextOffset()
		if page.GetEof() || (want != "" && strings.Contains(string(log), want)) || time.Now().After(deadline) {
			return string(log)
		}
		if len(page.GetData()) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
}
