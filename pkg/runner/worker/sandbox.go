package worker

import (
	"fmt"
	"os/exec"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

// isolateFor runs a job's commands in its command sandbox (nil: as they are). The engine
// asked for the sandbox, so a worker that cannot make one refuses the command rather
// than run it unconfined. The paths are looked at as each command starts: one that an
// earlier command of the job made (git init's hooks) is covered from the next command on.
func isolateFor(sb *runnerapi.Sandbox) func(shell string, argv []string, dir string, env []string, command string) (*exec.Cmd, error) {
	if sb == nil {
		return nil
	}
	listed := sandbox.Policy{Hide: sb.Hide, ReadOnly: sb.ReadOnly}
	return func(shell string, argv []string, dir string, env []string, command string) (*exec.Cmd, error) {
		if sandbox.Excluded(sb.ExcludedCommands, command) {
			return nil, nil
		}
		cmd, err := listed.Abs().Command(shell, argv, dir, env)
		if err != nil {
			return nil, fmt.Errorf("the session runs commands in the command sandbox, which this worker cannot make: %w", err)
		}
		return cmd, nil
	}
}
