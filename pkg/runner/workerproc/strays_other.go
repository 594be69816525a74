//go:build !linux

package workerproc

// KillStrays finds nothing outside Linux (no /proc to search).
func KillStrays(workerPID int) int { return 0 }
