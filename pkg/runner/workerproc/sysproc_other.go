//go:build !linux

package workerproc

import "syscall"

// Attrs has no parent-death signal to set outside Linux.
func Attrs() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
