package memory

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// The memory audit trail lives in the record's header, which is written again when it
// changes: it is bounded, so a long session's header stays small.
const (
	maxMemoryEvents     = 200
	maxMemoryReferences = 50
)

// Audit is a session's project memory: the store of its project and the audit trail the
// session record keeps (memoryEvents, usedMemoryReferences), restored on resume. It is
// safe for concurrent use.
type Audit struct {
	store *Store
	now   func() time.Time
	newID func() string

	mu     sync.Mutex
	log    func(event string, data any) // the session log; nil without one
	events []json.RawMessage
	refs   []json.RawMessage
}

// NewAudit opens the memory of the project at root, with the trail a resumed session's
// record held (events, refs; nil for a new session).
func NewAudit(root string, events, refs []json.RawMessage, now func() time.Time, newID func() string) *Audit {
	return &Audit{store: NewStore(root, now), now: now, newID: newID,
		events: slices.Clone(events), refs: slices.Clone(refs)}
}

// SetLog makes every recorded event a line of the session log too.
func (m *Audit) SetLog(log func(event string, data any)) {
	m.mu.Lock()
	m.log = log
	m.mu.Unlock()
}

// Store is the project's memory store.
func (m *Audit) Store() *Store { return m.store }

// Now is the audit's clock.
func (m *Audit) Now() time.Time { return m.now() }

// NewID is a fresh id from the audit's generator.
func (m *Audit) NewID() string { return m.newID() }

// Record appends an audit event (and logs it as a memory_event).
func (m *Audit) Record(e Event) Event {
	e.ID, e.At = m.newID(), m.now().UTC()
	raw, err := json.Marshal(e)
	if err != nil {
		return e
	}
	m.mu.Lock()
	m.events = append(m.events, raw)
	if n := len(m.events); n > maxMemoryEvents {
		m.events = slices.Clone(m.events[n-maxMemoryEvents:])
	}
	log := m.log
	m.mu.Unlock()
	if log != nil {
		log(string(sessionlog.EventMemory), e)
	}
	return e
}

// Use records that topic was retrieved into the conversation; a topic used again moves
// to the end.
func (m *Audit) Use(ref Reference) {
	raw, err := json.Marshal(ref)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs = slices.DeleteFunc(m.refs, func(r json.RawMessage) bool {
		var old Reference
		return json.Unmarshal(r, &old) == nil && old.Topic == ref.Topic
	})
	m.refs = append(m.refs, raw)
	if n := len(m.refs); n > maxMemoryReferences {
		m.refs = slices.Clone(m.refs[n-maxMemoryReferences:])
	}
}

// Snapshot returns the trail for the record.
func (m *Audit) Snapshot() (events, refs []json.RawMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.events), slices.Clone(m.refs)
}
