package pipe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
)

// Client is a runnerapi.Runner backed by a worker at the other end of a pipe.
type Client struct {
	writeMu sync.Mutex
	enc     *json.Encoder

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]chan response
	err     error // set once the read side ended

	closeOnce sync.Once
	closeFn   func() error
	done      chan struct{}

	// PID is the worker's process id (0 for a client over plain streams).
	PID int
}

var _ runnerapi.Runner = (*Client)(nil)

// Launch starts the worker binary at path with StdioFlag, the allowlisted environment and
// the parent-death signal (workerproc), and waits up to startTimeout for its hello. The
// worker's stderr (its logs) goes to stderr, or nowhere when stderr is nil.
func Launch(path string, stderr io.Writer, startTimeout time.Duration) (*Client, error) {
	cmd := exec.Command(path, StdioFlag)
	cmd.Env = workerproc.Env(os.Environ())
	cmd.SysProcAttr = workerproc.Attrs()
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("launch worker %s: %w", path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("launch worker %s: %w", path, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("launch worker %s: %w", path, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	stop := func() error {
		_ = stdin.Close() // the worker ends its jobs and exits on EOF
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		return nil
	}
	c, err := newClient(stdout, stdin, stop, startTimeout)
	if err != nil {
		_ = cmd.Process.Kill()
		<-exited
		return nil, fmt.Errorf("launch worker %s: %w", path, err)
	}
	c.PID = cmd.Process.Pid
	return c, nil
}

// NewClient speaks the protocol over in and out (a worker's stdout and stdin); closeFn,
// if set, is called by Close. It waits up to startTimeout for the worker's hello.
func NewClient(in io.Reader, out io.Writer, closeFn func() error, startTimeout time.Duration) (*Client, error) {
	return newClient(in, out, closeFn, startTimeout)
}

func newClient(in io.Reader, out io.Writer, closeFn func() error, startTimeout time.Duration) (*Client, error) {
	dec := json.NewDecoder(in)
	helloc := make(chan error, 1)
	go func() {
		var h hello
		switch err := dec.Decode(&h); {
		case err != nil:
			helloc <- protocolError("no hello from the worker: %v", err)
		case h.Hello != Protocol:
			helloc <- protocolError("worker speaks %q, want %q", h.Hello, Protocol)
		default:
			helloc <- nil
		}
	}()
	select {
	case err := <-helloc:
		if err != nil {
			return nil, err
		}
	case <-time.After(startTimeout):
		return nil, protocolError("no hello from the worker within %s", startTimeout)
	}
	c := &Client{enc: json.NewEncoder(out), pending: map[uint64]chan response{}, closeFn: closeFn, done: make(chan struct{})}
	go c.read(dec)
	return c, nil
}

// read dispatches responses to their callers until the worker's output ends.
func (c *Client) read(dec *json.Decoder) {
	var err error
	for {
		var r response
		if err = dec.Decode(&r); err != nil {
			break
		}
		c.mu.Lock()
		ch := c.pending[r.ID]
		if r.Done {
			delete(c.pending, r.ID)
		}
		c.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	c.mu.Lock()
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
		c.err = ErrWorkerExited
	} else {
		c.err = fmt.Errorf("%w: %w", ErrWorkerExited, err)
	}
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

// call sends req and returns the channel its responses arrive on; the channel is closed
// without a final response when the worker exits.
func (c *Client) call(req request) (uint64, <-chan response, error) {
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return 0, nil, err
	}
	c.nextID++
	req.ID = c.nextID
	// Buffered so a slow caller of one start does not stall every other call's responses.
	ch := make(chan response, 256)
	c.pending[req.ID] = ch
	c.mu.Unlock()
	if err := c.send(req); err != nil {
		c.mu.Lock()
		delete(c.pending, req.ID)
		c.mu.Unlock()
		return 0, nil, err
	}
	return req.ID, ch, nil
}

func (c *Client) send(req request) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := c.enc.Encode(req); err != nil {
		return fmt.Errorf("%w: write request: %w", ErrWorkerExited, err)
	}
	return nil
}

// final waits for the final response of a non-start call.
func (c *Client) final(ctx context.Context, ch <-chan response) (response, error) {
	select {
	case r, ok := <-ch:
		if !ok {
			return response{}, c.exitErr()
		}
		return r, decodeError(r)
	case <-ctx.Done():
		return response{}, ctx.Err()
	}
}

func (c *Client) exitErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return ErrWorkerExited
}

// Start implements runnerapi.Runner. When ctx ends the worker is told to stop the job,
// and Start returns after its terminal event, as over gRPC.
func (c *Client) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	id, ch, err := c.call(request{Op: "start", Job: &job})
	if err != nil {
		return err
	}
	stopped := ctx.Done()
	var emitErr error
	for {
		select {
		case r, ok := <-ch:
			if !ok {
				return c.exitErr()
			}
			if r.Event != nil {
				if emitErr == nil {
					if emitErr = emit(*r.Event); emitErr != nil {
						_ = c.send(request{Op: "stop", Ref: id})
					}
				}
				continue
			}
			if emitErr != nil {
				return emitErr
			}
			return decodeError(r)
		case <-stopped:
			stopped = nil
			if err := c.send(request{Op: "stop", Ref: id}); err != nil {
				return err
			}
		}
	}
}

// Cancel implements runnerapi.Runner.
func (c *Client) Cancel(ctx context.Context, jobID, reason string) (bool, error) {
	_, ch, err := c.call(request{Op: "cancel", JobID: jobID, Reason: reason})
	if err != nil {
		return false, err
	}
	r, err := c.final(ctx, ch)
	return r.Running, err
}

// Send implements runnerapi.Runner.
func (c *Client) Send(ctx context.Context, jobID, input string) error {
	_, ch, err := c.call(request{Op: "send", JobID: jobID, Input: input})
	if err != nil {
		return err
	}
	_, err = c.final(ctx, ch)
	return err
}

// ReadLog implements runnerapi.Runner.
func (c *Client) ReadLog(ctx context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error) {
	_, ch, err := c.call(request{Op: "read_log", JobID: jobID, Offset: offset, Limit: limit})
	if err != nil {
		return runnerapi.LogPage{}, err
	}
	r, err := c.final(ctx, ch)
	if err != nil {
		return runnerapi.LogPage{}, err
	}
	if r.Page == nil {
		return runnerapi.LogPage{}, protocolError("read_log answer without a page")
	}
	return *r.Page, nil
}

// Done is closed when the worker's output has ended (it exited or was closed).
func (c *Client) Done() <-chan struct{} { return c.done }

// Close stops the worker: its stdin closes, it ends its jobs and exits (killed after 2 s).
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		if c.closeFn != nil {
			err = c.closeFn()
		}
	})
	return err
}
