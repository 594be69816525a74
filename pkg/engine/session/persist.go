package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// persisted is what the store holds of this session, so that a save sends only what is
// new: the store appends it, and the cost of a save does not grow with the history.
type persisted struct {
	mu      sync.Mutex
	gen     int   // the history generation msgs and events count in (see Session.gen)
	msgs    int   // messages of that history the store holds
	events  int   // timeline events of it the store holds
	replace []int // indexes below msgs whose message changed since (a resumed system message)
	started bool  // the store holds the session: a save without a header is enough
}

// initPersisted sets what the store holds when the session starts: nothing, or the
// resumed record when the session continues it under its own ID.
func (s *Session) initPersisted(resume *store.Record, history []llm.Message) {
	if resume == nil || resume.ID != s.id {
		return
	}
	p := &s.saved
	p.started, p.msgs, p.events = true, len(resume.Messages), len(resume.Events)
	switch {
	case len(history) != len(resume.Messages): // a system message was put in front
		p.gen = -1 // differs from the session's: the first save starts over
	case len(history) > 0 && (history[0].ID != resume.Messages[0].ID || history[0].Text() != resume.Messages[0].Text()):
		p.replace = []int{0} // the system message was replaced
	}
}

// persist saves the session (header fields included) when a store is configured. An
// aborted run still saves.
func (s *Session) persist(ctx context.Context) error {
	return s.save(ctx, true)
}

// persistRound makes the rounds completed so far durable before the next provider request
// (DESIGN.md decision 8): only the new messages are appended. A failure is logged; the
// save at the end of the run tries again and reports it.
func (s *Session) persistRound() {
	_ = s.save(context.Background(), false)
}

// save appends to the store what it does not hold yet. withHeader sends the header
// fields too (the store writes them only when they changed); the first save of a session
// always does. When the store holds something else than this session believes (a record
// resumed from elsewhere), the history is sent again whole, as a reset.
func (s *Session) save(ctx context.Context, withHeader bool) error {
	if s.cfg.Store == nil {
		return nil
	}
	p := &s.saved
	p.mu.Lock()
	defer p.mu.Unlock()
	s.mu.Lock()
	a, gen := s.agent, s.gen
	events := s.eventsView()
	s.mu.Unlock()
	msgs := a.HistoryView()
	reset := p.gen != gen
	d, err := s.delta(p, msgs, events, reset, withHeader || !p.started)
	if err == nil {
		err = s.cfg.Store.Append(context.WithoutCancel(ctx), d)
		if errors.Is(err, store.ErrConflict) && !reset {
			if d, err = s.delta(p, msgs, events, true, true); err == nil {
				err = s.cfg.Store.Append(context.WithoutCancel(ctx), d)
			}
		}
	}
	if err != nil {
		s.log(sessionlog.EventError, sessionlog.NewErrorData("save", err))
		return err
	}
	p.gen, p.msgs, p.events, p.replace, p.started = gen, len(msgs), len(events), nil, true
	return nil
}

// delta builds the append: everything when reset, else what came after the store's part.
func (s *Session) delta(p *persisted, msgs []llm.Message, events []anchoredEvent, reset, withHeader bool) (*store.Delta, error) {
	d := &store.Delta{ID: s.id, Reset: reset}
	from, fromEvents := 0, 0
	if !reset && p.started {
		from, fromEvents = min(p.msgs, len(msgs)), min(p.events, len(events))
		d.Base, d.EventBase = p.msgs, p.events
		for _, i := range p.replace {
			if i < len(msgs) {
				d.Replace = append(d.Replace, store.IndexedMessage{Index: i, Message: msgs[i]})
			}
		}
	}
	if reset || !p.started {
		withHeader = true
	}
	d.Messages = msgs[from:]
	var errs []error
	for _, e := range events[fromEvents:] {
		entry, err := json.Marshal(e.entry)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: entry %s: %w", ErrInvalidEntry, e.entry.ID, err))
			continue
		}
		d.Events = append(d.Events, store.Event{After: e.after, Entry: entry})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if withHeader {
		h := s.header()
		d.Header = &h
	}
	return d, nil
}

// Record returns the session as a persistable record: its header fields, its messages and
// its timeline events.
func (s *Session) Record() store.Record {
	rec := s.header()
	rec.ToolSchemas = s.ToolSchemas() // the caller's own copy
	a := s.currentAgent()
	rec.Messages = nonNil(a.History())
	s.mu.Lock()
	events := s.eventsView()
	s.mu.Unlock()
	for _, e := range events {
		if entry, err := json.Marshal(e.entry); err == nil {
			rec.Events = append(rec.Events, store.Event{After: e.after, Entry: entry})
		}
	}
	return rec
}

// header builds the record's header fields. The session fills the fields it owns; the
// others come through unchanged from the resumed record, then DecorateRecord adds its own.
// ToolSchemas is the session's own slice (set once, at New), for the store to read.
func (s *Session) header() store.Record {
	rec := store.Record{
		ID: s.id, Cwd: s.cfg.Cwd, Name: s.Name(), CreatedAt: s.createdAt, UpdatedAt: s.cfg.Now(),
		SystemPrompt: s.systemMessage, ToolSchemas: s.schemas[:len(s.schemas):len(s.schemas)],
	}
	copyOpaqueFields(&rec, s.resumed)
	if s.resumed != nil && s.resumed.ID != s.id {
		rec.Parent = s.resumed.ID // continued under a new ID: a fork
	}
	if s.cfg.DecorateRecord != nil {
		s.cfg.DecorateRecord(&rec)
	}
	return rec
}

// copyOpaqueFields copies the fields the session does not own from src, including the
// members this version does not define (Extra), so a resumed session saves them back.
func copyOpaqueFields(dst, src *store.Record) {
	if src == nil {
		return
	}
	dst.Parent = src.Parent
	dst.BackgroundTasks = src.BackgroundTasks
	dst.BackgroundTaskEvents = src.BackgroundTaskEvents
	dst.BackgroundJobGroups = src.BackgroundJobGroups
	dst.BackgroundJobGroupEvents = src.BackgroundJobGroupEvents
	dst.MemoryEvents = src.MemoryEvents
	dst.UsedMemoryReferences = src.UsedMemoryReferences
	dst.ContextReferences = src.ContextReferences
	dst.SandboxSnapshotID = src.SandboxSnapshotID
	dst.Extra = maps.Clone(src.Extra) // DecorateRecord may write to it
}
