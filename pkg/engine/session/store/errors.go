package store

import (
	"errors"
	"fmt"
	"time"
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
	// ErrConflict: an Append's Base (or EventBase) is not what the journal holds, e.g. the
	// writer resumed a record the store does not have, or another writer appended. The
	// caller resends its history with Delta.Reset.
	ErrConflict = errors.New("session store: journal does not hold what the append builds on")
	// ErrNoHeader: the first Append of a session carries no header.
	ErrNoHeader = errors.New("session store: the first save of a session needs its header")
	// ErrTornTail is matched by the warnings about a journal's incomplete last round.
	ErrTornTail = errors.New("session store: incomplete last round dropped")
)

// CorruptError reports a stored record that could not be read back.
type CorruptError struct {
	Path string // file (or backend location) holding the record
	Err  error  // the decoding problem
	// ModTime is when the file last changed (zero when the backend has no such time):
	// LatestForCwd compares it with the newest readable session.
	ModTime time.Time
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("session store: corrupt session record %s: %v", e.Path, e.Err)
}

// Unwrap lets errors.Is match both ErrCorrupt and the underlying cause.
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// TornTailError is the warning (Options.OnWarning) about a journal that ends with an
// incomplete round: the bytes after the last commit line, left by a crash mid-write. The
// load goes on without them; the next append cuts them off.
type TornTailError struct {
	Path    string
	Dropped int64 // bytes after the last complete round
}

func (e *TornTailError) Error() string {
	return fmt.Sprintf("session store: %s ends with an incomplete round (%d bytes, left by a crash); it was dropped", e.Path, e.Dropped)
}

// Unwrap lets errors.Is match ErrTornTail.
func (e *TornTailError) Unwrap() error { return ErrTornTail }
