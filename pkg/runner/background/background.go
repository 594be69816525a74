package background

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
	"github.com/robota-sdk/robota-go/pkg/tools/bash"
)

// Worker is a running worker: a Runner, a liveness check and Close.
type Worker interface {
	runnerapi.Runner
	// Check returns nil while the worker process is alive and answers.
	Check() error
	// Close stops the worker process.
	Close() error
}

// Config configures a Manager. Zero values launch robota-worker through
// pkg/runner/launcher (go-plugin over gRPC).
type Config struct {
	// Find locates the worker binary (default: workerproc.Find beside the executable,
	// then on PATH).
	Find func() (string, error)
	// Launch starts the worker at path (default: launcher.Launch with a 10 s start
	// timeout and the worker's logs discarded).
	Launch func(path string) (Worker, error)
	// NewID names a command (default: bash_1, bash_2, ...).
	NewID func() string
}

// Status is what is known of one background command.
type Status struct {
	ID, Command string
	// PID is the command's process id in the worker.
	PID int
	// Done is set once the command ended; Last is then its terminal event.
	Done bool
	Last runnerapi.Event
}

// Manager starts background commands in a lazily launched worker. It is safe for
// concurrent use.
type Manager struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	worker  Worker
	seq     int
	tasks   map[string]*Status
	running sync.WaitGroup
	closed  bool
}

var _ bash.BackgroundRunner = (*Manager)(nil)

// ErrClosed is returned by StartBackground after Close.
var ErrClosed = errors.New("background runner closed")

// New returns a Manager; nothing is launched yet.
func New(cfg Config) *Manager {
	if cfg.Find == nil {
		cfg.Find = func() (string, error) { return workerproc.Find("") }
	}
	if cfg.Launch == nil {
		cfg.Launch = launch
	}
	m := &Manager{cfg: cfg, tasks: map[string]*Status{}}
	if m.cfg.NewID == nil {
		m.cfg.NewID = func() string { return fmt.Sprintf("bash_%d", m.seq) }
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// launch starts robota-worker at path through go-plugin (AutoMTLS, allowlisted
// environment, parent-death signal: launcher.Launch) and dispenses its Runner.
func launch(path string) (Worker, error) {
	w, err := launcher.Launch(launcher.Command{Path: path}, zap.NewNop(), 10*time.Second)
	if err != nil {
		return nil, err
	}
	return pluginWorker{Runner: w.Runner, w: w}, nil
}

// pluginWorker is a launcher.Worker seen as a Worker.
type pluginWorker struct {
	runnerapi.Runner
	w *launcher.Worker
}

func (p pluginWorker) Check() error { return p.w.Check() }

func (p pluginWorker) Close() error {
	p.w.Kill()
	return nil
}

// workerLocked returns the running worker, launching one if there is none or the
// last one exited or stopped answering.
func (m *Manager) workerLocked() (Worker, error) {
	if m.worker != nil {
		if m.worker.Check() == nil {
			return m.worker, nil
		}
		_ = m.worker.Close()
		m.worker = nil
	}
	path, err := m.cfg.Find()
	if err != nil {
		return nil, fmt.Errorf("background commands run in robota-worker: %w", err)
	}
	w, err := m.cfg.Launch(path)
	if err != nil {
		return nil, fmt.Errorf("start robota-worker %s: %w", path, err)
	}
	m.worker = w
	return w, nil
}

// StartBackground implements bash.BackgroundRunner: it runs req.Command in the worker
// and returns its id once the command's process started.
func (m *Manager) StartBackground(ctx context.Context, req bash.BackgroundRequest) (string, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return "", ErrClosed
	}
	w, err := m.workerLocked()
	if err != nil {
		m.mu.Unlock()
		return "", err
	}
	m.seq++
	id := m.cfg.NewID()
	st := &Status{ID: id, Command: req.Command}
	m.tasks[id] = st
	m.running.Add(1)
	m.mu.Unlock()

	started := make(chan error, 1)
	var once sync.Once
	signal := func(err error) { once.Do(func() { started <- err }) }
	go func() {
		defer m.running.Done()
		job := runnerapi.Job{ID: id, Process: &runnerapi.ProcessJob{Command: req.Command, Cwd: req.Cwd, Env: jobEnv(req.Env, os.LookupEnv)}}
		err := w.Start(m.ctx, job, func(ev runnerapi.Event) error {
			m.mu.Lock()
			switch {
			case ev.Kind == runnerapi.EventStarted:
				st.PID = ev.PID
			case ev.Kind.Terminal():
				st.Done, st.Last = true, ev
			}
			m.mu.Unlock()
			if ev.Kind == runnerapi.EventStarted {
				signal(nil)
			}
			return nil
		})
		if err != nil {
			last := runnerapi.Event{JobID: id, Kind: runnerapi.EventFailed, Error: err.Error()}
			if m.ctx.Err() != nil && errors.Is(err, context.Canceled) {
				// Close cut the stream of a command the worker did not cancel in time;
				// the worker kills its process group when the stream ends.
				last = runnerapi.Event{JobID: id, Kind: runnerapi.EventCancelled, Reason: closeReason}
			}
			m.mu.Lock()
			if !st.Done {
				st.Done, st.Last = true, last
			}
			m.mu.Unlock()
		}
		signal(err) // a no-op when the command had started
		if err == nil {
			signal(errors.New("the worker ended the command before starting it"))
		}
	}()
	select {
	case err := <-started:
		if err != nil {
			return "", fmt.Errorf("robota-worker could not start the command: %w", err)
		}
		return id, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Status returns what is known of the command id.
func (m *Manager) Status(id string) (Status, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.tasks[id]
	if !ok {
		return Status{}, false
	}
	return *st, true
}

// closeReason is the reason given to the commands Close cancels.
const closeReason = "robota is exiting"

// Close cancels the commands still running, waits for them to end and stops the worker.
// Each command is cancelled through the worker first, so it ends with its cancelled
// event; cutting the streams is the fallback for a worker that does not answer.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	w := m.worker
	var running []string
	for id, st := range m.tasks {
		if !st.Done {
			running = append(running, id)
		}
	}
	m.mu.Unlock()
	if w != nil && len(running) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		for _, id := range running {
			_, _ = w.Cancel(ctx, id, closeReason) // unknown or ended: nothing to cancel
		}
		cancel()
		m.wait(3 * time.Second)
	}
	m.cancel()
	m.wait(2 * time.Second)
	if w != nil {
		return w.Close()
	}
	return nil
}

// wait waits up to d for the commands' streams to end.
func (m *Manager) wait(d time.Duration) {
	done := make(chan struct{})
	go func() {
		m.running.Wait()
		close(done)
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}

// jobEnv returns the variables of env (the environment a command must run with: the
// session's settings `env` applied over robota's own) whose values differ from robota's
// own environment, i.e. what the settings add. The worker starts its commands from an
// allowlisted environment, so robota's inherited variables, credentials among them, are
// never sent to it; a variable the user's settings set explicitly is.
func jobEnv(env []string, lookup func(string) (string, bool)) map[string]string {
	var out map[string]string
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if own, set := lookup(name); set && own == value {
			if _, added := out[name]; !added {
				continue
			}
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[name] = value // a later entry wins, as exec's does
	}
	return out
}
