package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

func itoa(i int) string { return strconv.Itoa(i) }

func launch(t *testing.T, cmd launcher.Command) (*launcher.Worker, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	w, err := launcher.Launch(cmd, zap.New(core), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Kill)
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	return w, logs
}

func collect(t *testing.T, w *launcher.Worker, job runnerapi.Job) []runnerapi.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var evs []runnerapi.Event
	if err := w.Runner.Start(ctx, job, func(ev runnerapi.Event) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestWorkerRunsProcessJobOverGoPlugin(t *testing.T) {
	w, logs := launch(t, launcher.Command{Path: filepath.Join(binDir, "robota-worker")})
	dir := t.TempDir()
	evs := collect(t, w, runnerapi.Job{ID: "job-1", Process: &runnerapi.ProcessJob{
		Command: "echo out; echo err >&2; pwd; exit 3", Cwd: dir,
	}})
	if evs[0].Kind != runnerapi.EventStarted || evs[0].PID <= 0 {
		t.Fatalf("first event = %+v, want started with a pid", evs[0])
	}
	var text strings.Builder
	for i, ev := range evs {
		if ev.Sequence != uint64(i+1) {
			t.Fatalf("event %d has sequence %d", i, ev.Sequence)
		}
		if ev.Kind == runnerapi.EventTextDelta {
			text.WriteString(ev.Text)
		}
	}
	if got, want := text.String(), "out\nerr\n"+dir+"\n"; got != want {
		t.Fatalf("streamed output = %q, want %q", got, want)
	}
	last := evs[len(evs)-1]
	if last.Kind != runnerapi.EventFailed || last.ExitCode != 3 || last.Error != "exit status 3" {
		t.Fatalf("terminal event = %+v, want failed with exit 3", last)
	}
	page, err := w.Runner.ReadLog(context.Background(), "job-1", 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if string(page.Data) != "err" || page.NextOffset != 7 || page.EOF {
		t.Fatalf("ReadLog(4,3) = %q next %d eof %v", page.Data, page.NextOffset, page.EOF)
	}
	if logs.FilterMessage("process job started").Len() != 1 {
		t.Fatalf("worker hclog entry was not re-logged through zap; got %v", logs.All())
	}
}

func TestWorkerCancelKillsProcessGroup(t *testing.T) {
	w, _ := launch(t, launcher.Command{Path: filepath.Join(binDir, "robota-worker")})
	done := make(chan []runnerapi.Event, 1)
	started := make(chan int, 1)
	go func() {
		var evs []runnerapi.Event
		_ = w.Runner.Start(context.Background(), runnerapi.Job{ID: "sleepy", Process: &runnerapi.ProcessJob{
			Command: "sleep 60 & echo child=$!; wait",
		}}, func(ev runnerapi.Event) error {
			evs = append(evs, ev)
			if ev.Kind == runnerapi.EventTextDelta && strings.HasPrefix(ev.Text, "child=") {
				pid, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(ev.Text, "child=")))
				started <- pid
			}
			return nil
		})
		done <- evs
	}()
	var child int
	select {
	case child = <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("process job never reported its child")
	}
	running, err := w.Runner.Cancel(context.Background(), "sleepy", "test cancel")
	if err != nil || !running {
		t.Fatalf("Cancel = %v, %v; want true, nil", running, err)
	}
	select {
	case evs := <-done:
		last := evs[len(evs)-1]
		if last.Kind != runnerapi.EventCancelled || last.Reason != "test cancel" {
			t.Fatalf("terminal event = %+v, want cancelled with the reason", last)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled job did not end within 5s")
	}
	waitGone(t, child, 5*time.Second)
}

func TestWorkerAndItsProcessJobsSeeNoSecrets(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "x-engine-only")
	t.Setenv("DATABASE_PASSWORD", "x-engine-only")
	w, _ := launch(t, launcher.Command{Path: filepath.Join(binDir, "robota-worker")})
	if env := readEnviron(t, w.PID); strings.Contains(env, "x-engine-only") {
		t.Fatalf("worker environment holds an engine secret:\n%s", env)
	}
	evs := collect(t, w, runnerapi.Job{ID: "env", Process: &runnerapi.ProcessJob{Command: "env"}})
	var out strings.Builder
	for _, ev := range evs {
		if ev.Kind == runnerapi.EventTextDelta {
			out.WriteString(ev.Text)
		}
	}
	for _, leaked := range []string{"ANTHROPIC_API_KEY=", "DATABASE_PASSWORD=", "PLUGIN_", workerplugin.Handshake.MagicCookieKey} {
		if strings.Contains(out.String(), leaked) {
			t.Errorf("process job environment has %s:\n%s", leaked, out.String())
		}
	}
	if !strings.Contains(out.String(), "PATH=") {
		t.Errorf("process job environment lacks PATH:\n%s", out.String())
	}
}

// An agent job needs the engine side (its Host) for its model calls and tool decisions.
func TestWorkerAgentJobWithoutHostIsRefusedClearly(t *testing.T) {
	w, _ := launch(t, launcher.Command{Path: filepath.Join(binDir, "robota-worker")})
	err := w.Runner.Start(context.Background(), runnerapi.Job{ID: "a", Agent: &runnerapi.AgentJob{Prompt: "hi"}},
		func(runnerapi.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "needs a Host") {
		t.Fatalf("agent job error = %v, want a missing-host explanation", err)
	}
}

func TestWorkerStartedByHandExplainsAndFails(t *testing.T) {
	cmd := exec.Command(filepath.Join(binDir, "robota-worker"))
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code == 0 {
		t.Fatalf("worker started by hand exited %d, want non-zero", code)
	}
	if !strings.Contains(string(out), "This binary is a plugin") {
		t.Fatalf("worker output does not explain itself:\n%s", out)
	}
}

func TestRobotaVersionAndHelp(t *testing.T) {
	out, err := exec.Command(filepath.Join(binDir, "robota"), "--version").CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), " (robota)\n") {
		t.Fatalf("robota --version: %v\n%s", err, out)
	}
	out, err = exec.Command(filepath.Join(binDir, "robota"), "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("robota --help: %v\n%s", err, out)
	}
	for _, flag := range []string{"-p string", "-output-format", "-allowedTools", "-permission-mode", "-engine"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("help lacks %s:\n%s", flag, out)
		}
	}
	if strings.Contains(string(out), "__worker") {
		t.Errorf("help shows the hidden worker subcommand")
	}
}

// TestRobotaLaunchesRobotaWorker: robota does not serve as a worker (decision 10); a
// background command runs in the robota-worker beside it, which robota launches with
// go-plugin (the handshake cookie and AutoMTLS's client certificate in the worker's
// environment) and an allowlisted environment (robota's secrets stay behind).
func TestRobotaLaunchesRobotaWorker(t *testing.T) {
	p := newProject(t)
	p.withoutSandbox(t) // it watches the job's processes from outside (pids, parents)
	script := p.script(t, "background", nil)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "run it in the background", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	cmd.Env = append(cmd.Env, "ROBOTA_TEST_SECRET=do-not-pass")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("robota: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Command running in background with ID: bash_1") {
		t.Fatalf("the background command did not start:\n%s", out)
	}
	parent, err := os.ReadFile(filepath.Join(p.Dir, "parent.txt"))
	if err != nil || strings.TrimSpace(string(parent)) != "robota-worker" {
		t.Fatalf("the background command's parent process is %q (%v), want robota-worker", parent, err)
	}
	env, err := os.ReadFile(filepath.Join(p.Dir, "worker.env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ROBOTA_WORKER_PLUGIN=", "PLUGIN_CLIENT_CERT=", "PLUGIN_PROTOCOL_VERSIONS=", "PATH="} {
		if !strings.Contains(string(env), "\n"+want) && !strings.HasPrefix(string(env), want) {
			t.Errorf("the worker was not launched with %s...:\n%s", want, env)
		}
	}
	if strings.Contains(string(env), "ROBOTA_TEST_SECRET") {
		t.Errorf("robota's environment leaked into the worker:\n%s", env)
	}
	// The hidden worker subcommand is gone: it is an ordinary argument now (the prompt of
	// an interactive session, as for claude), and robota does not serve a plugin.
	hidden := p.command(context.Background(), "__worker")
	usage, _ := hidden.CombinedOutput()
	if code := hidden.ProcessState.ExitCode(); code == 0 || strings.Contains(string(usage), "plugin") ||
		strings.Contains(string(usage), "|grpc") {
		t.Fatalf("robota __worker exited %d:\n%s\nwant a failure that is not a worker's handshake", code, usage)
	}
}

// TestRobotaWithoutRobotaWorkerSaysHowToInstallIt: with no robota-worker beside robota or
// on PATH, the background command fails with a message naming the missing binary and how
// to install it, and the run goes on to its answer.
func TestRobotaWithoutRobotaWorkerSaysHowToInstallIt(t *testing.T) {
	alone := t.TempDir()
	data, err := os.ReadFile(filepath.Join(binDir, "robota"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(alone, "robota"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	p := newProject(t)
	script := p.script(t, "background", nil)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(alone, "robota"), "-p", "run it in the background",
		"--provider", "script", "--script", script, "--permission-mode", "bypassPermissions",
		"--output-format", "stream-json", "--verbose")
	cmd.Dir = p.Dir
	cmd.Env = append(p.env(), "PATH="+withoutWorker(t))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("robota without robota-worker: %v\n%s", err, out)
	}
	want := "robota-worker not found at " + filepath.Join(alone, "robota-worker") + " or on PATH"
	for _, s := range []string{want, "make build", "go build -o"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(string(out), `"result":"The background runner is not installed."`) {
		t.Errorf("the run did not go on to its answer:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "parent.txt")); err == nil {
		t.Error("the background command ran without a worker")
	}
}

// withoutWorker is PATH without directories that hold a robota-worker.
func withoutWorker(t *testing.T) string {
	t.Helper()
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "robota-worker")); err != nil {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}
