package workerproc

import "syscall"

// Attrs makes the kernel send the worker SIGTERM when the engine dies, even by kill -9,
// so no worker is orphaned: the worker answers SIGTERM by killing its jobs' process
// groups and exiting (a SIGKILL would leave those groups running, orphaned).
func Attrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
