package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/internal/engineproc"
)

// natsEngine starts robota-engine with an embedded NATS server on a free loopback port
// (extra may say otherwise) with credentials for the host agents h1, h2 and h3, and
// returns it, a client, the server's URL and the directory of the hosts' credentials
// files (NAME.creds).
func natsEngine(t *testing.T, extra ...string) (*engineproc.Proc, robotav1.EngineServiceClient, string, string) {
	t.Helper()
	sock := filepath.Join(shortTempDir(t), "e.sock")
	args := append([]string{"--state-dir", t.TempDir(), "--nats", "embedded", "--nats-listen", "127.0.0.1:0",
		"--nats-hosts", "h1,h2,h3"}, extra...)
	p, err := engineproc.Start(binDir, sock, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill()
		_, _ = p.Wait(5 * time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ns, _, err := p.WaitMsg(ctx, 0, "embedded NATS server listening")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.WaitMsg(ctx, 0, "engine listening"); err != nil {
		t.Fatal(err)
	}
	conn, err := p.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	url, _ := ns["url"].(string)
	dir, _ := ns["host_creds_dir"].(string)
	return p, robotav1.NewEngineServiceClient(conn), url, dir
}

// hostAgent starts `robota-worker host` as name, with its own credentials file from
// credsDir, and waits until it takes jobs.
func hostAgent(t *testing.T, url, credsDir, name string, extra ...string) *engineproc.Proc {
	t.Helper()
	return hostAgentIn(t, nil, url, credsDir, name, extra...)
}

// hostAgentIn is hostAgent run through wrap (engineproc.StartHostIn).
func hostAgentIn(t *testing.T, wrap []string, url, credsDir, name string, extra ...string) *engineproc.Proc {
	t.Helper()
	creds := filepath.Join(credsDir, name+".creds")
	h, err := engineproc.StartHostIn(wrap, binDir, url, name, nil, append([]string{"--creds", creds}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.KillGroup()
		_, _ = h.Wait(5 * time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, _, err := h.WaitMsg(ctx, 0, "host agent taking jobs"); err != nil {
		t.Fatalf("host agent %s: %v\n%s", name, err, h.RawLog())
	}
	return h
}

// placement is what Watch showed of one task: every (host, attempt) it ran as, and how
// many times it reached each terminal state.
type placement struct {
	hosts     []string // "host#attempt", consecutive repeats folded
	completed int
	failed    int
	last      *robotav1.BackgroundTaskState
}

type placements struct {
	mu    sync.Mutex
	tasks map[string]*placement
	err   error
}

func watchPlacements(ctx context.Context, t *testing.T, c robotav1.EngineServiceClient, id string) *placements {
	t.Helper()
	stream, err := c.Watch(ctx, &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Header(); err != nil {
		t.Fatal(err)
	}
	w := &placements{tasks: map[string]*placement{}}
	go func() {
		for {
			resp, err := stream.Recv()
			if err != nil {
				if !errors.Is(err, io.EOF) && ctx.Err() == nil {
					w.mu.Lock()
					w.err = err
					w.mu.Unlock()
				}
				return
			}
			st := resp.GetEvent().GetBackgroundTaskEvent().GetStateChanged()
			if st == nil {
				continue
			}
			w.mu.Lock()
			p := w.tasks[st.GetTaskId()]
			if p == nil {
				p = &placement{}
				w.tasks[st.GetTaskId()] = p
			}
			if st.GetHost() != "" {
				where := fmt.Sprintf("%s#%d", st.GetHost(), st.GetAttempt())
				if len(p.hosts) == 0 || p.hosts[len(p.hosts)-1] != where {
					p.hosts = append(p.hosts, where)
				}
			}
			switch st.GetStatus() {
			case robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED:
				p.completed++
			case robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_FAILED:
				p.failed++
			}
			p.last = st
			w.mu.Unlock()
		}
	}()
	return w
}

func (w *placements) snapshot() map[string]placement {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]placement, len(w.tasks))
	for id, p := range w.tasks {
		out[id] = placement{hosts: append([]string(nil), p.hosts...), completed: p.completed, failed: p.failed, last: p.last}
	}
	return out
}

// natsJobsScript is a parent turn of n background commands (every tenth a long one, so
// a host is caught mid-job), a foreground wait for the test's go-ahead file, and an
// Agent call of m subagent jobs, each of which runs a Bash on its host and answers.
func natsJobsScript(p *project, n, m int) string {
	var b strings.Builder
	b.WriteString("name: nats-jobs\nturns:\n  - text: \"Spreading the commands.\"\n    toolCalls:\n")
	for i := range n {
		sleep := "0.2"
		if i%10 == 0 {
			sleep = "3"
		}
		fmt.Fprintf(&b, "      - {id: toolu_bg%d, name: Bash, input: {command: \"sleep %s; echo done-%d\", run_in_background: true}}\n", i, sleep, i)
	}
	fmt.Fprintf(&b, "  - text: \"Waiting.\"\n    toolCalls:\n      - {id: toolu_wait, name: Bash, input: {command: \"for i in $(seq 600); do [ -f %s/go ] && break; sleep 0.1; done; echo waited\"}}\n", p.Scripts)
	b.WriteString("  - text: \"Delegating.\"\n    toolCalls:\n      - id: toolu_agents\n        name: Agent\n        input:\n          jobs:\n")
	for i := range m {
		fmt.Fprintf(&b, "            - {description: \"sub %d\", prompt: \"sub-%d: run it\"}\n", i, i)
	}
	b.WriteString("  - text: \"All done.\"\nagents:\n  general-purpose:\n")
	for i := range m {
		fmt.Fprintf(&b, "    - when: {lastUserContains: \"sub-%d:\"}\n      toolCalls:\n        - {id: toolu_s%d, name: Bash, input: {command: \"echo out-%d\"}}\n", i, i, i)
	}
	for i := range m {
		fmt.Fprintf(&b, "    - when: {lastUserContains: \"sub-%d:\", lastToolResultContains: \"out-%d\"}\n      text: \"sub %d finished\"\n", i, i, i)
	}
	return b.String()
}

// An engine with an embedded NATS server and three host agents: 100 background
// commands and 10 subagent jobs spread over the hosts; one host agent's process group
// is killed while it runs a job. Every job completes exactly once as the client sees
// it (one completed state, the final attempt's log), none is lost, and the killed
// host's job finishes on another host as a later attempt.
func TestNATSJobsSurviveAKilledHost(t *testing.T) {
	const commands, subagents = 100, 10
	p := newProject(t)
	t.Setenv("HOME", p.Home)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// As root, each host agent runs in a network namespace of its own and reaches the
	// engine's NATS server over a veth pair with mutual TLS (hostNets).
	nets, why := newHostNets(t, 3)
	engineArgs := []string{"--workers", "0", "--dispatch", "remote", "--nats-job-timeout", "2s"}
	if nets != nil {
		engineArgs = append(engineArgs, nets.engineArgs()...)
	} else {
		t.Logf("host agents share the engine's network namespace: %s", why)
	}
	e, c, url, creds := natsEngine(t, engineArgs...)
	hosts := map[string]*engineproc.Proc{}
	for i := range 3 {
		name := hostName(i)
		if nets != nil {
			hosts[name] = hostAgentIn(t, nets.wrap(i), nets.url(i, url), creds, name,
				append([]string{"--slots", "6", "--job-timeout", "2s"}, nets.tlsArgs(i)...)...)
			continue
		}
		hosts[name] = hostAgent(t, url, creds, name, "--slots", "6", "--job-timeout", "2s")
	}
	script := p.writeScript(t, "nats_jobs.yaml", natsJobsScript(p, commands, subagents))
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: p.Dir, Provider: "script", Script: script,
		PermissionMode: robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetSession().GetSessionId()
	watch := watchPlacements(ctx, t, c, id)
	type outcome struct {
		answer string
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		_, last := submitAnswering(ctx, t, c, id, "spread", robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW)
		done <- outcome{answer: last.GetComplete().GetResult().GetResponse()}
	}()

	// Kill h1 (its agent and workers, as a crashed machine) while it runs a long command.
	var victim string
	for victim == "" {
		if ctx.Err() != nil {
			t.Fatalf("no long command ran on h1\nengine log:\n%s", e.RawLog())
		}
		list, err := c.ListBackgroundTasks(ctx, &robotav1.ListBackgroundTasksRequest{SessionId: id})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range list.GetTasks() {
			if task.GetHost() == "h1" && task.GetPid() != 0 && strings.HasPrefix(task.GetLabel(), "sleep 3") &&
				task.GetStatus() == robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING {
				victim = task.GetTaskId()
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	killedAt := time.Now()
	hosts["h1"].KillGroup()
	if err := os.WriteFile(filepath.Join(p.Scripts, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	var got outcome
	select {
	case got = <-done:
	case <-ctx.Done():
		t.Fatalf("the prompt did not end\nengine log:\n%s", e.RawLog())
	}
	if got.answer != "All done." {
		t.Fatalf("the prompt ended with %q, want the answer after the subagents\nengine log:\n%s", got.answer, e.RawLog())
	}
	// Every background command ends; wait for the stragglers.
	var list *robotav1.ListBackgroundTasksResponse
	for {
		list, err = c.ListBackgroundTasks(ctx, &robotav1.ListBackgroundTasksRequest{SessionId: id})
		if err != nil {
			t.Fatal(err)
		}
		running := 0
		for _, task := range list.GetTasks() {
			switch task.GetStatus() {
			case robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_QUEUED, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING:
				running++
			}
		}
		if running == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%d tasks still running\nengine log:\n%s", running, e.RawLog())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := len(list.GetTasks()); n != commands+subagents {
		t.Fatalf("%d tasks listed, want %d", n, commands+subagents)
	}
	time.Sleep(200 * time.Millisecond) // the last Watch events
	seen := watch.snapshot()
	ranOn := map[string]int{}
	for _, task := range list.GetTasks() {
		tid := task.GetTaskId()
		if task.GetStatus() != robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED {
			t.Fatalf("task %s (%s) ended %v: %s", tid, task.GetLabel(), task.GetStatus(), task.GetError())
		}
		if task.GetHost() == "" || task.GetAttempt() < 1 {
			t.Fatalf("task %s ran on host %q attempt %d, want a host agent", tid, task.GetHost(), task.GetAttempt())
		}
		ranOn[task.GetHost()]++
		if w := seen[tid]; w.completed != 1 || w.failed != 0 {
			t.Fatalf("task %s: Watch showed %d completed and %d failed states, want exactly one completion", tid, w.completed, w.failed)
		}
		if task.GetKind() != robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_PROCESS {
			continue
		}
		// One log: the final attempt's output, once.
		var n int
		fmt.Sscanf(task.GetLabel()[strings.Index(task.GetLabel(), "done-")+len("done-"):], "%d", &n)
		log, err := c.ReadBackgroundTaskLog(ctx, &robotav1.ReadBackgroundTaskLogRequest{SessionId: id, TaskId: tid})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("done-%d\n", n); string(log.GetData()) != want {
			t.Fatalf("task %s (%s): log %q, want %q once", tid, task.GetLabel(), log.GetData(), want)
		}
	}
	v := seen[victim]
	final := v.last
	if len(v.hosts) < 2 || !strings.HasPrefix(v.hosts[0], "h1#") || final.GetHost() == "h1" || final.GetAttempt() < 2 {
		t.Fatalf("the killed host's task %s: Watch showed it on %v, ending on %s#%d; want it moved off h1 to a later attempt",
			victim, v.hosts, final.GetHost(), final.GetAttempt())
	}
	if len(ranOn) < 2 {
		t.Fatalf("tasks ran on %v, want them spread over the hosts", ranOn)
	}
	t.Logf("tasks per host %v; the killed host's task %s moved %v (%.1fs after the kill it ended)", ranOn, victim, v.hosts,
		final.GetEndedAt().AsTime().Sub(killedAt).Seconds())
}

// `--nats` that no server answers: one line naming the URLs, non-zero exit, within
// seconds, before any worker starts.
func TestEngineExitsWhenNATSIsUnreachable(t *testing.T) {
	sock := filepath.Join(shortTempDir(t), "e.sock")
	urls := "nats://127.0.0.1:1,nats://127.0.0.1:2"
	cmd := exec.Command(filepath.Join(binDir, "robota-engine"), "--listen", "unix://"+sock, "--state-dir", t.TempDir(),
		"--worker", filepath.Join(binDir, "robota-worker"), "--nats", urls)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	begin := time.Now()
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("engine with unreachable NATS: %v, want a non-zero exit", err)
	}
	if took := time.Since(begin); took > 10*time.Second {
		t.Fatalf("took %s to give up", took)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], urls) {
		t.Fatalf("stderr %q, want one line naming %s", stderr.String(), urls)
	}
}

// Each host agent has its own credentials file (STATE_DIR/nats/hosts/NAME.creds, mode
// 0600, NAME:PASSWORD). A host agent with a wrong credential, with another host's
// password, with no credential, or with another host's file under its own name is
// refused and says so in one line, exiting non-zero within seconds; one with its own
// file (its name taken from the file) takes jobs, and on SIGTERM exits 0. Removing a
// host's file revokes it while it runs.
func TestHostAgentCredentials(t *testing.T) {
	_, _, url, credsDir := natsEngine(t, "--workers", "0")
	files := map[string]string{}
	for _, name := range []string{"h1", "h2", "h3"} {
		path := filepath.Join(credsDir, name+".creds")
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v, want a file of mode 0600", path, err)
		}
		b, _ := os.ReadFile(path)
		files[name] = strings.TrimSpace(string(b))
		if user, pw, _ := strings.Cut(files[name], ":"); user != name || len(pw) != 32 {
			t.Fatalf("%s holds %q, want %s:PASSWORD", path, files[name], name)
		}
	}
	if files["h1"] == files["h2"] || strings.TrimPrefix(files["h1"], "h1:") == strings.TrimPrefix(files["h2"], "h2:") {
		t.Fatal("two hosts share a password")
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"wrong password", []string{"--creds", write("wrong.creds", "h1:wrong")}, "NATS refused the credentials at " + url},
		{"another host's password", []string{"--creds", write("stolen.creds", "h1:"+strings.TrimPrefix(files["h2"], "h2:"))},
			"NATS refused the credentials at " + url},
		{"no credential", []string{"--name", "h1"}, "NATS refused the credentials at " + url},
		{"another host's file", []string{"--name", "h1", "--creds", filepath.Join(credsDir, "h2.creds")}, "which is host h2's"},
	} {
		cmd := exec.Command(filepath.Join(binDir, "robota-worker"), append([]string{"host", "--nats", url}, tc.args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		begin := time.Now()
		err := cmd.Run()
		var exit *exec.ExitError
		lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
		if !errors.As(err, &exit) || exit.ExitCode() == 0 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("host agent with %s: %v, stderr %q; want a non-zero exit and one line saying %q", tc.name, err, stderr.String(), tc.want)
		}
		if took := time.Since(begin); took > 10*time.Second {
			t.Errorf("host agent with %s: refused after %s", tc.name, took)
		}
	}
	h, err := engineproc.StartHost(binDir, url, "", nil, "--creds", filepath.Join(credsDir, "h2.creds"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.KillGroup(); _, _ = h.Wait(5 * time.Second) })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, _, err := h.WaitMsg(ctx, 0, "host agent taking jobs"); err != nil {
		t.Fatalf("host agent h2 (its name from its credentials file): %v\n%s", err, h.RawLog())
	}
	if err := h.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := h.Wait(10 * time.Second); err != nil || code != 0 {
		t.Fatalf("host agent after SIGTERM: exit %d, %v\n%s", code, err, h.RawLog())
	}

	// Revoking a host while it runs: its file removed, the engine drops its user within
	// seconds, the server disconnects it, and the host agent stops saying why (exit 1).
	h3 := hostAgent(t, url, credsDir, "h3")
	if err := os.Remove(filepath.Join(credsDir, "h3.creds")); err != nil {
		t.Fatal(err)
	}
	code, err := h3.Wait(15 * time.Second)
	said := 0
	for _, line := range strings.Split(h3.RawLog(), "\n") {
		if !strings.HasPrefix(line, "{") && strings.HasPrefix(line, "robota-worker host: NATS closed the connection at "+url) {
			said++
		}
	}
	if err != nil || code != 1 || said != 1 {
		t.Fatalf("host agent h3 after its file was removed: exit %d, %v\n%s\nwant exit 1 and one line saying NATS closed the connection", code, err, h3.RawLog())
	}
}

// A session whose settings ask for a label no host agent offers (`workers.labels`):
// its background command waits, listed as queued with the label named, runs neither on
// the host nor on the engine's local worker (auto mode), and fails after
// --nats-queue-timeout with a message naming the label.
func TestNATSJobForAnUnofferedLabelWaitsQueuedThenFails(t *testing.T) {
	p := newProject(t)
	t.Setenv("HOME", p.Home)
	p.writeFile(t, filepath.Join(".claude", "settings.json"), `{"workers": {"labels": {"gpu": "a100"}}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, c, url, creds := natsEngine(t, "--dispatch", "auto", "--nats-queue-timeout", "4s")
	hostAgent(t, url, creds, "h1", "--labels", "gpu=none")
	marker := filepath.Join(p.Scripts, "ran")
	script := p.writeScript(t, "nats_label.yaml", fmt.Sprintf("name: nats-label\nturns:\n  - text: \"Starting.\"\n    toolCalls:\n"+
		"      - {id: toolu_bg, name: Bash, input: {command: \"touch %s\", run_in_background: true}}\n  - text: \"Started.\"\n", marker))
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: p.Dir, Provider: "script", Script: script,
		PermissionMode: robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetSession().GetSessionId()
	submitAnswering(ctx, t, c, id, "go", robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW)
	sawQueued := false
	for {
		if ctx.Err() != nil {
			t.Fatalf("the task never failed\nengine log:\n%s", e.RawLog())
		}
		list, err := c.ListBackgroundTasks(ctx, &robotav1.ListBackgroundTasksRequest{SessionId: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.GetTasks()) != 1 {
			t.Fatalf("%d tasks, want 1", len(list.GetTasks()))
		}
		task := list.GetTasks()[0]
		st := task.GetStatus()
		if st == robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_QUEUED && strings.Contains(task.GetCurrentAction(), "gpu=a100") {
			sawQueued = true
		}
		if st == robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING && task.GetPid() != 0 {
			t.Fatalf("the task runs (%s on %q), want it waiting for a host with gpu=a100", task.GetLabel(), task.GetHost())
		}
		if st == robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_FAILED {
			if !sawQueued {
				t.Fatal("the task failed without being listed as queued, naming the label")
			}
			if !strings.Contains(task.GetError(), "gpu=a100") {
				t.Fatalf("failure %q does not name the label", task.GetError())
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran somewhere")
	}
}
