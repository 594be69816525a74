package workerproc

import "strings"

// workerEnvNames and workerEnvPrefixes are what a worker inherits from the
// engine. Workers hold no secrets (model calls go back to the engine), so the
// environment is allowlisted rather than filtered: a credential under a name
// nobody thought of still stays behind.
var (
	workerEnvNames = map[string]bool{
		"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true,
		"TMPDIR": true, "TZ": true, "TERM": true, "SHELL": true,
		"ROBOTA_WORKER_LOG_LEVEL": true,
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
	if workerEnvNames[name] {
		return true
	}
	for _, p := range workerEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
