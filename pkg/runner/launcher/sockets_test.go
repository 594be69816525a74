package launcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The socket directories of a process that is gone (killed with SIGKILL, its worker's
// sockets left behind) are removed; those of live processes stay.
func TestSweepStaleSocketDirs(t *testing.T) {
	base := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(base, strconv.Itoa(dead.Process.Pid), "plugin-dir123")
	live := filepath.Join(base, strconv.Itoa(os.Getppid()), "plugin-dir456")
	for _, d := range []string{gone, live} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "plugin.sock"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sweepStaleSocketDirs(base)
	if _, err := os.Stat(filepath.Dir(gone)); !os.IsNotExist(err) {
		t.Errorf("the directory of a process that is gone stays: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live process's directory was removed: %v", err)
	}
	priv := filepath.Join(base, "private")
	if err := os.Mkdir(priv, 0o700); err != nil {
		t.Fatal(err)
	}
	if !privateDir(priv) {
		t.Error("a private directory is not seen as private")
	}
	if err := os.Chmod(priv, 0o755); err != nil {
		t.Fatal(err)
	}
	if privateDir(priv) {
		t.Error("a directory others can read is seen as private")
	}
}
