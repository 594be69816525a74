package worker

import (
	"os"
	"strconv"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
)

// processEnv is the environment a process job inherits from the worker: the
// worker's own, minus anything that looks like a credential and the go-plugin
// plumbing (PLUGIN_* carries the engine's client certificate, and the magic
// cookie would let a job pose as a worker). Workers hold no secrets, so even
// a worker started with a leaky environment does not hand one to a job. It marks the
// job with this worker's pid (workerproc.JobMarkerEnv), so that the engine can end the
// job's processes should the worker die by SIGKILL.
func processEnv(environ []string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !secretEnvName(name) && name != workerproc.JobMarkerEnv {
			out = append(out, kv)
		}
	}
	return append(out, workerproc.JobMarkerEnv+"="+strconv.Itoa(os.Getpid()))
}

// secretEnvName reports whether an inherited variable must not reach a job.
func secretEnvName(name string) bool {
	upper := strings.ToUpper(name)
	switch {
	case name == workerplugin.Handshake.MagicCookieKey,
		strings.HasPrefix(upper, "PLUGIN_"),
		strings.HasSuffix(upper, "_API_KEY"),
		strings.HasSuffix(upper, "_TOKEN"), // *_AUTH_TOKEN, GITHUB_TOKEN, HF_TOKEN …
		strings.Contains(upper, "SECRET"),
		strings.Contains(upper, "PASSWORD"):
		return true
	}
	return false
}
