//go:build !linux

package sandbox

import (
	"os"
	"syscall"
)

func namespaceAttrs(Policy) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func probe() (bool, string) { return false, "the sandbox needs Linux namespaces" }

// RunIfSandbox returns at once: there are no sandboxes on this system.
func RunIfSandbox() {}

// RunHelper exits: there are no sandboxes on this system.
func RunHelper() {
	println(HelperName + ": the command sandbox needs Linux namespaces")
	os.Exit(2)
}
