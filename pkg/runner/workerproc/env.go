package workerproc

import (
	"slices"
	"strings"
)

// workerEnvNames and workerEnvPrefixes are what a worker inherits from the
// engine. Workers hold no secrets (model calls go back to the engine), so the
// environment is allowlisted rather than filtered: a credential under a name
// nobody thought of still stays behind.
var (
	workerEnvNames = []string{ // a slice, not a map: a map literal needs a package init
		"PATH", "HOME", "USER", "LOGNAME", "LANG",
		"TMPDIR", "TZ", "TERM", "SHELL",
		"ROBOTA_WORKER_LOG_LEVEL",
	}
	workerEnvPrefixes = []string{"LC_", "XDG_"}
)

// Env returns the allowlisted part of environ: what a worker process gets.
func Env(environ []string) []string {
	out := make([]string, 0, len(workerEnvNames))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && allowedWorkerEnv(name) {
			out = append(out, kv)
		}
	}
	return out
}

func allowedWorkerEnv(name string) bool {
	if slices.Contains(workerEnvNames, name) {
		return true
	}
	for _, p := range workerEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
