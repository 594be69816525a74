package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestListenUnixRefusesADirectoryOthersCanWrite(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o770, 0o702, 0o1777} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := shortDir(t)
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
			_, err := listen(Address{Network: "unix", Path: filepath.Join(dir, "e.sock")}, false)
			if !errors.Is(err, ErrSocketDirNotPrivate) || !strings.Contains(err.Error(), "writable by group or others") {
				t.Fatalf("listen in a %v directory = %v, want ErrSocketDirNotPrivate naming the write access", mode, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "e.sock")); !os.IsNotExist(err) {
				t.Fatalf("a socket was created in the refused directory: %v", err)
			}
		})
	}
}

func TestListenUnixRefusesADirectoryOwnedBySomeoneElse(t *testing.T) {
	dir := shortDir(t)
	// From the point of view of another uid, our own private directory is
	// someone else's: the check must refuse it without needing root to chown.
	other := os.Geteuid() + 1
	_, err := listenUnix(Address{Network: "unix", Path: filepath.Join(dir, "e.sock")}, other)
	if !errors.Is(err, ErrSocketDirNotPrivate) || !strings.Contains(err.Error(), "is owned by uid") {
		t.Fatalf("listen in another user's directory = %v, want ErrSocketDirNotPrivate naming the owner", err)
	}
}

func TestListenUnixAcceptsAReadableButPrivatelyWritableDir(t *testing.T) {
	dir := shortDir(t)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := listen(Address{Network: "unix", Path: filepath.Join(dir, "e.sock")}, false)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

// Even with a umask that would leave the socket world-connectable, the socket
// only ever appears at its path as 0600, and staging leaves nothing behind.
func TestListenUnixSocketIsPrivateWhateverTheUmask(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := shortDir(t)
	path := filepath.Join(dir, "e.sock")
	ln, err := listen(Address{Network: "unix", Path: path}, false)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket = %v, %v; want a mode 600 socket", st.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "e.sock" {
		t.Fatalf("socket directory holds %v, want only e.sock", entries)
	}
	ln.Close()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("socket left behind after Close: %v", err)
	}
}

func TestCloseLeavesAReplacementSocketAlone(t *testing.T) {
	path := filepath.Join(shortDir(t), "e.sock")
	ln, err := listen(Address{Network: "unix", Path: path}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("someone else's"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("Close removed a file that was not its socket: %v", err)
	}
}
