package bash

import "syscall"

// shellAttrs puts the shell in its own process group, so a timeout or abort kills the
// whole group, and kills the shell if the process running the tool (robota, or the
// robota-worker of a subagent) dies first.
func shellAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
