package assemble

import (
	"os"
	"path/filepath"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// StateRoot is the directory whose .robota holds what a session started in cwd writes as
// it runs (session records, logs, saved tool output, edit checkpoints): cwd for a project
// run, the user's home for a run outside a project (DESIGN decision 3). A session started
// in the home directory itself or in the system's temporary directory (os.TempDir, or
// /tmp) is outside a project: a .robota created in /tmp would be shared by every user and
// removed with the temporary files, so its sessions go to ~/.robota with the home's own.
// A directory below either (a checkout in ~/src, a t.TempDir) is a project. home empty
// means os.UserHomeDir; without a home everything stays in cwd.
func StateRoot(cwd, home string) string {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" || !OutsideProject(cwd, home) {
		return cwd
	}
	return home
}

// OutsideProject reports whether a session started in cwd is outside a project: cwd is
// home, os.TempDir() or /tmp (compared after resolving symlinks, so macOS's /tmp and
// /private/tmp are one).
func OutsideProject(cwd, home string) bool {
	c := resolved(cwd)
	for _, d := range []string{home, os.TempDir(), "/tmp"} {
		if d != "" && c == resolved(d) {
			return true
		}
	}
	return false
}

// resolved is path cleaned and with its symlinks resolved (as written when it cannot be).
func resolved(path string) string {
	path = filepath.Clean(path)
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// SessionsDir is where the session records of a session started in cwd are stored.
func SessionsDir(cwd, home string) string { return store.ProjectDir(StateRoot(cwd, home)) }

// LogsDir is where the session logs of a session started in cwd are written.
func LogsDir(cwd, home string) string { return sessionlog.ProjectDir(StateRoot(cwd, home)) }
