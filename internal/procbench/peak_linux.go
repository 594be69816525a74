//go:build linux

package procbench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

// PeakRSS runs cmd to completion and returns the peak RSS of the program it runs, in KiB:
// VmHWM of its address space, read when it exits.
//
// Why not rusage: Go starts children with vfork (CLONE_VM), and on exec Linux folds the
// shared address space's high-water mark, the parent's, into the child's ru_maxrss. A
// child started from a test binary therefore never reports less than the test binary's
// own peak (about 5 MiB here), which is more than a hello-world uses. So the child runs
// under ptrace with PTRACE_O_TRACEEXIT: it stops on its way out, before its memory is
// released, and /proc/PID/status still has its VmHWM. Its stdout and stderr must be
// files (or nil): nothing of os/exec's copying goroutines runs.
func PeakRSS(cmd *exec.Cmd) (int64, error) {
	// ptrace requests must come from the thread that started the tracee.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	attrs := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		*attrs = *cmd.SysProcAttr
	}
	attrs.Ptrace = true
	cmd.SysProcAttr = attrs
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("%s: %w", cmd, err)
	}
	defer cmd.Process.Release()
	pid := cmd.Process.Pid
	var ws syscall.WaitStatus
	// The first stop is the exec.
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return 0, fmt.Errorf("wait for %s: %w", cmd, err)
	}
	if err := syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACEEXIT); err != nil {
		_ = cmd.Process.Kill()
		return 0, fmt.Errorf("ptrace %s: %w", cmd, err)
	}
	hwm := int64(-1)
	var readErr error
	if err := syscall.PtraceCont(pid, 0); err != nil {
		return 0, fmt.Errorf("ptrace %s: %w", cmd, err)
	}
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
			return 0, fmt.Errorf("wait for %s: %w", cmd, err)
		}
		switch {
		case ws.Exited() || ws.Signaled():
			if readErr != nil {
				return 0, readErr
			}
			if ws.Signaled() || ws.ExitStatus() != 0 {
				return 0, fmt.Errorf("%s: %w", cmd, &exitError{ws})
			}
			if hwm < 0 {
				return 0, fmt.Errorf("%s: exited without an exit stop", cmd)
			}
			return hwm, nil
		case ws.Stopped() && ws.StopSignal() == syscall.SIGTRAP && ws.TrapCause() == syscall.PTRACE_EVENT_EXIT:
			hwm, readErr = vmHWM(pid)
			_ = syscall.PtraceCont(pid, 0)
		case ws.Stopped():
			// A signal for the tracee (the Go runtime's SIGURG, SIGCHLD...): deliver it.
			_ = syscall.PtraceCont(pid, int(ws.StopSignal()))
		}
	}
}

type exitError struct{ ws syscall.WaitStatus }

func (e *exitError) Error() string {
	if e.ws.Signaled() {
		return "killed by " + e.ws.Signal().String()
	}
	return "exit status " + strconv.Itoa(e.ws.ExitStatus())
}

// vmHWM reads VmHWM (KiB) from /proc/PID/status.
func vmHWM(pid int) (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("read status of pid %d: %w", pid, err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(rest)
			if len(f) >= 1 {
				return strconv.ParseInt(string(f[0]), 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("pid %d: %w", pid, errNoVmHWM)
}

var errNoVmHWM = errors.New("no VmHWM in /proc/PID/status")
