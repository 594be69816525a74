package workerproc

import "syscall"

// Attrs makes the kernel SIGKILL the worker when the engine dies, even
// by kill -9, so no worker is orphaned.
func Attrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
