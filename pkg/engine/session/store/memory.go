package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// MemoryStore keeps records in memory, in their JSON form, so callers never share state
// with the store. It is for tests and for sessions that must not touch disk.
type MemoryStore struct {
	opts    Options
	mu      sync.Mutex
	records map[string][]byte
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts Options) *MemoryStore {
	return &MemoryStore{opts: opts, records: make(map[string][]byte)}
}

var _ Store = (*MemoryStore)(nil)

// Save implements Store.
func (m *MemoryStore) Save(ctx context.Context, rec *Record) error {
	if err := ValidateID(rec.ID); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	stamped := *rec
	stamp(&stamped, m.opts.now())
	b, err := json.Marshal(stamped)
	if err != nil {
		return fmt.Errorf("session store: encode %s: %w", rec.ID, err)
	}
	m.mu.Lock()
	m.records[rec.ID] = b
	m.mu.Unlock()
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
	b, ok := m.records[id]
	m.mu.Unlock()
	if !ok {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return decodeRecord(b, id, "memory:"+id)
}

// List implements Store.
func (m *MemoryStore) List(ctx context.Context) (Listing, error) {
	if err := ctx.Err(); err != nil {
		return Listing{}, err
	}
	m.mu.Lock()
	snapshot := make(map[string][]byte, len(m.records))
	for id, b := range m.records {
		snapshot[id] = b
	}
	m.mu.Unlock()
	var l Listing
	for id, b := range snapshot {
		r, err := decodeRecord(b, id, "memory:"+id)
		if err != nil {
			l.Corrupt = append(l.Corrupt, asCorrupt(err, "memory:"+id))
			continue
		}
		l.Records = append(l.Records, r)
	}
	sortRecords(l.Records)
	return l, nil
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
