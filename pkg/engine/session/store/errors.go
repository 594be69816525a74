package store

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound: no record with that ID.
	ErrNotFound = errors.New("session store: session not found")
	// ErrInvalidID: the ID is empty, too long, or has characters that could name another path.
	ErrInvalidID = errors.New("session store: invalid session id")
	// ErrCorrupt: a stored record could not be decoded; errors of this kind are *CorruptError.
	ErrCorrupt = errors.New("session store: corrupt session record")
	// ErrExists: Fork was asked to create a record under an ID that is taken.
	ErrExists = errors.New("session store: session already exists")
)

// CorruptError reports a stored record that could not be read back.
type CorruptError struct {
	Path string // file (or backend location) holding the record
	Err  error  // the decoding problem
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("session store: corrupt session record %s: %v", e.Path, e.Err)
}

// Unwrap lets errors.Is match both ErrCorrupt and the underlying cause.
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }
