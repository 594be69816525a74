//go:build !linux

package sandbox

import "os"

// serverConn does not exist where there are no sandboxes (Available says so first).
type serverConn struct {
	send func(v any, files []*os.File) error
}

func startServer(string, Policy) (*serverConn, error) { return nil, ErrUnavailable }

func (c *serverConn) begin(*Proc, serverRequest, []*os.File) error { return ErrUnavailable }
func (c *serverConn) ended() bool                                  { return true }
func (c *serverConn) close()                                       {}
