package workerproc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// KillStrays kills, with SIGKILL, every process whose environment carries JobMarkerEnv
// set to workerPID (the job processes a dead worker left behind), with its process
// group when it leads one, and returns how many it found. Call it only once that worker
// is known to have exited, so its pid names no live worker.
func KillStrays(workerPID int) int {
	mark := []byte(JobMarkerEnv + "=" + strconv.Itoa(workerPID))
	self := os.Getpid()
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	n := 0
	for _, path := range envs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil || pid == self {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil || !hasEntry(data, mark) {
			continue // gone, or another user's
		}
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
		n++
	}
	return n
}

// hasEntry reports whether the NUL-separated environment data holds entry exactly.
func hasEntry(data, entry []byte) bool {
	for _, kv := range bytes.Split(data, []byte{0}) {
		if bytes.Equal(kv, entry) {
			return true
		}
	}
	return false
}
