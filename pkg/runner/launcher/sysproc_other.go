//go:build !linux

package launcher

import "syscall"

func workerAttrs() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
