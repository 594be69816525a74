package interactive

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/memory"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// The memory audit trail lives in the record's header, which is written again when it
// changes: it is bounded, so a long session's header stays small.
const (
	maxMemoryEvents     = 200
	maxMemoryReferences = 50
)

// memoryState is a session's project memory: the store of its project and the audit
// trail the record keeps (memoryEvents, usedMemoryReferences), restored on resume.
type memoryState struct {
	store *memory.Store
	now   func() time.Time
	newID func() string
	log   func(event string, data any) // the session log; nil without one

	mu     sync.Mutex
	events []json.RawMessage
	refs   []json.RawMessage
}

func newMemoryState(root string, resume *store.Record, now func() time.Time, newID func() string) *memoryState {
	m := &memoryState{store: memory.NewStore(root, now), now: now, newID: newID}
	if resume != nil {
		m.events = slices.Clone(resume.MemoryEvents)
		m.refs = slices.Clone(resume.UsedMemoryReferences)
	}
	return m
}

// record appends an audit event (and logs it as a memory_event).
func (m *memoryState) record(e memory.Event) memory.Event {
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
	m.mu.Unlock()
	if m.log != nil {
		m.log(string(sessionlog.EventMemory), e)
	}
	return e
}

// use records that topic was retrieved into the conversation; a topic used again moves
// to the end.
func (m *memoryState) use(ref memory.Reference) {
	raw, err := json.Marshal(ref)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs = slices.DeleteFunc(m.refs, func(r json.RawMessage) bool {
		var old memory.Reference
		return json.Unmarshal(r, &old) == nil && old.Topic == ref.Topic
	})
	m.refs = append(m.refs, raw)
	if n := len(m.refs); n > maxMemoryReferences {
		m.refs = slices.Clone(m.refs[n-maxMemoryReferences:])
	}
}

// snapshot returns the trail for the record.
func (m *memoryState) snapshot() (events, refs []json.RawMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.events), slices.Clone(m.refs)
}

func (m *memoryState) decorate(rec *store.Record) {
	rec.MemoryEvents, rec.UsedMemoryReferences = m.snapshot()
}
