package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// ErrTLSRequired refuses a TCP listener without TLS: the engine runs tools
// with the user's rights, so plaintext TCP would hand them to the network.
var ErrTLSRequired = errors.New("tcp listener requires TLS (--tls-cert and --tls-key)")

// Address is a parsed --listen value.
type Address struct {
	Network  string // "unix" or "tcp"
	Path     string // unix socket path (absolute)
	HostPort string
}

func (a Address) String() string {
	if a.Network == "unix" {
		return "unix://" + a.Path
	}
	return "tcp://" + a.HostPort
}

// ParseAddress parses gRPC target syntax: unix:///abs/path, unix:/abs/path or
// tcp://host:port.
func ParseAddress(s string) (Address, error) {
	switch {
	case strings.HasPrefix(s, "unix://"):
		return unixAddress(s, strings.TrimPrefix(s, "unix://"))
	case strings.HasPrefix(s, "unix:"):
		return unixAddress(s, strings.TrimPrefix(s, "unix:"))
	case strings.HasPrefix(s, "tcp://"):
		hp := strings.TrimPrefix(s, "tcp://")
		if _, _, err := net.SplitHostPort(hp); err != nil || strings.Contains(hp, "/") {
			return Address{}, fmt.Errorf("listen address %q: want tcp://HOST:PORT", s)
		}
		return Address{Network: "tcp", HostPort: hp}, nil
	}
	return Address{}, fmt.Errorf("listen address %q: want unix:///ABS/PATH or tcp://HOST:PORT", s)
}

func unixAddress(orig, path string) (Address, error) {
	if !filepath.IsAbs(path) {
		return Address{}, fmt.Errorf("listen address %q: the socket path must be absolute (unix:///ABS/PATH)", orig)
	}
	return Address{Network: "unix", Path: filepath.Clean(path)}, nil
}

// DefaultAddress is $XDG_RUNTIME_DIR/robota/engine.sock, or
// ~/.robota/engine.sock when XDG_RUNTIME_DIR is unset.
func DefaultAddress() (Address, error) {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir != "" {
		dir = filepath.Join(dir, "robota")
	} else {
		home, err := os.UserHomeDir()
		if err != nil {
			return Address{}, fmt.Errorf("default listen address: %w", err)
		}
		dir = filepath.Join(home, ".robota")
	}
	return Address{Network: "unix", Path: filepath.Join(dir, "engine.sock")}, nil
}

// listen opens the listener. A unix socket's directory is created 0700 when
// missing; a stale socket left by a dead engine is removed, a live one is an
// error; the socket itself is chmod 0600.
func listen(addr Address, tlsConfigured bool) (net.Listener, error) {
	if addr.Network == "tcp" {
		if !tlsConfigured {
			return nil, fmt.Errorf("listen %s: %w", addr, ErrTLSRequired)
		}
		return net.Listen("tcp", addr.HostPort)
	}
	if err := os.MkdirAll(filepath.Dir(addr.Path), 0o700); err != nil {
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
	ln, err := net.Listen("unix", addr.Path)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	if err := os.Chmod(addr.Path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen %s: chmod 0600: %w", addr, err)
	}
	return ln, nil
}
