//go:build !linux

package bash

import "syscall"

// shellAttrs puts the shell in its own process group, so a timeout or abort kills the
// whole group.
func shellAttrs() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
