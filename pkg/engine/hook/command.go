package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"
)

// CommandExecutor runs `command` hooks with /bin/sh -c in the project directory, the
// JSON input on stdin and CLAUDE_PROJECT_DIR and ROBOTA_PROJECT_DIR set. The hook's
// whole process group is killed when its shell exits (nothing it started in the
// background outlives it) and on timeout or cancellation.
type CommandExecutor struct {
	ProjectDir string
	// Base is the environment hooks start from; nil means the engine's own. The engine
	// passes its own without provider keys (a hook gets a key only when its config names
	// it, in Env or the hook's own env).
	Base []string
	// Env is added to the base environment; nil adds nothing.
	Env []string
	// Shell defaults to /bin/sh.
	Shell string
}

// NewCommandExecutor returns an executor for hooks of the project at dir.
func NewCommandExecutor(dir string) *CommandExecutor {
	return &CommandExecutor{ProjectDir: dir}
}

// pipeGrace bounds how long output pipes are drained after the hook's group is
// killed: a process that left the group (setsid) and keeps stdout open must not hold
// the session. It also bounds the stdin copy of a hook that never reads its input.
const pipeGrace = 2 * time.Second

// Execute runs one command hook.
func (c *CommandExecutor) Execute(ctx context.Context, h Definition, input []byte) (Response, error) {
	shell := c.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	name := safeCommand(h.Command)
	cmd := exec.CommandContext(ctx, shell, "-c", h.Command)
	cmd.Dir = c.ProjectDir
	base := c.Base
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append(append(append(slices.Clip(base), c.Env...), h.Env...),
		"CLAUDE_PROJECT_DIR="+c.ProjectDir, "ROBOTA_PROJECT_DIR="+c.ProjectDir)
	cmd.Stdin = bytes.NewReader(input)
	// Pipes of our own, not exec's copying: Wait then returns when the shell exits, so
	// the group can be killed before the output is drained.
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return Response{}, fmt.Errorf("%w: command %q: %w", ErrHookFailed, name, err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		return Response{}, fmt.Errorf("%w: command %q: %w", ErrHookFailed, name, err)
	}
	cmd.Stdout, cmd.Stderr = stdoutW, stderrW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The negative pid addresses the group: the shell and everything it started.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = pipeGrace
	err = cmd.Start()
	stdoutW.Close() // the hook's processes hold the only write ends now
	stderrW.Close()
	if err != nil {
		stdoutR.Close()
		stderrR.Close()
		return Response{}, fmt.Errorf("command hook %q: %w", name, err)
	}
	stdout := &cappedBuffer{max: maxOutput}
	stderr := &cappedBuffer{max: maxOutput}
	var drained sync.WaitGroup
	for _, p := range []struct {
		r *os.File
		w io.Writer
	}{{stdoutR, stdout}, {stderrR, stderr}} {
		drained.Add(1)
		go func() {
			defer drained.Done()
			defer p.r.Close()
			_, _ = io.Copy(p.w, p.r)
		}()
	}
	err = cmd.Wait()
	// Whatever the shell left running in its group would outlive the hook: end it.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	deadline := time.Now().Add(pipeGrace)
	_ = stdoutR.SetReadDeadline(deadline)
	_ = stderrR.SetReadDeadline(deadline)
	drained.Wait()
	resp := Response{Stdout: stdout.String(), Stderr: stderr.String()}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return resp, fmt.Errorf("%w: command %q", ErrTimeout, name)
		}
		return resp, fmt.Errorf("command hook %q: %w", name, ctxErr)
	}
	if cmd.ProcessState != nil {
		// Also covers exec.ErrWaitDelay: the shell finished, a straggler held stdin.
		resp.ExitCode = cmd.ProcessState.ExitCode()
		if resp.ExitCode < 0 {
			return resp, fmt.Errorf("%w: command %q killed: %v", ErrHookFailed, name, cmd.ProcessState)
		}
		return resp, nil
	}
	return resp, fmt.Errorf("command hook %q: %w", name, err)
}
