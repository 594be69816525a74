package launcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// ErrWorkerExited is reported when a worker process is gone.
var ErrWorkerExited = errors.New("worker process exited")

// Command is how to start a worker: the robota-worker binary and its arguments.
type Command struct {
	Path string
	Args []string
}

func (c Command) String() string { return fmt.Sprint(append([]string{c.Path}, c.Args...)) }

// Worker is one running worker process.
type Worker struct {
	cmd    *exec.Cmd
	client *plugin.Client
	proto  plugin.ClientProtocol
	// Runner calls the worker's RunnerService.
	Runner runnerapi.Runner
	// PID is the worker's process id.
	PID int
}

// Launch is LaunchContext without a way to interrupt it.
func Launch(cmd Command, log *zap.Logger, startTimeout time.Duration) (*Worker, error) {
	return LaunchContext(context.Background(), cmd, log, startTimeout)
}

// LaunchContext starts a worker process, completes the go-plugin handshake
// and dispenses its Runner. startTimeout bounds the handshake; ctx ending
// kills a worker that has not finished starting, so a shutdown never waits
// for a stuck handshake. Once launched, the worker outlives ctx and is
// stopped with Kill.
//
// The worker gets an allowlisted environment (see workerEnv), never the
// engine's whole one: workers hold no secrets.
func LaunchContext(ctx context.Context, cmd Command, log *zap.Logger, startTimeout time.Duration) (*Worker, error) {
	var launched atomic.Bool
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args...)
	c.Cancel = func() error {
		if launched.Load() {
			// Not an interrupted launch: leave the worker to Kill. ErrProcessDone
			// keeps exec from reporting the context as the worker's exit cause.
			return os.ErrProcessDone
		}
		return c.Process.Kill()
	}
	c.Env = workerEnv(os.Environ())
	c.SysProcAttr = workerAttrs()
	tlsConf, closePipe, err := prepareTLS(c)
	if err != nil {
		return nil, fmt.Errorf("launch worker %s: %w", cmd, err)
	}
	defer closePipe() // the worker has its copy once started
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  workerplugin.Handshake,
		Plugins:          workerplugin.PluginSet(nil),
		Cmd:              c,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		// Not go-plugin's AutoMTLS, which makes P-521 certificates on both sides at
		// every launch: mutual TLS with certificates prepared by prepareTLS (mtls.go).
		TLSConfig:        tlsConf,
		AutoMTLS:         tlsConf == nil, // where no pipe can be inherited (prepareTLS)
		StartTimeout:     startTimeout,
		UnixSocketConfig: socketConfig(),
		Logger:           newHCLog(log, "worker"),
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(workerplugin.MaxMessageBytes),
			grpc.MaxCallSendMsgSize(workerplugin.MaxMessageBytes),
		)},
	})
	fail := func(err error) (*Worker, error) {
		client.Kill()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("launch worker %s: %w (%v)", cmd, ctx.Err(), err)
		}
		return nil, err
	}
	proto, err := client.Client()
	if err != nil {
		return fail(fmt.Errorf("launch worker %s: %w", cmd, err))
	}
	raw, err := proto.Dispense(workerplugin.PluginName)
	if err != nil {
		return fail(fmt.Errorf("dispense runner from worker %s: %w", cmd, err))
	}
	runner, ok := raw.(runnerapi.Runner)
	if !ok {
		return fail(fmt.Errorf("worker %s dispensed %T, not a Runner", cmd, raw))
	}
	launched.Store(true)
	if ctx.Err() != nil {
		return fail(errors.New("interrupted after the handshake"))
	}
	w := &Worker{cmd: c, client: client, proto: proto, Runner: runner}
	if rc := client.ReattachConfig(); rc != nil {
		w.PID = rc.Pid
	}
	return w, nil
}

// Check reports whether the worker is alive. Dispense on a dead client does
// not fail, so liveness is checked explicitly: first the process, then a
// round trip over the connection.
func (w *Worker) Check() error {
	if w.client.Exited() {
		return fmt.Errorf("worker pid %d: %w", w.PID, ErrWorkerExited)
	}
	if err := w.proto.Ping(); err != nil {
		if w.client.Exited() {
			return fmt.Errorf("worker pid %d: %w", w.PID, ErrWorkerExited)
		}
		return fmt.Errorf("worker pid %d: ping: %w", w.PID, err)
	}
	return nil
}

// Exited reports whether the worker process has exited.
func (w *Worker) Exited() bool { return w.client.Exited() }

// ExitReason says how the worker process ended ("killed by signal 9 (killed)",
// "exited with status 2"); empty while it runs.
func (w *Worker) ExitReason() string {
	if !w.client.Exited() {
		return ""
	}
	// go-plugin sets ProcessState in cmd.Wait before it marks the client exited.
	ps := w.cmd.ProcessState
	if ps == nil {
		return "exited"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ps.ExitCode())
}

// Kill stops the worker: a graceful close of the connection first, then the
// process is killed if it lingers.
func (w *Worker) Kill() { w.client.Kill() }
