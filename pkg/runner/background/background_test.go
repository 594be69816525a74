package background_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"

	"github.com/robota-sdk/robota-go/pkg/runner/background"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
	"github.com/robota-sdk/robota-go/pkg/tools/bash"
)

// wired is the real worker runner behind go-plugin's gRPC transport in this process: the
// same wire as a launched robota-worker, without the process.
type wired struct {
	runnerapi.Runner
	client *plugin.GRPCClient
	server *plugin.GRPCServer
	once   sync.Once
	err    error
}

func (w *wired) Check() error { return w.client.Ping() }

// Close closes the client, whose controller Shutdown stops the server; the server is
// stopped here only when that call failed (go-plugin's GRPCServer.Stop is not safe to
// call twice at once). Close may be called again (t.Cleanup does).
func (w *wired) Close() error {
	w.once.Do(func() {
		if w.err = w.client.Close(); w.err != nil {
			w.server.Stop()
		}
	})
	return w.err
}

// inProcess launches wired workers and counts launches.
func inProcess(t *testing.T, launches *atomic.Int32) func(string) (background.Worker, error) {
	return func(string) (background.Worker, error) {
		launches.Add(1)
		client, server := plugin.TestPluginGRPCConn(t, false, workerplugin.PluginSet(worker.New(hclog.NewNullLogger())))
		raw, err := client.Dispense(workerplugin.PluginName)
		if err != nil {
			return nil, err
		}
		w := &wired{Runner: raw.(runnerapi.Runner), client: client, server: server}
		t.Cleanup(func() { w.Close() })
		return w, nil
	}
}

func found() (string, error) { return "/usr/local/bin/robota-worker", nil }

func waitDone(t *testing.T, m *background.Manager, id string) background.Status {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st, ok := m.Status(id); ok && st.Done {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("command %s did not end", id)
	return background.Status{}
}

func TestCommandsRunInOneLazilyLaunchedWorker(t *testing.T) {
	var launches atomic.Int32
	m := background.New(background.Config{Find: found, Launch: inProcess(t, &launches)})
	defer m.Close()
	if launches.Load() != 0 {
		t.Fatal("a worker was launched before any background command")
	}
	dir := t.TempDir()
	for i := range 3 {
		id, err := m.StartBackground(context.Background(), bash.BackgroundRequest{
			Command: fmt.Sprintf("echo %d > out%d.txt", i, i), Cwd: dir,
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("bash_%d", i+1); id != want {
			t.Fatalf("id = %q, want %q", id, want)
		}
		if st := waitDone(t, m, id); st.Last.Kind != runnerapi.EventCompleted || st.PID == 0 {
			t.Fatalf("status = %+v", st)
		}
		got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out%d.txt", i)))
		if err != nil || string(got) != fmt.Sprintf("%d\n", i) {
			t.Fatalf("command %d wrote %q, %v", i, got, err)
		}
	}
	if n := launches.Load(); n != 1 {
		t.Fatalf("%d launches for 3 commands, want 1", n)
	}
}

func TestMissingWorkerFailsEachCommandWithTheInstallHint(t *testing.T) {
	var launches atomic.Int32
	m := background.New(background.Config{
		Find:   func() (string, error) { return workerproc.Find(filepath.Join(t.TempDir(), "robota")) },
		Launch: inProcess(t, &launches),
	})
	defer m.Close()
	t.Setenv("PATH", t.TempDir())
	for range 2 {
		_, err := m.StartBackground(context.Background(), bash.BackgroundRequest{Command: "true"})
		if !errors.Is(err, workerproc.ErrNotFound) {
			t.Fatalf("StartBackground = %v, want ErrNotFound", err)
		}
		if !strings.Contains(err.Error(), "robota-worker") || !strings.Contains(err.Error(), "make build") {
			t.Fatalf("error %q does not say what is missing and how to install it", err)
		}
	}
	if launches.Load() != 0 {
		t.Fatal("launched a worker that was not found")
	}
}

func TestExitedWorkerIsLaunchedAgain(t *testing.T) {
	var launches atomic.Int32
	var current *wired
	launch := inProcess(t, &launches)
	m := background.New(background.Config{Find: found, Launch: func(p string) (background.Worker, error) {
		w, err := launch(p)
		current, _ = w.(*wired)
		return w, err
	}})
	defer m.Close()
	if _, err := m.StartBackground(context.Background(), bash.BackgroundRequest{Command: "true"}); err != nil {
		t.Fatal(err)
	}
	current.server.Stop() // the worker goes away without being closed
	id, err := m.StartBackground(context.Background(), bash.BackgroundRequest{Command: "true"})
	if err != nil {
		t.Fatal(err)
	}
	if st := waitDone(t, m, id); st.Last.Kind != runnerapi.EventCompleted {
		t.Fatalf("status after relaunch = %+v", st)
	}
	if n := launches.Load(); n != 2 {
		t.Fatalf("launches = %d, want 2", n)
	}
}

func TestCloseCancelsRunningCommands(t *testing.T) {
	var launches atomic.Int32
	m := background.New(background.Config{Find: found, Launch: inProcess(t, &launches)})
	id, err := m.StartBackground(context.Background(), bash.BackgroundRequest{Command: "sleep 30"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := m.Status(id)
	if !st.Done || st.Last.Kind != runnerapi.EventCancelled || time.Since(start) > 5*time.Second {
		t.Fatalf("after Close: %+v (took %s)", st, time.Since(start))
	}
	if _, err := m.StartBackground(context.Background(), bash.BackgroundRequest{Command: "true"}); !errors.Is(err, background.ErrClosed) {
		t.Fatalf("StartBackground after Close = %v", err)
	}
}

func TestUnstartableCommandFails(t *testing.T) {
	var launches atomic.Int32
	m := background.New(background.Config{Find: found, Launch: inProcess(t, &launches)})
	defer m.Close()
	_, err := m.StartBackground(context.Background(), bash.BackgroundRequest{Command: "true", Cwd: "/no/such/dir"})
	if err == nil {
		t.Fatal("a command in a missing directory started")
	}
}

// A worker binary that does not complete go-plugin's handshake fails the command with
// the path it tried, through the default launch, and the next command tries again.
func TestDefaultLaunchFailureNamesTheWorker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "robota-worker")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho not a plugin >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var finds atomic.Int32
	m := background.New(background.Config{Find: func() (string, error) { finds.Add(1); return path, nil }})
	defer m.Close()
	for range 2 {
		_, err := m.StartBackground(context.Background(), bash.BackgroundRequest{Command: "true"})
		if err == nil || !strings.Contains(err.Error(), "start robota-worker "+path) {
			t.Fatalf("StartBackground = %v, want a launch error naming %s", err, path)
		}
	}
	if n := finds.Load(); n != 2 {
		t.Fatalf("%d lookups for 2 commands, want 2", n)
	}
}
