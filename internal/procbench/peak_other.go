//go:build !linux

package procbench

import (
	"errors"
	"os/exec"
)

// ErrNoPeakRSS is returned where the peak RSS of a child cannot be read at its exit.
var ErrNoPeakRSS = errors.New("peak RSS of a child is measured on Linux only")

// PeakRSS is not available outside Linux.
func PeakRSS(*exec.Cmd) (int64, error) { return 0, ErrNoPeakRSS }
