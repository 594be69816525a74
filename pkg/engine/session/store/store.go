package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Store is the session persistence port. Implementations are safe for concurrent use;
// one process writes a given session at a time.
type Store interface {
	// Append adds d to the session's journal as one batch and makes it durable before it
	// returns. The first Append of a session creates it (d.Header is then required).
	// A failed Append leaves the journal as it was.
	Append(ctx context.Context, d *Delta) error
	// Save writes rec whole, replacing any record with the same ID. It stamps
	// rec.UpdatedAt with the store's clock (and rec.CreatedAt when zero).
	Save(ctx context.Context, rec *Record) error
	// Load returns the record with that ID, ErrNotFound when there is none, or a
	// *CorruptError when it cannot be read back. A torn last round is dropped and
	// reported to Options.OnWarning, never an error.
	Load(ctx context.Context, id string) (Record, error)
	// List describes every readable session, newest UpdatedAt first, without decoding
	// their histories; unreadable ones are reported in Listing.Corrupt. The error is for
	// backend failures only.
	List(ctx context.Context) (Listing, error)
	// Fork copies the session id under newID (for --fork-session) without re-encoding
	// its history, records id as the copy's Parent, leaves the copy unnamed (a name
	// names one session, for --resume NAME), and returns the copy. It returns
	// ErrNotFound when id does not exist and ErrExists when newID is taken.
	Fork(ctx context.Context, id, newID string) (Record, error)
	// Delete removes the record with that ID; deleting an unknown ID is not an error.
	Delete(ctx context.Context, id string) error
}

// Info describes a stored session for listings.
type Info struct {
	ID, Cwd, Name, Parent string
	CreatedAt, UpdatedAt  time.Time
	// Messages is the length of the history.
	Messages int
	// FirstPrompt is the history's first user message on one line (shortened), for a
	// picker; empty when it is not near the start of the stored session.
	FirstPrompt string
}

// Listing is the result of List.
type Listing struct {
	Sessions []Info
	Corrupt  []*CorruptError
}

// Options configure a store. Zero values use the wall clock and drop warnings.
type Options struct {
	// Now stamps CreatedAt/UpdatedAt; it defaults to time.Now. Stamps are stored in UTC.
	Now func() time.Time
	// OnWarning receives problems a load recovered from (a *TornTailError). It may be
	// called from any goroutine using the store.
	OnWarning func(error)
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

func (o Options) warn(err error) {
	if o.OnWarning != nil {
		o.OnWarning(err)
	}
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

// mtimeSlack is how much older than the newest readable session a corrupt file may look
// and still be taken for the newest (see LatestForCwd).
const mtimeSlack = time.Second

// LatestForCwd returns the most recently updated session whose Cwd is cwd (compared
// after filepath.Clean), for --continue. It returns ErrNotFound when there is none. A
// corrupt record is not skipped: when it could be the newest one (its file changed after
// the newest readable session of cwd) LatestForCwd returns its *CorruptError, so that
// --continue never silently resumes an older session.
func LatestForCwd(ctx context.Context, s Store, cwd string) (Info, error) {
	listing, err := s.List(ctx)
	if err != nil {
		return Info{}, err
	}
	want := filepath.Clean(cwd)
	var found *Info
	for i, r := range listing.Sessions {
		if r.Cwd != "" && filepath.Clean(r.Cwd) == want {
			found = &listing.Sessions[i]
			break
		}
	}
	for _, c := range listing.Corrupt {
		// A file's time comes from the kernel's coarse clock, UpdatedAt from time.Now: a
		// file written just after a save can read a few milliseconds older, so a corrupt
		// file up to mtimeSlack older than the newest session still counts as newer.
		if found == nil || c.ModTime.IsZero() || c.ModTime.After(found.UpdatedAt.Add(-mtimeSlack)) {
			return Info{}, c
		}
	}
	if found == nil {
		return Info{}, fmt.Errorf("%w: no session for %s", ErrNotFound, want)
	}
	return *found, nil
}

// Fork copies the record id under newID; see Store.Fork.
func Fork(ctx context.Context, s Store, id, newID string) (Record, error) {
	if err := ValidateID(newID); err != nil {
		return Record{}, err
	}
	if err := ValidateID(id); err != nil {
		return Record{}, err
	}
	if id == newID {
		return Record{}, fmt.Errorf("%w: fork of %s onto itself", ErrExists, id)
	}
	return s.Fork(ctx, id, newID)
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

// sortInfos orders sessions newest UpdatedAt first, ties by ID.
func sortInfos(infos []Info) {
	slices.SortFunc(infos, func(a, b Info) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Named lists the readable sessions whose name is exactly name, in List's order (newest
// first). Names are what /rename set; they are not unique.
func Named(ctx context.Context, s Store, name string) ([]Info, error) {
	listing, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, in := range listing.Sessions {
		if name != "" && in.Name == name {
			out = append(out, in)
		}
	}
	return out, nil
}
