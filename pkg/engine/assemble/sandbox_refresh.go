package assemble

import (
	"slices"
	"syscall"

	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

// The sandbox's policy lists paths that exist: a bind needs something to bind over. A
// command can make such a path (git init makes .git/hooks, an archive or a checkout
// brings a denied file), and the next command must find it covered, as a sandbox made
// per command would. So the walk is made again whenever a command ends, while the model
// reads the result, and the next command waits for it; a changed policy gets a new
// server, and the old one closes when its commands (background ones too) have ended.
// What a command makes and then uses itself, in one command line, only the permission
// checker sees.

// current is the policy a command starting now runs with: the first walk's, or the
// latest after the running walk ends.
func (c *commandSandbox) current() sandbox.Policy {
	c.mu.Lock()
	if !c.built {
		c.policy, c.built = c.walkPolicy(), true
	}
	wait := c.refreshing
	c.mu.Unlock()
	if wait != nil {
		<-wait
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.policy
}

// commandEnded walks the roots again, in the background; walks asked for while one runs
// make one more walk after it.
func (c *commandSandbox) commandEnded() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if c.refreshing != nil {
		c.again = true
		c.mu.Unlock()
		return
	}
	done := make(chan struct{})
	c.refreshing = done
	c.mu.Unlock()
	go func() {
		for {
			p := c.walkPolicy()
			c.mu.Lock()
			c.policy, c.built = p, true
			if c.again && !c.closed {
				c.again = false
				c.mu.Unlock()
				continue
			}
			c.again, c.refreshing = false, nil
			close(done)
			c.mu.Unlock()
			return
		}
	}()
}

// serverFor is the server that runs a command under p, counted as running there: the
// session's server, or a new one when p differs from its policy.
func (c *commandSandbox) serverFor(p sandbox.Policy) (*sandbox.Server, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, sandbox.ErrServerClosed
	}
	if c.server == nil || !samePolicy(c.serverPolicy, p) {
		if old := c.server; old != nil && c.servers[old] == 0 {
			delete(c.servers, old)
			go old.Close() //nolint:errcheck // Close reports nothing
		}
		c.server, c.serverPolicy = sandbox.NewServer(p), p
	}
	c.servers[c.server]++
	return c.server, nil
}

// release counts a command out of srv, and closes srv when it was left behind by a new
// policy and this was its last command.
func (c *commandSandbox) release(srv *sandbox.Server) {
	c.mu.Lock()
	c.servers[srv]--
	idle := c.servers[srv] <= 0 && srv != c.server
	if idle {
		delete(c.servers, srv)
	}
	c.mu.Unlock()
	if idle {
		_ = srv.Close()
	}
}

func samePolicy(a, b sandbox.Policy) bool {
	return slices.Equal(a.Hide, b.Hide) && slices.Equal(a.ReadOnly, b.ReadOnly) && a.Network == b.Network
}

// sandboxedProc is a command of a session's sandbox server: when it ends, the server
// counts it out and the policy is walked again.
type sandboxedProc struct {
	*sandbox.Proc
	c     *commandSandbox
	srv   *sandbox.Server
	ended bool
}

// Wait is called once, by the Bash tool.
func (p *sandboxedProc) Wait() (syscall.WaitStatus, error) {
	ws, err := p.Proc.Wait()
	if !p.ended {
		p.ended = true
		p.c.release(p.srv)
		p.c.commandEnded()
	}
	return ws, err
}
