package launcher

import "syscall"

// workerAttrs makes the kernel SIGKILL the worker when the engine dies, even
// by kill -9, so no worker is orphaned.
func workerAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
