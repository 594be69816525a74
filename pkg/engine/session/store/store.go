package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Store is the session persistence port. Implementations are safe for concurrent use.
type Store interface {
	// Save writes rec, replacing any record with the same ID. It stamps rec.UpdatedAt
	// with the store's clock (and rec.CreatedAt when zero) before writing.
	Save(ctx context.Context, rec *Record) error
	// Load returns the record with that ID, ErrNotFound when there is none, or a
	// *CorruptError when it cannot be read back.
	Load(ctx context.Context, id string) (Record, error)
	// List returns every readable record, newest UpdatedAt first; unreadable ones are
	// reported in Listing.Corrupt. The error is for backend failures only.
	List(ctx context.Context) (Listing, error)
	// Delete removes the record with that ID; deleting an unknown ID is not an error.
	Delete(ctx context.Context, id string) error
}

// Listing is the result of List.
type Listing struct {
	Records []Record
	Corrupt []*CorruptError
}

// Options configure a store. Zero values use the wall clock.
type Options struct {
	// Now stamps CreatedAt/UpdatedAt; it defaults to time.Now. Stamps are stored in UTC.
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

// maxIDLength keeps file names well under common file system limits.
const maxIDLength = 128

// ValidateID accepts IDs made of ASCII letters, digits, '-', '_' and '.', up to 128
// characters, not starting with '.' and not containing "..". Such an ID is always a single
// plain file name component, so it can never escape the store's directory.
func ValidateID(id string) error {
	if id == "" || len(id) > maxIDLength {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	if id[0] == '.' {
		return fmt.Errorf("%w: %q starts with '.'", ErrInvalidID, id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.'
		if !ok {
			return fmt.Errorf("%w: %q has character %q", ErrInvalidID, id, c)
		}
		if c == '.' && i+1 < len(id) && id[i+1] == '.' {
			return fmt.Errorf("%w: %q contains \"..\"", ErrInvalidID, id)
		}
	}
	return nil
}

// LatestForCwd returns the most recently updated record whose Cwd is cwd (compared after
// filepath.Clean), for --continue. It returns ErrNotFound when there is none; corrupt
// records are skipped.
func LatestForCwd(ctx context.Context, s Store, cwd string) (Record, error) {
	listing, err := s.List(ctx)
	if err != nil {
		return Record{}, err
	}
	want := filepath.Clean(cwd)
	for _, r := range listing.Records {
		if r.Cwd != "" && filepath.Clean(r.Cwd) == want {
			return r, nil
		}
	}
	return Record{}, fmt.Errorf("%w: no session for %s", ErrNotFound, want)
}

// Fork copies the record id under newID (for --fork-session) and saves the copy with fresh
// timestamps; the original record is not written. It returns ErrNotFound when id does not
// exist and ErrExists when newID is taken.
func Fork(ctx context.Context, s Store, id, newID string) (Record, error) {
	if err := ValidateID(newID); err != nil {
		return Record{}, err
	}
	if id == newID {
		return Record{}, fmt.Errorf("%w: fork of %s onto itself", ErrExists, id)
	}
	src, err := s.Load(ctx, id)
	if err != nil {
		return Record{}, err
	}
	if _, err := s.Load(ctx, newID); err == nil {
		return Record{}, fmt.Errorf("%w: %s", ErrExists, newID)
	} else if !errors.Is(err, ErrNotFound) {
		return Record{}, err
	}
	fork, err := src.clone()
	if err != nil {
		return Record{}, fmt.Errorf("fork %s: %w", id, err)
	}
	fork.ID = newID
	fork.CreatedAt = time.Time{}
	if err := s.Save(ctx, &fork); err != nil {
		return Record{}, err
	}
	return fork, nil
}

// ProjectDir is where a project run keeps its session records: {cwd}/.robota/sessions.
func ProjectDir(cwd string) string { return filepath.Join(cwd, ".robota", "sessions") }

// UserDir is where runs outside a project keep their session records: ~/.robota/sessions.
func UserDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("session store: no home directory: %w", err)
	}
	return filepath.Join(home, ".robota", "sessions"), nil
}

// sortRecords orders records newest UpdatedAt first, ties by ID.
func sortRecords(recs []Record) {
	slices.SortFunc(recs, func(a, b Record) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}
