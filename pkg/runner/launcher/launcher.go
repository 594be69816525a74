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
	p, raw, err := start(ctx, cmd, log, startTimeout, Spec{
		Handshake: workerplugin.Handshake, Plugins: workerplugin.PluginSet(nil), Name: workerplugin.PluginName, What: "worker",
	})
	if err != nil {
		return nil, err
	}
	runner, ok := raw.(runnerapi.Runner)
	if !ok {
		p.client.Kill()
		return nil, fmt.Errorf("worker %s dispensed %T, not a Runner", cmd, raw)
	}
	return &Worker{cmd: p.cmd, client: p.client, proto: p.proto, Runner: runner, PID: p.PID}, nil
}

// Spec is what a plugin process serves: its go-plugin handshake and plugins, and the
// plugin to dispense.
type Spec struct {
	Handshake plugin.HandshakeConfig
	Plugins   plugin.PluginSet
	Name      string
	// What names the process in errors and logs ("worker", "provider process").
	What string
}

// Process is one running plugin process that is not a worker: robota's provider
// process (pkg/providers/providerproc). It is started as workers are, with the same
// mutual TLS, allowlisted environment and parent-death signal.
type Process struct {
	cmd    *exec.Cmd
	client *plugin.Client
	proto  plugin.ClientProtocol
	// PID is the process id.
	PID int
}

// Start starts cmd as a go-plugin process serving spec, as LaunchContext starts a
// worker, and returns it with the plugin it dispensed. extraEnv is added to the
// allowlisted environment (a provider process needs the proxy settings the caller's
// HTTP client would honour; it is the caller's to say which).
func Start(ctx context.Context, cmd Command, log *zap.Logger, startTimeout time.Duration, spec Spec, extraEnv ...string) (*Process, any, error) {
	return start(ctx, cmd, log, startTimeout, spec, extraEnv...)
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool { return p.client.Exited() }

// Kill stops the process: a graceful close of the connection first, then the process
// is killed if it lingers.
func (p *Process) Kill() { p.client.Kill() }

func start(ctx context.Context, cmd Command, log *zap.Logger, startTimeout time.Duration, spec Spec, extraEnv ...string) (*Process, any, error) {
	var launched atomic.Bool
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args...)
	c.Cancel = func() error {
		if launched.Load() {
			// Not an interrupted launch: leave the process to Kill. ErrProcessDone
			// keeps exec from reporting the context as the process's exit cause.
			return os.ErrProcessDone
		}
		return c.Process.Kill()
	}
	c.Env = append(workerEnv(os.Environ()), extraEnv...)
	c.SysProcAttr = workerAttrs()
	tlsConf, closePipe, err := prepareTLS(c)
	if err != nil {
		return nil, nil, fmt.Errorf("launch %s %s: %w", spec.What, cmd, err)
	}
	defer closePipe() // the process has its copy once started
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  spec.Handshake,
		Plugins:          spec.Plugins,
		Cmd:              c,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		// Not go-plugin's AutoMTLS, which makes P-521 certificates on both sides at
		// every launch: mutual TLS with certificates prepared by prepareTLS (mtls.go).
		TLSConfig:        tlsConf,
		AutoMTLS:         tlsConf == nil, // where no pipe can be inherited (prepareTLS)
		StartTimeout:     startTimeout,
		UnixSocketConfig: socketConfig.Get(),
		Logger:           newHCLog(log, spec.What),
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(workerplugin.MaxMessageBytes),
			grpc.MaxCallSendMsgSize(workerplugin.MaxMessageBytes),
		)},
	})
	fail := func(err error) (*Process, any, error) {
		client.Kill()
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("launch %s %s: %w (%v)", spec.What, cmd, ctx.Err(), err)
		}
		return nil, nil, err
	}
	proto, err := client.Client()
	if err != nil {
		return fail(fmt.Errorf("launch %s %s: %w", spec.What, cmd, err))
	}
	raw, err := proto.Dispense(spec.Name)
	if err != nil {
		return fail(fmt.Errorf("dispense %s from %s %s: %w", spec.Name, spec.What, cmd, err))
	}
	launched.Store(true)
	if ctx.Err() != nil {
		return fail(errors.New("interrupted after the handshake"))
	}
	p := &Process{cmd: c, client: client, proto: proto}
	if rc := client.ReattachConfig(); rc != nil {
		p.PID = rc.Pid
	}
	return p, raw, nil
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
