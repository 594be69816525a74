package pool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
)

// startTimeout bounds a worker's go-plugin handshake.
const startTimeout = 10 * time.Second

// Launcher returns a LaunchFunc that starts robota-worker through go-plugin
// (launcher.LaunchContext: AutoMTLS, an allowlisted environment, killed with its parent).
// find locates the binary (nil: workerproc.Find, beside the executable, then on PATH);
// when it cannot, the error says how to install it.
func Launcher(find func() (string, error), log *zap.Logger) LaunchFunc {
	if find == nil {
		find = func() (string, error) { return workerproc.Find("") }
	}
	if log == nil {
		log = zap.NewNop()
	}
	return func(ctx context.Context) (Worker, error) {
		path, err := find()
		if err != nil {
			return nil, fmt.Errorf("subagents and background commands run in robota-worker: %w", err)
		}
		w, err := launcher.LaunchContext(ctx, launcher.Command{Path: path}, log, startTimeout)
		if err != nil {
			return nil, err
		}
		return launched{Runner: w.Runner, w: w}, nil
	}
}

// launched is a launcher.Worker seen as a pool Worker.
type launched struct {
	runnerapi.Runner
	w *launcher.Worker
}

func (l launched) Pid() int           { return l.w.PID }
func (l launched) ExitReason() string { return l.w.ExitReason() }
func (l launched) Check() error       { return l.w.Check() }
func (l launched) Close() error {
	l.w.Kill()
	return nil
}

// FromPool takes workers from a launcher.Pool of started, idle ones (an engine's warm
// pool): a spawn costs one RPC, and the pool starts a replacement. The worker is killed,
// not released, when its job ends: an agent job leaves state behind.
func FromPool(lp *launcher.Pool) LaunchFunc {
	return func(ctx context.Context) (Worker, error) {
		w, err := lp.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		return launched{Runner: w.Runner, w: w}, nil
	}
}

// FromSupervisor returns a live worker of an engine's Supervisor (the first, when it
// keeps several), which the supervisor replaces when it dies; the pool does not stop it.
func FromSupervisor(s *launcher.Supervisor) LaunchFunc {
	return func(context.Context) (Worker, error) {
		for _, w := range s.Workers() {
			if w.Check() == nil {
				return supervised{launched{Runner: w.Runner, w: w}}, nil
			}
		}
		return nil, errors.New("no live worker yet (the supervisor is starting or replacing it)")
	}
}

// supervised is a worker its Supervisor owns: Close leaves it running.
type supervised struct{ launched }

func (supervised) Close() error { return nil }
