package assemble

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// ErrAmbiguousSession is returned by --resume NAME when several stored sessions have that
// name: the message lists them, and one is resumed by its id. robota -p exits 1 on it.
var ErrAmbiguousSession = errors.New("several sessions have this name")

// ErrUnknownSession is returned by --resume when no stored session has that id or name.
var ErrUnknownSession = errors.New("no such session")

// maxListedNames bounds the session names an unknown --resume lists.
const maxListedNames = 10

// ResolveSession finds the stored session --resume names: the session with that id, else
// the one session whose name (set with /rename) is exactly ref. Several sessions of that
// name are an ErrAmbiguousSession listing their ids; none is an ErrUnknownSession listing
// the names there are. A corrupt record is the store's *CorruptError.
func ResolveSession(ctx context.Context, st store.Store, ref string) (string, error) {
	if store.ValidateID(ref) == nil {
		// A store that reads a session's tail tells whether it exists without decoding
		// the history: the caller loads it next, so a whole Load here read it twice.
		if s, ok := st.(sessionStatter); ok {
			if _, err := s.Stat(ctx, ref); err == nil {
				return ref, nil
			} else if errors.Is(err, store.ErrNotFound) {
				return resolveName(ctx, st, ref)
			}
			// Anything else (a torn or damaged tail): Load decides, as before.
		}
		_, err := st.Load(ctx, ref)
		if err == nil || !errors.Is(err, store.ErrNotFound) {
			return ref, err
		}
	}
	return resolveName(ctx, st, ref)
}

// sessionStatter is a store that describes a session from its journal's tail
// (store.FileStore.Stat).
type sessionStatter interface {
	Stat(ctx context.Context, id string) (store.Info, error)
}

// resolveName is ResolveSession for a ref that is no stored session's id.
func resolveName(ctx context.Context, st store.Store, ref string) (string, error) {
	named, err := store.Named(ctx, st, ref)
	if err != nil {
		return "", err
	}
	switch len(named) {
	case 1:
		return named[0].ID, nil
	case 0:
		return "", unknownSession(ctx, st, ref)
	}
	var ids []string
	for _, in := range named {
		ids = append(ids, fmt.Sprintf("%s (updated %s, %d messages)", in.ID, in.UpdatedAt.Local().Format("2006-01-02 15:04"), in.Messages))
	}
	return "", fmt.Errorf("%w: %d sessions are named %q: %s; resume one by its id", ErrAmbiguousSession, len(named), ref, strings.Join(ids, ", "))
}

func unknownSession(ctx context.Context, st store.Store, ref string) error {
	listing, _ := st.List(ctx)
	var names []string
	for _, in := range listing.Sessions {
		if in.Name != "" && !slices.Contains(names, in.Name) {
			names = append(names, in.Name)
		}
	}
	hint := "no session has that id or name"
	if len(names) > maxListedNames {
		names = append(names[:maxListedNames], "…")
	}
	if len(names) > 0 {
		hint += "; named sessions: " + strings.Join(quoteAll(names), ", ")
	}
	return fmt.Errorf("%w (%s)", ErrUnknownSession, hint)
}

func quoteAll(v []string) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = fmt.Sprintf("%q", s)
		if s == "…" {
			out[i] = s
		}
	}
	return out
}
