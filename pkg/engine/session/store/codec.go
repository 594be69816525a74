package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// stamp sets the save timestamps: UpdatedAt always, CreatedAt when it is zero.
func stamp(rec *Record, now time.Time) {
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now
	}
	rec.UpdatedAt = now
}

// decodeRecord parses a stored record and checks it belongs under id; any failure is a
// *CorruptError naming where.
func decodeRecord(b []byte, id, where string) (Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, &CorruptError{Path: where, Err: err}
	}
	if err := r.validate(); err != nil {
		return Record{}, &CorruptError{Path: where, Err: err}
	}
	if r.ID != id {
		return Record{}, &CorruptError{Path: where, Err: fmt.Errorf("holds session %q, not %q", r.ID, id)}
	}
	return r, nil
}

// asCorrupt returns err as a *CorruptError, wrapping other errors (e.g. a read failure).
func asCorrupt(err error, where string) *CorruptError {
	var ce *CorruptError
	if errors.As(err, &ce) {
		return ce
	}
	return &CorruptError{Path: where, Err: err}
}
