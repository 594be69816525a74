package store

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"
)

// MemoryStore keeps each session as the same journal bytes a FileStore writes, in
// memory, so both backends share one format and one decoder, and callers never share
// state with the store. It is for tests and for sessions that must not touch disk.
type MemoryStore struct {
	opts    Options
	mu      sync.Mutex
	records map[string][]byte
	enc     *encoder
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts Options) *MemoryStore {
	return &MemoryStore{opts: opts, records: make(map[string][]byte), enc: newEncoder()}
}

var _ Store = (*MemoryStore)(nil)

func where(id string) string { return "memory:" + id }

// Journal returns a copy of the bytes stored for id (nil when there are none), for tests
// and diagnostics.
func (m *MemoryStore) Journal(id string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return bytes.Clone(m.records[id])
}

// SetJournal replaces the bytes stored for id, as if they had been read from a file: a
// journal (torn or not) or a record of the whole-record format. For tests.
func (m *MemoryStore) SetJournal(id string, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.records[id] = bytes.Clone(data)
}

// Append implements Store.
func (m *MemoryStore) Append(ctx context.Context, d *Delta) error {
	if err := ValidateID(d.ID); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.now()
	data, ok := m.records[d.ID]
	if ok && !isJournal(data) { // whole-record format: migrate first
		rec, _, err := decodeStored(data, d.ID, where(d.ID))
		if err != nil {
			return err
		}
		b, _, _, err := m.enc.batch(wholeRecord(&rec), tail{}, false, nil, 0, rec.UpdatedAt)
		if err != nil {
			return err
		}
		data = bytes.Clone(b)
	}
	if !ok {
		nd := *d
		nd.Reset = false
		b, _, _, err := m.enc.batch(&nd, tail{}, false, nil, 0, now)
		if err != nil {
			return err
		}
		m.records[d.ID] = bytes.Clone(b)
		return nil
	}
	end, st, found := lastCommit(data)
	if !found {
		return &CorruptError{Path: where(d.ID), Err: fmt.Errorf("no complete round (no commit line)")}
	}
	if int64(len(data)) > end {
		m.opts.warn(&TornTailError{Path: where(d.ID), Dropped: int64(len(data)) - end})
	}
	header, err := headerAt(data[:end], st.headerOff)
	if err != nil {
		return &CorruptError{Path: where(d.ID), Err: err}
	}
	b, _, _, err := m.enc.batch(d, st, true, header, end, now)
	if err != nil {
		return err
	}
	out := make([]byte, 0, int(end)+len(b))
	m.records[d.ID] = append(append(out, data[:end]...), b...)
	return nil
}

// Save implements Store.
func (m *MemoryStore) Save(ctx context.Context, rec *Record) error {
	if err := ValidateID(rec.ID); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	stamped := *rec
	b, _, _, err := m.enc.batch(wholeRecord(&stamped), tail{}, false, nil, 0, m.opts.now())
	if err != nil {
		return fmt.Errorf("session store: encode %s: %w", rec.ID, err)
	}
	m.records[rec.ID] = bytes.Clone(b)
	rec.CreatedAt, rec.UpdatedAt = stamped.CreatedAt, stamped.UpdatedAt
	return nil
}

// Load implements Store.
func (m *MemoryStore) Load(ctx context.Context, id string) (Record, error) {
	if err := ValidateID(id); err != nil {
		return Record{}, err
	}
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	data, ok := m.records[id]
	m.mu.Unlock()
	if !ok {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	rec, torn, err := decodeStored(data, id, where(id))
	if err != nil {
		return Record{}, err
	}
	if torn > 0 {
		m.opts.warn(&TornTailError{Path: where(id), Dropped: torn})
	}
	return rec, nil
}

// List implements Store; like FileStore, it reads only the last commit and the header
// of a journal.
func (m *MemoryStore) List(ctx context.Context) (Listing, error) {
	if err := ctx.Err(); err != nil {
		return Listing{}, err
	}
	m.mu.Lock()
	snapshot := make(map[string][]byte, len(m.records))
	for id, b := range m.records {
		snapshot[id] = b // never mutated in place: Append builds a new slice
	}
	m.mu.Unlock()
	var l Listing
	for id, data := range snapshot {
		info, err := memInfo(data, id)
		if err != nil {
			l.Corrupt = append(l.Corrupt, asCorrupt(err, where(id)))
			continue
		}
		l.Sessions = append(l.Sessions, info)
	}
	sortInfos(l.Sessions)
	return l, nil
}

func memInfo(data []byte, id string) (Info, error) {
	if !isJournal(data) {
		rec, _, err := decodeStored(data, id, where(id))
		if err != nil {
			return Info{}, err
		}
		return rec.info(), nil
	}
	end, st, ok := lastCommit(data)
	if !ok {
		return Info{}, fmt.Errorf("no complete round (no commit line)")
	}
	header, err := headerAt(data[:end], st.headerOff)
	if err != nil {
		return Info{}, err
	}
	info, err := infoOf(st, header)
	if err == nil && info.ID != id {
		err = fmt.Errorf("holds session %q, not %q", info.ID, id)
	}
	if err == nil {
		info.FirstPrompt = firstPrompt(data[:end], st.resetOff)
	}
	return info, err
}

// Fork implements Store.
func (m *MemoryStore) Fork(ctx context.Context, id, newID string) (Record, error) {
	if err := ValidateID(newID); err != nil {
		return Record{}, err
	}
	if err := ValidateID(id); err != nil {
		return Record{}, err
	}
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, taken := m.records[newID]; taken {
		return Record{}, fmt.Errorf("%w: %s", ErrExists, newID)
	}
	data, ok := m.records[id]
	if !ok {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	now := m.opts.now()
	if !isJournal(data) {
		rec, _, err := decodeStored(data, id, where(id))
		if err != nil {
			return Record{}, err
		}
		rec.ID, rec.Parent, rec.CreatedAt, rec.Name = newID, id, time.Time{}, ""
		b, _, _, err := m.enc.batch(wholeRecord(&rec), tail{}, false, nil, 0, now)
		if err != nil {
			return Record{}, err
		}
		m.records[newID] = bytes.Clone(b)
		return rec, nil
	}
	b, err := forkBytes(data, id, newID, now)
	if err != nil {
		return Record{}, &CorruptError{Path: where(id), Err: err}
	}
	rec, _, err := decodeStored(b, newID, where(newID))
	if err != nil {
		return Record{}, err
	}
	m.records[newID] = b
	return rec, nil
}

// Delete implements Store.
func (m *MemoryStore) Delete(ctx context.Context, id string) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.records, id)
	m.mu.Unlock()
	return nil
}
