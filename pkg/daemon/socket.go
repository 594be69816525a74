package daemon

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// listen opens the listener. TCP is refused unless clients must present
// certificates. A unix socket is created by listenUnix.
func listen(addr Address, mutualTLS bool) (net.Listener, error) {
	if addr.Network == "tcp" {
		if !mutualTLS {
			return nil, fmt.Errorf("listen %s: %w", addr, ErrTLSRequired)
		}
		return net.Listen("tcp", addr.HostPort)
	}
	return listenUnix(addr, os.Geteuid())
}

// listenUnix creates a unix socket at addr.Path that only uid can connect to.
// The directory is created 0700 when missing; an existing one must belong to
// uid and be writable by nobody else. A stale socket left by a dead engine is
// removed, a live one is an error. The socket is bound inside a fresh 0700
// directory, chmod 0600 there and only then renamed into place, so it is
// never reachable with the umask's looser mode.
func listenUnix(addr Address, uid int) (net.Listener, error) {
	dir := filepath.Dir(addr.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	if err := checkPrivateDir(dir, uid); err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	if _, err := os.Lstat(addr.Path); err == nil {
		if c, err := net.Dial("unix", addr.Path); err == nil {
			c.Close()
			return nil, fmt.Errorf("listen %s: another engine is already serving this socket", addr)
		}
		if err := os.Remove(addr.Path); err != nil {
			return nil, fmt.Errorf("listen %s: remove stale socket: %w", addr, err)
		}
	}
	// sockaddr_un holds 108 bytes with the terminating NUL.
	const maxSocketPath = 107
	staging, err := os.MkdirTemp(dir, ".s")
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	defer os.RemoveAll(staging)
	tmp := filepath.Join(staging, "s")
	if n := max(len(tmp), len(addr.Path)); n > maxSocketPath {
		return nil, fmt.Errorf("listen %s: socket path too long (%d bytes, the limit is %d): choose a shorter --listen path", addr, n, maxSocketPath)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen %s: chmod 0600: %w", addr, err)
	}
	if err := os.Rename(tmp, addr.Path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	st, err := os.Lstat(addr.Path)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return &unixListener{UnixListener: ln, path: addr.Path, socket: st}, nil
}

// checkPrivateDir refuses a directory that uid does not own or that group or
// others can write to.
func checkPrivateDir(dir string, uid int) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrSocketDirNotPrivate, dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != uid {
		return fmt.Errorf("%w: %s is owned by uid %d, not by uid %d running the engine; use a directory of your own",
			ErrSocketDirNotPrivate, dir, sys.Uid, uid)
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by group or others (mode %04o); use a directory only you can write (chmod go-w)",
			ErrSocketDirNotPrivate, dir, perm)
	}
	return nil
}

// unixListener removes its socket on Close, as net.UnixListener would had the
// socket not been renamed after binding; a file someone put in its place is
// left alone.
type unixListener struct {
	*net.UnixListener
	path   string
	socket os.FileInfo
	once   sync.Once
}

func (l *unixListener) Close() error {
	l.once.Do(func() {
		if cur, err := os.Lstat(l.path); err == nil && os.SameFile(cur, l.socket) {
			_ = os.Remove(l.path)
		}
	})
	return l.UnixListener.Close()
}
