package hook

import (
	"bytes"
	"context"
)

// Executor runs one hook of one type. It must honour ctx (the runner sets the hook's
// timeout on it) and be safe for concurrent use.
type Executor interface {
	// Execute runs the hook with the event's JSON input. An error means the hook could
	// not run or did not finish (including a timeout); a hook that ran reports its
	// outcome in the Response, whatever its exit code.
	Execute(ctx context.Context, hook Definition, input []byte) (Response, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, hook Definition, input []byte) (Response, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, hook Definition, input []byte) (Response, error) {
	return f(ctx, hook, input)
}

// Response is a finished hook's outcome in command-hook terms: exit code 0 proceeds,
// 2 blocks, anything else is a non-blocking error.
type Response struct {
	ExitCode int
	Stdout   string
	Stderr   string
}

// maxOutput bounds what is kept of a hook's stdout and stderr.
const maxOutput = 1 << 20

// cappedBuffer keeps the first max bytes written and discards the rest, without
// failing the writer (a failing pipe would change the hook's behaviour).
type cappedBuffer struct {
	buf bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string { return c.buf.String() }
