package worker

import "syscall"

// processAttrs puts the shell in its own group, so the whole group can be
// killed, and kills it if the worker dies first.
func processAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
