//go:build linux && (amd64 || arm64)

package procbench

import (
	"fmt"
	"os"
	"syscall"
)

// maxRSSKiB is ru_maxrss, which Linux reports in KiB.
func maxRSSKiB(ru *syscall.Rusage) int64 { return ru.Maxrss }

// fadvDontNeed is POSIX_FADV_DONTNEED on Linux.
const fadvDontNeed = 4

// Evict drops path's pages from the page cache (posix_fadvise DONTNEED), so the next run
// faults them in from disk the way a first run after a build or a reboot does.
func Evict(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("evict %s: %w", path, err)
	}
	defer f.Close()
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); errno != 0 {
		return fmt.Errorf("evict %s: fadvise: %w", path, errno)
	}
	return nil
}
