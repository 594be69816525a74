package netproxy

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/robota-sdk/robota-go/internal/connjoin"
)

// Served is a running sandbox network's way out: the Unix sockets the sandbox bridges
// its HTTP and SOCKS ports to (one socket when robota's proxy serves both).
type Served struct {
	HTTPSocket, SOCKSSocket string
	stops                   []func()
	dir                     string
}

// Stop ends the proxies and removes their sockets.
func (s *Served) Stop() {
	for _, f := range s.stops {
		f()
	}
	_ = os.RemoveAll(s.dir)
}

// Start serves a sandbox's network in a new private directory: robota's filtering proxy
// of rules, except where the settings name a proxy of the user's own on this host's
// loopback (Claude Code's httpProxyPort, socksProxyPort: "the external proxy must handle
// domain filtering"), to which the socket is then joined as it is.
func Start(rules Rules, httpProxyPort, socksProxyPort int) (*Served, error) {
	dir, err := os.MkdirTemp("", "robota-net-")
	if err != nil {
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	s := &Served{dir: dir}
	serve := func(name string, port int) (string, error) {
		path := filepath.Join(dir, name)
		var stop func()
		var err error
		if port > 0 {
			stop, err = forwardUnix(path, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		} else {
			stop, err = (&Proxy{Rules: rules}).ListenUnix(path)
		}
		if err != nil {
			return "", err
		}
		s.stops = append(s.stops, stop)
		return path, nil
	}
	if s.HTTPSocket, err = serve("http.sock", httpProxyPort); err == nil {
		s.SOCKSSocket = s.HTTPSocket
		if socksProxyPort > 0 || httpProxyPort > 0 {
			// Separate proxies: the user's on one side, robota's (both protocols) or the
			// user's other one on the other.
			s.SOCKSSocket, err = serve("socks.sock", socksProxyPort)
		}
	}
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// forwardUnix joins each connection to a Unix socket at path to addr, as it is.
func forwardUnix(path, addr string) (func(), error) {
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.DialTimeout("tcp", addr, dialTimeout)
				if err != nil {
					return
				}
				defer up.Close()
				connjoin.Join(c, up)
			}()
		}
	}()
	return func() { _ = l.Close(); _ = os.Remove(path) }, nil
}
