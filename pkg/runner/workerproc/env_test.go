package workerproc

import (
	"slices"
	"testing"
)

// TestEnvKeepsOnlyTheAllowlist: the named variables and the LC_/XDG_ families pass,
// anything else (a credential) stays behind.
func TestEnvKeepsOnlyTheAllowlist(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "USER=u", "LOGNAME=u", "LANG=C", "TMPDIR=/t", "TZ=UTC",
		"TERM=xterm", "SHELL=/bin/sh", "ROBOTA_WORKER_LOG_LEVEL=debug", "LC_ALL=C", "XDG_CONFIG_HOME=/c",
		"ANTHROPIC_API_KEY=secret", "PATHX=1", "path=/x", "NOEQUALS"}
	want := environ[:12]
	if got := Env(environ); !slices.Equal(got, want) {
		t.Fatalf("Env = %q, want %q", got, want)
	}
}
