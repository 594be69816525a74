package daemon

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

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
