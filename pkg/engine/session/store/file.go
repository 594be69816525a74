package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// recordExt is the extension of record files; temp files never end with it.
const recordExt = ".json"

// FileStore keeps each record in {dir}/{id}.json (indented JSON, mode 0600, directory 0700).
type FileStore struct {
	dir  string
	opts Options
}

// NewFileStore returns a store over dir; the directory is created on the first Save.
func NewFileStore(dir string, opts Options) *FileStore {
	return &FileStore{dir: dir, opts: opts}
}

var _ Store = (*FileStore)(nil)

// Dir returns the directory the store writes to.
func (s *FileStore) Dir() string { return s.dir }

// Path returns the file that holds (or would hold) the record id.
func (s *FileStore) Path(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, id+recordExt), nil
}

// Save implements Store: the record is redacted, then written atomically.
func (s *FileStore) Save(ctx context.Context, rec *Record) error {
	path, err := s.Path(rec.ID)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	stamped := *rec
	stamp(&stamped, s.opts.now())
	b, err := json.Marshal(stamped)
	if err != nil {
		return fmt.Errorf("session store: encode %s: %w", rec.ID, err)
	}
	if b, err = redact.JSON(b); err != nil {
		return fmt.Errorf("session store: redact %s: %w", rec.ID, err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, b, "", "  "); err != nil {
		return fmt.Errorf("session store: encode %s: %w", rec.ID, err)
	}
	indented.WriteByte('\n')
	b = indented.Bytes()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	if err := writeFileAtomic(path, b, 0o600); err != nil {
		return fmt.Errorf("session store: save %s: %w", rec.ID, err)
	}
	rec.CreatedAt, rec.UpdatedAt = stamped.CreatedAt, stamped.UpdatedAt
	removeStaleTemps(path)
	return nil
}

// staleTempAge is how old a temp file must be before Save takes it for the leftover of a
// killed save rather than a concurrent one.
const staleTempAge = 10 * time.Minute

// removeStaleTemps deletes temp files of path's record left behind by processes killed
// mid-save. Failures are ignored: the files are harmless, List never reads them.
func removeStaleTemps(path string) {
	dir, base := filepath.Split(path)
	matches, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp-*"))
	for _, m := range matches {
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > staleTempAge {
			_ = os.Remove(m)
		}
	}
}

// Load implements Store.
func (s *FileStore) Load(ctx context.Context, id string) (Record, error) {
	path, err := s.Path(id)
	if err != nil {
		return Record{}, err
	}
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Record{}, fmt.Errorf("session store: load %s: %w", id, err)
	}
	return decodeRecord(b, id, path)
}

// List implements Store. Files that are not {valid id}.json (temp files, notes,
// directories) are ignored; unreadable record files are reported in Corrupt.
func (s *FileStore) List(ctx context.Context) (Listing, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Listing{}, nil
	}
	if err != nil {
		return Listing{}, fmt.Errorf("session store: list %s: %w", s.dir, err)
	}
	var l Listing
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return Listing{}, err
		}
		id, ok := strings.CutSuffix(e.Name(), recordExt)
		if !ok || !e.Type().IsRegular() || ValidateID(id) != nil {
			continue
		}
		path := filepath.Join(s.dir, e.Name())
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since ReadDir
		}
		if err != nil {
			l.Corrupt = append(l.Corrupt, &CorruptError{Path: path, Err: err})
			continue
		}
		r, err := decodeRecord(b, id, path)
		if err != nil {
			l.Corrupt = append(l.Corrupt, asCorrupt(err, path))
			continue
		}
		l.Records = append(l.Records, r)
	}
	sortRecords(l.Records)
	return l, nil
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
	err = os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("session store: delete %s: %w", id, err)
	}
	return syncDir(s.dir)
}
