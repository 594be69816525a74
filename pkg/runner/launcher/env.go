package launcher

import (
	"syscall"

	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
)

// workerEnv is the allowlisted environment a worker gets (workerproc.Env).
func workerEnv(environ []string) []string { return workerproc.Env(environ) }

// workerAttrs ties the worker's life to the engine's (workerproc.Attrs).
func workerAttrs() *syscall.SysProcAttr { return workerproc.Attrs() }
