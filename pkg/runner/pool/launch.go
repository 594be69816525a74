package pool

import (
	"context"
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
