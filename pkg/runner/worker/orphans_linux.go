package worker

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// killChildGroups kills, with SIGKILL, the process group of every child of this
// process (process jobs' shells and agent jobs' Bash shells each lead a group of their
// own), or the child alone when it leads none. It runs when the worker is told to go
// (its parent died): the kernel's parent-death signal reaches the worker only, and
// whatever its jobs started would otherwise be orphaned.
func killChildGroups() {
	for _, pid := range childrenOf(os.Getpid()) {
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// childrenOf lists the live processes whose parent is ppid, from /proc.
func childrenOf(ppid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // gone since the glob
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so parse
		// from the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(b[i+1:])
		if len(fields) < 2 || string(fields[0]) == "Z" {
			continue
		}
		if p, err := strconv.Atoi(string(fields[1])); err != nil || p != ppid {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path))); err == nil {
			out = append(out, pid)
		}
	}
	return out
}
