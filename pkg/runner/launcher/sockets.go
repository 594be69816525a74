package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/hashicorp/go-plugin"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// go-plugin puts a worker's sockets in a directory of their own and removes it when the
// worker is stopped; a process killed with SIGKILL leaves it behind. So every launching
// process keeps its workers' socket directories under one of its own,
// $TMPDIR/robota-plugins-UID/PID, and the first launch of a process removes the
// directories of processes that are gone.

// socketConfig is the go-plugin socket configuration of this process's workers; nil
// (go-plugin's default, the system temporary directory) when the per-user directory
// cannot be used (not ours, not private).
var socketConfig = &lazy.Value[*plugin.UnixSocketConfig]{Build: func() *plugin.UnixSocketConfig {
	base := filepath.Join(os.TempDir(), "robota-plugins-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(base, 0o700); err != nil || !privateDir(base) {
		return nil
	}
	sweepStaleSocketDirs(base)
	dir := filepath.Join(base, strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	return &plugin.UnixSocketConfig{TempDir: dir}
}}

// privateDir reports a directory owned by this user and closed to others: another user's
// directory of that name would let them see or replace the sockets.
func privateDir(dir string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() || st.Mode().Perm()&0o077 != 0 {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}

// sweepStaleSocketDirs removes the socket directories of processes that no longer run.
func sweepStaleSocketDirs(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			_ = os.RemoveAll(filepath.Join(base, e.Name()))
		}
	}
}
