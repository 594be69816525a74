package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// File name extensions: the journal, and the whole-record format it replaced (still read;
// migrated to a journal on the session's first append).
const (
	journalExt = ".jsonl"
	legacyExt  = ".json"
)

// FileStore keeps each session in {dir}/{id}.jsonl, an append-only journal (see the
// package doc), mode 0600 in a 0700 directory. It also reads {dir}/{id}.json records of
// the earlier whole-record format.
type FileStore struct {
	dir  string
	opts Options

	mu       sync.Mutex
	journals map[string]*fileJournal
}

// fileJournal is the open journal of one session: the writer's view of its tail, so an
// append costs one write and one fsync of the new bytes whatever the history's size.
type fileJournal struct {
	mu     sync.Mutex
	f      *os.File // nil until the first append
	st     tail
	header []byte // header payload in force
	enc    *encoder
}

// NewFileStore returns a store over dir; the directory is created on the first write.
func NewFileStore(dir string, opts Options) *FileStore {
	return &FileStore{dir: dir, opts: opts, journals: map[string]*fileJournal{}}
}

var _ Store = (*FileStore)(nil)

// Dir returns the directory the store writes to.
func (s *FileStore) Dir() string { return s.dir }

// Path returns the journal that holds (or will hold) the session id.
func (s *FileStore) Path(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, id+journalExt), nil
}

func (s *FileStore) legacyPath(id string) string { return filepath.Join(s.dir, id+legacyExt) }

func (s *FileStore) journal(id string) *fileJournal {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.journals[id]
	if j == nil {
		j = &fileJournal{enc: newEncoder()}
		s.journals[id] = j
	}
	return j
}

// Close closes the open journals. The store stays usable: they reopen on the next append.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, j := range s.journals {
		j.mu.Lock()
		errs = append(errs, j.close())
		j.mu.Unlock()
	}
	return errors.Join(errs...)
}

func (j *fileJournal) close() error {
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f, j.st, j.header = nil, tail{}, nil
	return err
}

// Append implements Store: the batch is written at the end of the last complete round
// (cutting a torn tail first) with one write and one fsync.
func (s *FileStore) Append(ctx context.Context, d *Delta) error {
	path, err := s.Path(d.ID)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	j := s.journal(d.ID)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil { // another writer (or store) may have appended since: resync
		if st, err := j.f.Stat(); err != nil || st.Size() != j.st.end {
			_ = j.close()
		}
	}
	if j.f == nil {
		created, err := s.open(j, d, path)
		if err != nil || created {
			return err
		}
	}
	now := s.opts.now()
	b, next, header, err := j.enc.batch(d, j.st, true, j.header, j.st.end, now)
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	if _, err := writeAt(j.f, b, j.st.end); err != nil {
		return s.undo(j, path, err)
	}
	if err := j.f.Sync(); err != nil {
		return s.undo(j, path, err)
	}
	j.st, j.header = next, header
	return nil
}

// writeAt writes an append; tests replace it to fail like a full disk.
var writeAt = (*os.File).WriteAt

// undo cuts a failed append back off (a full disk may have taken part of it) and
// reports the failure naming the file.
func (s *FileStore) undo(j *fileJournal, path string, err error) error {
	if terr := j.f.Truncate(j.st.end); terr != nil {
		_ = j.close() // the next append re-reads the tail
	}
	return fmt.Errorf("session store: cannot write %s: %w", path, err)
}

// open opens the session's journal for appending: it reads the tail, cuts off a torn
// round, and migrates a record of the whole-record format. When the session has no
// journal yet, open creates it from d (created is then true and d is written).
func (s *FileStore) open(j *fileJournal, d *Delta, path string) (created bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if legacy, lerr := os.ReadFile(s.legacyPath(d.ID)); lerr == nil {
			if err := s.migrate(d.ID, path, legacy); err != nil {
				return false, err
			}
			f, err = os.OpenFile(path, os.O_RDWR, 0)
		} else {
			return true, s.create(j, d, path)
		}
	}
	if err != nil {
		return false, fmt.Errorf("session store: open %s: %w", path, err)
	}
	st, header, size, err := readTail(f)
	if err != nil {
		f.Close()
		return false, &CorruptError{Path: path, Err: err}
	}
	if size > st.end {
		s.opts.warn(&TornTailError{Path: path, Dropped: size - st.end})
		if err := f.Truncate(st.end); err != nil {
			f.Close()
			return false, fmt.Errorf("session store: cannot write %s: %w", path, err)
		}
	}
	j.f, j.st, j.header = f, st, header
	return false, nil
}

// create writes a new journal holding d, atomically (temp file, fsync, rename), and
// keeps it open for the next append (which then need not read the tail back).
func (s *FileStore) create(j *fileJournal, d *Delta, path string) error {
	if d.Reset {
		d2 := *d
		d2.Reset = false
		d = &d2
	}
	b, st, header, err := j.enc.batch(d, tail{}, false, nil, 0, s.opts.now())
	if err != nil {
		return err
	}
	defer j.enc.trim()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("session store: cannot write %s: %w", path, err)
	}
	f, err := createFileAtomic(path, b, 0o600)
	if err != nil {
		return fmt.Errorf("session store: cannot write %s: %w", path, err)
	}
	j.f, j.st, j.header = f, st, header
	return nil
}

// writeNew writes a complete journal atomically.
func (s *FileStore) writeNew(path string, b []byte) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("session store: cannot write %s: %w", path, err)
	}
	if err := writeFileAtomic(path, b, 0o600); err != nil {
		return fmt.Errorf("session store: cannot write %s: %w", path, err)
	}
	return nil
}

// migrate turns a whole-record file into a journal (the same record), then removes it.
// A crash between the two leaves both; the journal wins from then on.
func (s *FileStore) migrate(id, path string, legacy []byte) error {
	rec, _, err := decodeStored(legacy, id, s.legacyPath(id))
	if err != nil {
		return err
	}
	b, _, _, err := newEncoder().batch(wholeRecord(&rec), tail{}, false, nil, 0, rec.UpdatedAt)
	if err != nil {
		return err
	}
	if err := s.writeNew(path, b); err != nil {
		return err
	}
	if err := os.Remove(s.legacyPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session store: migrated %s, but: %w", id, err)
	}
	return syncDir(s.dir)
}

// readTail finds the last complete round of an open journal, reading backwards from the
// end in growing chunks, and the header payload in force.
func readTail(f *os.File) (st tail, header []byte, size int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return tail{}, nil, 0, err
	}
	size = fi.Size()
	for chunk := int64(16 << 10); ; chunk *= 4 {
		off := max(0, size-chunk)
		buf := make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return tail{}, nil, 0, err
		}
		body, base := buf, off
		if off > 0 { // the first line may start before the chunk
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				continue
			}
			body, base = buf[i+1:], off+int64(i)+1
		}
		if end, c, ok := lastCommit(body); ok {
			c.end = base + end
			header, err := readLineAt(f, c.headerOff)
			if err != nil {
				return tail{}, nil, 0, err
			}
			if header, err = headerPayload(header); err != nil {
				return tail{}, nil, 0, err
			}
			return c, header, size, nil
		}
		if off == 0 {
			return tail{}, nil, 0, errors.New("no complete round (no commit line)")
		}
	}
}

// readLineAt reads the line starting at off (without its newline).
func readLineAt(f *os.File, off int64) ([]byte, error) {
	var line []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := f.ReadAt(buf, off+int64(len(line)))
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return append(line, buf[:i]...), nil
		}
		line = append(line, buf[:n]...)
		if err != nil {
			return nil, fmt.Errorf("line at offset %d: %w", off, err)
		}
		if len(buf) < 1<<20 {
			buf = make([]byte, len(buf)*2)
		}
	}
}

// Save implements Store: the record is written as a new journal that replaces the old
// one atomically (temp file, fsync, rename); a whole-record file of the session goes.
func (s *FileStore) Save(ctx context.Context, rec *Record) error {
	path, err := s.Path(rec.ID)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	j := s.journal(rec.ID)
	j.mu.Lock()
	defer j.mu.Unlock()
	stamped := *rec
	b, _, _, err := j.enc.batch(wholeRecord(&stamped), tail{}, false, nil, 0, s.opts.now())
	if err != nil {
		return fmt.Errorf("session store: encode %s: %w", rec.ID, err)
	}
	_ = j.close()
	err = s.writeNew(path, b)
	j.enc.trim()
	if err != nil {
		return err
	}
	rec.CreatedAt, rec.UpdatedAt = stamped.CreatedAt, stamped.UpdatedAt
	if err := os.Remove(s.legacyPath(rec.ID)); err == nil {
		_ = syncDir(s.dir)
	}
	removeStaleTemps(path)
	return nil
}

// staleTempAge is how old a temp file must be before a save takes it for the leftover of
// a killed save rather than a concurrent one.
const staleTempAge = 10 * time.Minute

// removeStaleTemps deletes temp files of path's journal left behind by processes killed
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
