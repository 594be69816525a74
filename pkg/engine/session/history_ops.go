package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// Messages returns the provider messages (chat history), the system message first.
func (s *Session) Messages() []llm.Message { return s.currentAgent().History() }

// HistoryLen is len(Messages()) without the copy.
func (s *Session) HistoryLen() int { return s.currentAgent().Store().Len() }

// FullHistory returns the timeline: chat entries interleaved with event entries.
func (s *Session) FullHistory() []HistoryEntry {
	a := s.currentAgent()
	msgs := a.HistoryView()
	s.mu.Lock()
	events := s.eventsView()
	s.mu.Unlock()
	return mergeTimeline(msgs, events)
}

// EventEntries returns the timeline's event entries, in order, without its chat entries:
// what FullHistory holds besides the messages, for a reader that wants only the events
// (it does not encode every message of a long history as FullHistory does).
func (s *Session) EventEntries() []HistoryEntry {
	s.mu.Lock()
	events := s.eventsView()
	s.mu.Unlock()
	out := make([]HistoryEntry, len(events))
	for i, e := range events {
		out[i] = e.entry
	}
	return out
}

// eventsView returns the timeline events without copying them (mu held). s.events is
// only ever appended to or replaced whole, so the entries in the view never change, and
// its capacity ends at its length. It must not be written to.
func (s *Session) eventsView() []anchoredEvent {
	return s.events[:len(s.events):len(s.events)]
}

// AddHistoryEntry appends an entry. Event entries may be added at any time; a chat entry
// appends its message to the conversation and is refused while a run is active.
func (s *Session) AddHistoryEntry(e HistoryEntry) error {
	switch e.Category {
	case CategoryChat:
		m, err := ChatEntryToMessage(e)
		if err != nil {
			return err
		}
		return s.appendMessage(m)
	case CategoryEvent:
		// A malformed entry would make every later save fail; refuse it here.
		if len(e.Data) > 0 && !json.Valid(e.Data) {
			return fmt.Errorf("%w: event %q data is not valid JSON", ErrInvalidEntry, e.Type)
		}
		if e.ID == "" {
			e.ID = s.cfg.NewID()
		}
		if e.Timestamp.IsZero() {
			e.Timestamp = s.cfg.Now()
		}
		s.mu.Lock()
		after := s.agent.Store().Len()
		s.events = append(s.events, anchoredEvent{after: after, entry: e})
		s.mu.Unlock()
		if b, err := json.Marshal(e); err == nil {
			s.log(sessionlog.EventTimelineEntry, sessionlog.TimelineEntryData{After: after, Entry: b})
		}
		return nil
	}
	return fmt.Errorf("%w: category %q", ErrInvalidEntry, e.Category)
}

// InjectMessage appends a message without asking the model (e.g. restoring context).
func (s *Session) InjectMessage(role llm.Role, content string) error {
	var m llm.Message
	switch role {
	case llm.RoleUser:
		m = s.factory.User(content)
	case llm.RoleAssistant:
		m = s.factory.Assistant([]llm.Part{llm.TextPart(content)}, llm.StateComplete)
	case llm.RoleSystem:
		m = s.factory.System(content)
	default:
		return fmt.Errorf("%w: cannot inject a %q message", ErrInvalidEntry, role)
	}
	return s.appendMessage(m)
}

func (s *Session) appendMessage(m llm.Message) error {
	s.mu.Lock()
	if s.running || s.shutdown {
		err := ErrRunInProgress
		if s.shutdown {
			err = ErrShutdown
		}
		s.mu.Unlock()
		return err
	}
	store := s.agent.Store()
	store.Append(m)
	index := store.Len() - 1
	s.mu.Unlock()
	s.log(sessionlog.EventHistoryMutation, sessionlog.NewAppendMutation(index, m))
	return nil
}

// ClearHistory drops the conversation and its events, keeping the system message, and
// resets the context state.
func (s *Session) ClearHistory() error {
	var msgs []llm.Message
	if s.systemMessage != "" {
		msgs = []llm.Message{s.factory.System(s.systemMessage)}
	}
	a, err := s.newAgent(msgs)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrRunInProgress
	}
	s.agent, s.events = a, nil
	s.gen++
	s.mu.Unlock()
	s.logReset(msgs)
	s.tracker.UpdateFromHistory(msgs, 0)
	return nil
}

// SetSystemMessage replaces the system prompt: the conversation's first message, the
// one a cleared or compacted conversation starts with, and the record's. The rest of
// the conversation and its events stay; the change is saved and logged as a history
// reset. It fails with ErrRunInProgress while a run is active; "" is refused (a session
// without a system prompt keeps none).
func (s *Session) SetSystemMessage(ctx context.Context, text string) error {
	if text == "" {
		return fmt.Errorf("%w: empty system message", ErrInvalidEntry)
	}
	msgs := append([]llm.Message(nil), s.Messages()...)
	shift := 0
	if len(msgs) > 0 && msgs[0].Role == llm.RoleSystem {
		msgs[0] = s.factory.System(text)
	} else {
		msgs, shift = append([]llm.Message{s.factory.System(text)}, msgs...), 1
	}
	a, err := s.newAgent(msgs)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrRunInProgress
	}
	events := s.events
	if shift > 0 {
		// The events stay where they were in the conversation: one message later.
		events = make([]anchoredEvent, len(s.events))
		for i, e := range s.events {
			e.after += shift
			events[i] = e
		}
	}
	s.agent, s.events, s.systemMessage = a, events, text
	s.gen++
	s.mu.Unlock()
	s.logReset(msgs)
	s.tracker.UpdateFromHistory(msgs, 0)
	return s.persist(ctx)
}

// logReset records a history replacement for replay readers.
func (s *Session) logReset(msgs []llm.Message) {
	s.log(sessionlog.EventHistoryMutation, sessionlog.ResetHistory(msgs))
}

// TruncateHistory keeps the first n messages of the conversation (the system message
// counts) and the timeline events anchored within them, drops the rest, and saves: the
// store gets a reset with the kept history, as after a clear. It fails with
// ErrRunInProgress while a run is active and ErrInvalidEntry when n is outside the
// conversation (1 … its length, or 0 without a system message).
func (s *Session) TruncateHistory(ctx context.Context, n int) error {
	msgs := s.Messages()
	low := 0
	if len(msgs) > 0 && msgs[0].Role == llm.RoleSystem {
		low = 1
	}
	if n < low || n > len(msgs) {
		return fmt.Errorf("%w: cannot keep %d of %d messages", ErrInvalidEntry, n, len(msgs))
	}
	kept := append([]llm.Message(nil), msgs[:n]...)
	a, err := s.newAgent(kept)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrRunInProgress
	}
	var events []anchoredEvent
	for _, e := range s.events {
		if e.after <= n {
			events = append(events, e)
		}
	}
	s.agent, s.events = a, events
	s.gen++
	s.mu.Unlock()
	s.logReset(kept)
	s.tracker.UpdateFromHistory(kept, 0)
	return s.persist(ctx)
}

// HistoryMark is a position in the timeline: how many messages and event entries came
// before it, in which conversation (a compaction, clear or rewind starts a new one).
type HistoryMark struct {
	Messages, Events int
	agent            *agent.Agent
}

// Mark returns the timeline's current end, for HistoryBetween.
func (s *Session) Mark() HistoryMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return HistoryMark{Messages: s.agent.Store().Len(), Events: len(s.events), agent: s.agent}
}

// HistoryBetween returns the timeline entries added after from and up to to, in
// timeline order, at the cost of those entries only (a prompt's history delta). When
// the timeline was rebuilt in between (a compaction), it is the new timeline up to to.
// ok is false when the timeline was rebuilt after to: what was between is gone.
func (s *Session) HistoryBetween(from, to HistoryMark) (entries []HistoryEntry, ok bool) {
	s.mu.Lock()
	a, events := s.agent, s.eventsView()
	s.mu.Unlock()
	msgs := a.HistoryView()
	if a != to.agent || to.Messages > len(msgs) || to.Events > len(events) {
		return nil, false
	}
	msgs, events = msgs[:to.Messages], events[:to.Events]
	if from.agent != to.agent || from.Messages > len(msgs) || from.Events > len(events) {
		return mergeTimeline(msgs, events), true
	}
	tail := make([]anchoredEvent, 0, len(events)-from.Events)
	for _, e := range events[from.Events:] {
		e.after = max(0, e.after-from.Messages)
		tail = append(tail, e)
	}
	return mergeTimeline(msgs[from.Messages:], tail), true
}
