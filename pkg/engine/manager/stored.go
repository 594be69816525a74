package manager

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// The stored side of the sessions: the project's session store and logs, where
// assemble.Assemble keeps them. This file is the only one that reads a Store's
// listing (its shape is the store's).

// projectStore is the store of the sessions started in cwd: the project's, or the user's
// for a directory outside a project (assemble.StateRoot).
func projectStore(home, cwd string) *store.FileStore {
	return store.NewFileStore(assemble.SessionsDir(cwd, home), store.Options{})
}

// storedInfos lists the stored sessions of the project cwd.
func storedInfos(ctx context.Context, home, cwd string) ([]Info, error) {
	if _, err := os.Stat(assemble.SessionsDir(cwd, home)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	listing, err := projectStore(home, cwd).List(ctx)
	if err != nil {
		return nil, fmt.Errorf("sessions of %s: %w", cwd, err)
	}
	out := make([]Info, 0, len(listing.Sessions))
	for _, r := range listing.Sessions {
		// r.Messages counts the system prompt, which a session always holds first.
		in := Info{ID: r.ID, Cwd: r.Cwd, Name: r.Name, Title: r.Name, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
			MessageCount: max(0, r.Messages-1)}
		if in.Cwd == "" {
			in.Cwd = cwd
		}
		out = append(out, in)
	}
	return out, nil
}

// latestStored is the id of the newest stored session of cwd (for Continue).
func latestStored(ctx context.Context, home, cwd string) (string, error) {
	latest, err := store.LatestForCwd(ctx, projectStore(home, cwd), cwd)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("%w: no stored session in %s to continue", ErrNotFound, cwd)
	}
	if err != nil {
		return "", err
	}
	return latest.ID, nil
}

// resolveStored turns a Resume that names a session (/rename) into its id; an id, a
// live session's or a stored one's, is returned as it is.
func resolveStored(ctx context.Context, home, cwd, ref string) (string, error) {
	if _, err := os.Stat(assemble.SessionsDir(cwd, home)); errors.Is(err, os.ErrNotExist) {
		return ref, nil // storedExists reports it
	}
	id, err := assemble.ResolveSession(ctx, projectStore(home, cwd), ref)
	switch {
	case errors.Is(err, assemble.ErrUnknownSession):
		return "", fmt.Errorf("%w: %q is not stored in %s: %w", ErrNotFound, ref, assemble.SessionsDir(cwd, home), err)
	case errors.Is(err, assemble.ErrAmbiguousSession):
		return "", &FieldError{Field: "Resume", Err: err}
	case err != nil:
		return ref, nil // storedExists reports it, as before
	}
	return id, nil
}

// storedExists checks that the session id is stored in cwd's project.
func storedExists(ctx context.Context, home, cwd, id string) error {
	if err := store.ValidateID(id); err != nil {
		return &FieldError{Field: "Resume", Err: err}
	}
	_, err := projectStore(home, cwd).Load(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %q is not stored in %s", ErrNotFound, id, assemble.SessionsDir(cwd, home))
	}
	return err
}

// deleteStored removes a session's record and its log.
func deleteStored(ctx context.Context, home, cwd, id string) error {
	if err := projectStore(home, cwd).Delete(ctx, id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := os.Remove(sessionlog.LogPath(assemble.LogsDir(cwd, home), id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete session log %s: %w", id, err)
	}
	return nil
}
