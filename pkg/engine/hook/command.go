package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// CommandExecutor runs `command` hooks with /bin/sh -c in the project directory, the
// JSON input on stdin and CLAUDE_PROJECT_DIR and ROBOTA_PROJECT_DIR set. On timeout
// or cancellation the hook's whole process group is killed.
type CommandExecutor struct {
	ProjectDir string
	// Env is added to the engine's environment; nil adds nothing.
	Env []string
	// Shell defaults to /bin/sh.
	Shell string
}

// NewCommandExecutor returns an executor for hooks of the project at dir.
func NewCommandExecutor(dir string) *CommandExecutor {
	return &CommandExecutor{ProjectDir: dir}
}

// pipeGrace bounds how long output pipes are drained after the hook's shell exits:
// a background child that keeps stdout open must not hold the session.
const pipeGrace = 2 * time.Second

// Execute runs one command hook.
func (c *CommandExecutor) Execute(ctx context.Context, h Definition, input []byte) (Response, error) {
	shell := c.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	cmd := exec.CommandContext(ctx, shell, "-c", h.Command)
	cmd.Dir = c.ProjectDir
	cmd.Env = append(append(os.Environ(), c.Env...),
		"CLAUDE_PROJECT_DIR="+c.ProjectDir, "ROBOTA_PROJECT_DIR="+c.ProjectDir)
	cmd.Stdin = bytes.NewReader(input)
	stdout := &cappedBuffer{max: maxOutput}
	stderr := &cappedBuffer{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The negative pid addresses the group: the shell and everything it started.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = pipeGrace
	err := cmd.Run()
	resp := Response{Stdout: stdout.String(), Stderr: stderr.String()}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return resp, fmt.Errorf("%w: command %q", ErrTimeout, h.Command)
		}
		return resp, fmt.Errorf("command hook %q: %w", h.Command, ctxErr)
	}
	if cmd.ProcessState != nil {
		// Also covers exec.ErrWaitDelay: the shell finished, a straggler held a pipe.
		resp.ExitCode = cmd.ProcessState.ExitCode()
		if resp.ExitCode < 0 {
			return resp, fmt.Errorf("%w: command %q killed: %v", ErrHookFailed, h.Command, cmd.ProcessState)
		}
		return resp, nil
	}
	return resp, fmt.Errorf("command hook %q: %w", h.Command, err)
}
