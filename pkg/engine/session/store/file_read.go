package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Load implements Store: one read of the file and one decoding pass.
func (s *FileStore) Load(ctx context.Context, id string) (Record, error) {
	path, err := s.Path(id)
	if err != nil {
		return Record{}, err
	}
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	// An append of this store in progress would look like a torn tail.
	j := s.journal(id)
	j.mu.Lock()
	data, err := os.ReadFile(path)
	j.mu.Unlock()
	if errors.Is(err, fs.ErrNotExist) {
		path = s.legacyPath(id)
		data, err = os.ReadFile(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Record{}, fmt.Errorf("session store: load %s: %w", path, err)
	}
	rec, torn, err := decodeStored(data, id, path)
	if err != nil {
		var ce *CorruptError
		if errors.As(err, &ce) {
			ce.ModTime = modTime(path)
		}
		return Record{}, err
	}
	if torn > 0 {
		s.opts.warn(&TornTailError{Path: path, Dropped: torn})
	}
	return rec, nil
}

func modTime(path string) time.Time {
	if st, err := os.Stat(path); err == nil {
		return st.ModTime()
	}
	return time.Time{}
}

// List implements Store. A journal is described from its last commit line and its header
// line (two small reads); a whole-record file is decoded. Files that are neither (temp
// files, notes, directories) are ignored; unreadable sessions are reported in Corrupt.
func (s *FileStore) List(ctx context.Context) (Listing, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Listing{}, nil
	}
	if err != nil {
		return Listing{}, fmt.Errorf("session store: list %s: %w", s.dir, err)
	}
	journals := map[string]bool{}
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), journalExt); ok && e.Type().IsRegular() {
			journals[id] = true
		}
	}
	var l Listing
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return Listing{}, err
		}
		name := e.Name()
		id, isJournal := strings.CutSuffix(name, journalExt)
		if !isJournal {
			var ok bool
			if id, ok = strings.CutSuffix(name, legacyExt); !ok || journals[id] {
				continue
			}
		}
		if !e.Type().IsRegular() || ValidateID(id) != nil {
			continue
		}
		path := filepath.Join(s.dir, name)
		info, err := s.info(path, id, isJournal)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since ReadDir
		}
		if err != nil {
			ce := asCorrupt(err, path)
			ce.ModTime = modTime(path)
			l.Corrupt = append(l.Corrupt, ce)
			continue
		}
		l.Sessions = append(l.Sessions, info)
	}
	sortInfos(l.Sessions)
	return l, nil
}

// Stat describes the session with that ID from its journal's last commit and header (a
// read of the file's tail, as List does), without decoding its history: ErrNotFound when
// there is none. It does not check the lines before the last commit; Load does.
func (s *FileStore) Stat(ctx context.Context, id string) (Info, error) {
	path, err := s.Path(id)
	if err != nil {
		return Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	j := s.journal(id) // an append in progress would look like a torn tail
	j.mu.Lock()
	info, err := s.info(path, id, true)
	j.mu.Unlock()
	if errors.Is(err, fs.ErrNotExist) {
		path = s.legacyPath(id)
		info, err = s.info(path, id, false)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Info{}, fmt.Errorf("session store: stat %s: %w", path, err)
	}
	return info, nil
}

func (s *FileStore) info(path, id string, journal bool) (Info, error) {
	if !journal {
		data, err := os.ReadFile(path)
		if err != nil {
			return Info{}, err
		}
		rec, _, err := decodeStored(data, id, path)
		if err != nil {
			return Info{}, err
		}
		return rec.info(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	st, header, _, err := readTail(f)
	if err != nil {
		return Info{}, err
	}
	info, err := infoOf(st, header)
	if err == nil && info.ID != id {
		err = fmt.Errorf("holds session %q, not %q", info.ID, id)
	}
	if err == nil {
		info.FirstPrompt = firstPromptOf(io.NewSectionReader(f, 0, st.end), st.resetOff)
	}
	return info, err
}

func (r *Record) info() Info {
	return Info{ID: r.ID, Cwd: r.Cwd, Name: r.Name, Parent: r.Parent, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, Messages: len(r.Messages), FirstPrompt: firstUserText(r.Messages)}
}

// asCorrupt returns err as a *CorruptError, wrapping other errors (e.g. a read failure).
func asCorrupt(err error, where string) *CorruptError {
	var ce *CorruptError
	if errors.As(err, &ce) {
		return ce
	}
	return &CorruptError{Path: where, Err: err}
}

// Fork implements Store: the parent's complete rounds are copied byte for byte into the
// new journal, followed by the fork's header and a commit; a whole-record parent is
// decoded and saved whole.
func (s *FileStore) Fork(ctx context.Context, id, newID string) (Record, error) {
	newPath, err := s.Path(newID)
	if err != nil {
		return Record{}, err
	}
	path, err := s.Path(id)
	if err != nil {
		return Record{}, err
	}
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	for _, p := range []string{newPath, s.legacyPath(newID)} {
		if _, err := os.Lstat(p); err == nil {
			return Record{}, fmt.Errorf("%w: %s", ErrExists, newID)
		}
	}
	now := s.opts.now()
	parent, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		rec, err := s.Load(ctx, id)
		if err != nil {
			return Record{}, err
		}
		rec.ID, rec.Parent, rec.CreatedAt = newID, id, time.Time{}
		if err := s.Save(ctx, &rec); err != nil {
			return Record{}, err
		}
		return rec, nil
	}
	if err != nil {
		return Record{}, fmt.Errorf("session store: load %s: %w", path, err)
	}
	b, err := forkBytes(parent, id, newID, now)
	if err != nil {
		return Record{}, &CorruptError{Path: path, Err: err, ModTime: modTime(path)}
	}
	rec, _, err := decodeStored(b, newID, newPath)
	if err != nil {
		return Record{}, err
	}
	if err := s.writeNew(newPath, b); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// Delete implements Store.
func (s *FileStore) Delete(ctx context.Context, id string) error {
	path, err := s.Path(id)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	j := s.journal(id)
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.close()
	removed := false
	for _, p := range []string{path, s.legacyPath(id)} {
		err := os.Remove(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("session store: delete %s: %w", id, err)
		}
		removed = removed || err == nil
	}
	if !removed {
		return nil
	}
	return syncDir(s.dir)
}
