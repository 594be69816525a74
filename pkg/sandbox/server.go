package sandbox

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// A Server runs commands in one sandbox made once: its first process (robota-sandbox, in
// the namespaces, the policy applied) stays and starts each command it is sent, so a
// command costs a process start and a message, not a new set of namespaces and mounts.
// Every command shares the one policy, mount namespace and PID namespace; when robota
// ends (kill -9 included) the first process ends and the kernel kills every command
// still running in its PID namespace. A Server whose first process died starts another
// at the next command.
type Server struct {
	policy Policy
	helper func() (string, error)

	mu   sync.Mutex
	conn *serverConn // nil: not running
	next uint64
	dead error // set by Close
}

// serverArg is the only argument of robota-sandbox started as a Server's first process;
// its socket is descriptor 3 and the policy travels in policyEnv.
const serverArg = "__robota-sandbox-server__"

// maxRequest bounds a request's size (its argv and environment).
const maxRequest = 4 << 20

// ErrServerClosed is returned by Start after Close.
var ErrServerClosed = errors.New("sandbox: the server is closed")

// NewServer returns a server of p's sandbox; its first process starts with the first
// command.
func NewServer(p Policy) *Server { return &Server{policy: p, helper: launcher} }

// Proc is a command a Server started.
type Proc struct {
	s      *Server
	c      *serverConn
	id     uint64
	start  chan error // the start's outcome
	done   chan struct{}
	status syscall.WaitStatus
	err    error
}

// Wait waits for the command to end and returns its wait status; everything left in its
// process group is killed then.
func (p *Proc) Wait() (syscall.WaitStatus, error) {
	<-p.done
	return p.status, p.err
}

// Kill kills the command's process group.
func (p *Proc) Kill() error { return p.c.send(serverRequest{Op: "kill", ID: p.id}, nil) }

// Start runs shell with argv in dir with env (nil: this process's) and stdout and stderr
// as given, stdin /dev/null.
func (s *Server) Start(shell string, argv []string, dir string, env []string, stdout, stderr *os.File) (*Proc, error) {
	if ok, why := Available(); !ok {
		return nil, errors.Join(ErrUnavailable, errors.New(why))
	}
	c, id, err := s.running()
	if err != nil {
		return nil, err
	}
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer stdin.Close()
	if env == nil {
		env = os.Environ()
	}
	p := &Proc{s: s, c: c, id: id, start: make(chan error, 1), done: make(chan struct{})}
	if err := c.begin(p, serverRequest{Op: "run", ID: id, Shell: shell, Argv: argv, Dir: dir, Env: env},
		[]*os.File{stdin, stdout, stderr}); err != nil {
		return nil, err
	}
	if err := <-p.start; err != nil {
		return nil, err
	}
	return p, nil
}

// running is the server's live connection (started if need be) and a new request id.
func (s *Server) running() (*serverConn, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		return nil, 0, s.dead
	}
	if s.conn == nil || s.conn.ended() {
		helper, err := s.helper()
		if err != nil {
			return nil, 0, errors.Join(ErrUnavailable, err)
		}
		c, err := startServer(helper, s.policy)
		if err != nil {
			return nil, 0, err
		}
		s.conn = c
	}
	s.next++
	return s.conn, s.next, nil
}

// Close ends the server's first process, and with it every command still running.
func (s *Server) Close() error {
	s.mu.Lock()
	c := s.conn
	s.conn, s.dead = nil, ErrServerClosed
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	return nil
}

// serverRequest is a message to the server: run a command (its descriptors ride along),
// or kill one's process group.
type serverRequest struct {
	Op    string   `json:"op"`
	ID    uint64   `json:"id"`
	Shell string   `json:"shell,omitempty"`
	Argv  []string `json:"argv,omitempty"`
	Dir   string   `json:"dir,omitempty"`
	Env   []string `json:"env,omitempty"`
}

// serverMsg is a message from the server: ready (or Err at start), a command started (or
// Err), a command ended with its wait status.
type serverMsg struct {
	Ready   bool   `json:"ready,omitempty"`
	ID      uint64 `json:"id,omitempty"`
	Started bool   `json:"started,omitempty"`
	Ended   bool   `json:"ended,omitempty"`
	Status  uint32 `json:"status,omitempty"`
	Err     string `json:"err,omitempty"`
}
