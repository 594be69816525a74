// Package engineproc starts a built robota-engine binary and follows its JSON
// log, for the integration tests and the demo. It is test/demo plumbing, not
// part of the engine.
package engineproc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// LogEntry is one zap JSON log line of the engine.
type LogEntry map[string]any

// Msg returns the entry's message.
func (e LogEntry) Msg() string { s, _ := e["msg"].(string); return s }

// Int returns a numeric field.
func (e LogEntry) Int(key string) int { f, _ := e[key].(float64); return int(f) }

// Proc is a running robota-engine.
type Proc struct {
	Cmd    *exec.Cmd
	Socket string

	mu      sync.Mutex
	entries []LogEntry
	raw     []string
	changed chan struct{}
	exited  chan struct{}
	waitErr error
}

// Start runs binDir/robota-engine on a unix socket at socket with extra args,
// with robota-worker from binDir. Its JSON logs are collected; echo, if not
// nil, receives every raw log line too.
func Start(binDir, socket string, echo io.Writer, extra ...string) (*Proc, error) {
	return StartEnv(binDir, socket, nil, echo, extra...)
}

// StartEnv is Start with env as the engine's environment (nil: this process's).
func StartEnv(binDir, socket string, env []string, echo io.Writer, extra ...string) (*Proc, error) {
	args := append([]string{"--listen", "unix://" + socket,
		"--worker", filepath.Join(binDir, "robota-worker")}, extra...)
	cmd := exec.Command(filepath.Join(binDir, "robota-engine"), args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = os.Stdout
	p := &Proc{Cmd: cmd, Socket: socket, changed: make(chan struct{}), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start robota-engine: %w", err)
	}
	go p.follow(stderr, echo)
	return p, nil
}

func (p *Proc) follow(r io.Reader, echo io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if echo != nil {
			fmt.Fprintln(echo, line)
		}
		var e LogEntry
		_ = json.Unmarshal([]byte(line), &e)
		p.mu.Lock()
		p.raw = append(p.raw, line)
		if e != nil {
			p.entries = append(p.entries, e)
		}
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}
	err := p.Cmd.Wait()
	p.mu.Lock()
	p.waitErr = err
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	close(p.exited)
}

// WaitLog waits until a log entry after index from satisfies match, and
// returns it with its index.
func (p *Proc) WaitLog(ctx context.Context, from int, match func(LogEntry) bool) (LogEntry, int, error) {
	for {
		p.mu.Lock()
		for i := from; i < len(p.entries); i++ {
			if match(p.entries[i]) {
				e := p.entries[i]
				p.mu.Unlock()
				return e, i, nil
			}
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, -1, fmt.Errorf("waiting for engine log entry: %w\nlog so far:\n%s", ctx.Err(), p.RawLog())
		case <-changed:
		case <-p.exited:
			select {
			case <-changed:
				continue
			default:
			}
			return nil, -1, fmt.Errorf("engine exited (%v) before the log entry appeared\nlog:\n%s", p.ExitErr(), p.RawLog())
		}
	}
}

// WaitMsg waits for an entry with message msg after index from.
func (p *Proc) WaitMsg(ctx context.Context, from int, msg string) (LogEntry, int, error) {
	return p.WaitLog(ctx, from, func(e LogEntry) bool { return e.Msg() == msg })
}

// RawLog returns every log line so far.
func (p *Proc) RawLog() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := ""
	for _, l := range p.raw {
		out += l + "\n"
	}
	return out
}

// Wait waits for the engine to exit, up to timeout.
func (p *Proc) Wait(timeout time.Duration) (exitCode int, err error) {
	select {
	case <-p.exited:
		return p.Cmd.ProcessState.ExitCode(), nil
	case <-time.After(timeout):
		return -1, fmt.Errorf("engine still running after %s", timeout)
	}
}

// ExitErr is the engine's Wait error once it exited.
func (p *Proc) ExitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr
}

// Exited is closed when the engine has exited.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Kill kills the engine (and nothing else) if it still runs.
func (p *Proc) Kill() {
	if p.Cmd.Process != nil {
		_ = p.Cmd.Process.Kill()
	}
}

// Dial connects to the engine's socket.
func (p *Proc) Dial() (*grpc.ClientConn, error) {
	return grpc.NewClient("unix://"+p.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
}

// ProcessAlive reports whether pid names a live, non-zombie process.
func ProcessAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Field 3, after the parenthesised command name, is the state.
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' && i+2 < len(b) {
			return b[i+2] != 'Z' && b[i+2] != 'X'
		}
	}
	return true
}

// ErrNoBinaries is returned when the binaries directory lacks a binary.
var ErrNoBinaries = errors.New("robota binaries not found")

// CheckBinaries verifies binDir holds the binaries make build makes.
func CheckBinaries(binDir string) error {
	for _, b := range []string{"robota", "robota-engine", "robota-worker", "robota-sandbox", "robota-provider"} {
		if _, err := os.Stat(filepath.Join(binDir, b)); err != nil {
			return fmt.Errorf("%w: %s (run make build)", ErrNoBinaries, filepath.Join(binDir, b))
		}
	}
	return nil
}
