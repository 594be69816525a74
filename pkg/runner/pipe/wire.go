package pipe

import (
	"errors"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Protocol is the hello line's value; a worker answering anything else is refused.
const Protocol = "robota-worker/1"

// StdioFlag is the argument that makes robota-worker serve this protocol on its stdio.
const StdioFlag = "--stdio"

// ErrWorkerExited is returned for calls in flight when the worker process is gone.
var ErrWorkerExited = errors.New("worker process exited")

// ErrProtocol is returned when the other side does not speak this protocol.
var ErrProtocol = errors.New("worker protocol error")

type hello struct {
	Hello string `json:"hello"`
}

type request struct {
	ID     uint64         `json:"id"`
	Op     string         `json:"op"`
	Job    *runnerapi.Job `json:"job,omitempty"`
	JobID  string         `json:"job_id,omitempty"`
	Reason string         `json:"reason,omitempty"`
	Input  string         `json:"input,omitempty"`
	Offset int64          `json:"offset,omitempty"`
	Limit  int64          `json:"limit,omitempty"`
	Ref    uint64         `json:"ref,omitempty"`
}

type response struct {
	ID      uint64             `json:"id"`
	Event   *runnerapi.Event   `json:"event,omitempty"`
	Done    bool               `json:"done,omitempty"`
	Error   string             `json:"error,omitempty"`
	Code    string             `json:"code,omitempty"`
	Running bool               `json:"running,omitempty"`
	Page    *runnerapi.LogPage `json:"page,omitempty"`
}

// Error codes that carry runnerapi's sentinel errors across the pipe.
const (
	codeUnknownJob     = "unknown_job"
	codeUnsupportedJob = "unsupported_job"
)

func errorCode(err error) string {
	switch {
	case errors.Is(err, runnerapi.ErrUnknownJob):
		return codeUnknownJob
	case errors.Is(err, runnerapi.ErrUnsupportedJob):
		return codeUnsupportedJob
	}
	return ""
}

// remoteError is an error the worker reported; it unwraps to the sentinel its code names.
type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

func decodeError(r response) error {
	if r.Error == "" {
		return nil
	}
	var sentinel error
	switch r.Code {
	case codeUnknownJob:
		sentinel = runnerapi.ErrUnknownJob
	case codeUnsupportedJob:
		sentinel = runnerapi.ErrUnsupportedJob
	}
	return &remoteError{msg: r.Error, sentinel: sentinel}
}

func protocolError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrProtocol}, args...)...)
}
