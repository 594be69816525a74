package manager

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound: no live or stored session has the id.
	ErrNotFound = errors.New("no such session")
	// ErrNotLive: the session is stored but not loaded; resume it first.
	ErrNotLive = errors.New("the session is not live")
	// ErrShuttingDown: the engine is stopping and takes no new sessions.
	ErrShuttingDown = errors.New("the engine is shutting down")
	// ErrTooManySessions: the live-session limit (Config.MaxLive) is reached.
	ErrTooManySessions = errors.New("too many live sessions")
)

// FieldError is bad input in one option of CreateOptions. Field is the Go name of
// the option (transports translate it to their own field names).
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %v", e.Field, e.Err) }
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}
