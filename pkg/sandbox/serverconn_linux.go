package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// serverStartTimeout bounds how long a server's first process may take to say it is ready.
const serverStartTimeout = 10 * time.Second

// serverConn is robota's end of a running server: requests out, replies routed to the
// Procs waiting for them.
type serverConn struct {
	fd   int
	cmd  *exec.Cmd
	send func(v any, files []*os.File) error

	mu      sync.Mutex
	pending map[uint64]*Proc
	err     error // set once the connection is gone
	gone    chan struct{}
}

// launches starts server processes from one goroutine locked to its thread for the
// life of the process: the parent-death signal is tied to the thread that started the
// child, which must not end before robota does.
var launches = &lazy.Value[chan func()]{Build: func() chan func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives as long as the process
		for f := range ch {
			f()
		}
	}()
	return ch
}}

func startServer(helper string, p Policy) (*serverConn, error) {
	spec, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: socket: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "sandbox-server")
	cmd := exec.Command(helper, serverArg)
	cmd.Dir = "/"
	// The first process holds no more of robota's environment than it needs (a command
	// is sent its own): nothing of it to find in /proc/1/environ.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), policyEnv + "=" + string(spec)}
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = namespaceAttrs(p)
	started := make(chan error, 1)
	launches.Get() <- func() { started <- cmd.Start() }
	err = <-started
	theirs.Close()
	if err != nil {
		unix.Close(fds[0])
		return nil, fmt.Errorf("sandbox: start %s: %w", helper, err)
	}
	c := &serverConn{fd: fds[0], cmd: cmd, send: sender(fds[0]), pending: map[uint64]*Proc{}, gone: make(chan struct{})}
	if err := c.awaitReady(); err != nil {
		c.close()
		return nil, err
	}
	go c.read()
	return c, nil
}

// awaitReady reads the server's first message: ready, or why it could not set up.
func (c *serverConn) awaitReady() error {
	tv := unix.NsecToTimeval(serverStartTimeout.Nanoseconds())
	_ = unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	defer func() {
		zero := unix.Timeval{}
		_ = unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &zero)
	}()
	buf := make([]byte, 64<<10)
	n, _, _, _, err := unix.Recvmsg(c.fd, buf, nil, 0)
	if err != nil || n == 0 {
		_ = c.cmd.Process.Kill()
		return fmt.Errorf("sandbox: the server did not start: %v", errors.Join(err, c.cmd.Wait()))
	}
	var m serverMsg
	if err := json.Unmarshal(buf[:n], &m); err != nil || !m.Ready {
		why := m.Err
		if why == "" {
			why = fmt.Sprintf("unexpected first message %q", buf[:n])
		}
		return fmt.Errorf("sandbox: %s", why)
	}
	return nil
}

// read routes the server's messages until its socket closes; then every command still
// waiting ends with an error (the kernel killed them with the server).
func (c *serverConn) read() {
	buf := make([]byte, 64<<10)
	for {
		n, _, _, _, err := unix.Recvmsg(c.fd, buf, nil, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			c.fail(errors.New("sandbox: the sandbox's first process ended"))
			_ = c.cmd.Wait()
			return
		}
		var m serverMsg
		if json.Unmarshal(buf[:n], &m) != nil {
			continue
		}
		c.mu.Lock()
		p := c.pending[m.ID]
		if m.Ended || m.Err != "" {
			delete(c.pending, m.ID)
		}
		c.mu.Unlock()
		if p == nil {
			continue
		}
		switch {
		case m.Err != "":
			p.start <- errors.New("sandbox: " + m.Err)
		case m.Started:
			p.start <- nil
		case m.Ended:
			p.status = syscall.WaitStatus(m.Status)
			close(p.done)
		}
	}
}

// begin registers p and sends its request.
func (c *serverConn) begin(p *Proc, req serverRequest, files []*os.File) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.pending[p.id] = p
	c.mu.Unlock()
	if err := c.send(req, files); err != nil {
		c.mu.Lock()
		delete(c.pending, p.id)
		c.mu.Unlock()
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}

func (c *serverConn) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
		close(c.gone)
	}
	pending := c.pending
	c.pending = map[uint64]*Proc{}
	c.mu.Unlock()
	for _, p := range pending {
		select {
		case p.start <- err:
		default:
		}
		p.err = err
		close(p.done)
	}
}

func (c *serverConn) ended() bool {
	select {
	case <-c.gone:
		return true
	default:
		return false
	}
}

// close ends the server: its socket closes, it returns, and its PID namespace goes.
func (c *serverConn) close() {
	_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
	_ = unix.Close(c.fd)
}
