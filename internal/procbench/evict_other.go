//go:build !(linux && (amd64 || arm64))

package procbench

import "syscall"

// maxRSSKiB converts ru_maxrss, which BSD-derived systems report in bytes, to KiB.
func maxRSSKiB(ru *syscall.Rusage) int64 { return int64(ru.Maxrss) / 1024 }

// Evict is a no-op where posix_fadvise is not available: runs then measure whatever the
// page cache holds (say so when comparing variants).
func Evict(string) error { return nil }
