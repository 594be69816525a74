package session

import (
	"encoding/json"
	"fmt"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// History entry categories.
const (
	CategoryChat  = "chat"
	CategoryEvent = "event"
)

// HistoryEntry is the spec's IHistoryEntry: one item of the full timeline. A chat entry
// wraps a message (Type is its role, Data the llm.Message); an event entry (tool summary,
// skill invocation, usage summary, …) carries data owned by the layer that added it.
type HistoryEntry struct {
	ID        string          `json:"id"`
	Timestamp time.Time       `json:"timestamp"`
	Category  string          `json:"category"`
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
}

// MessageToHistoryEntry wraps m as a chat entry.
func MessageToHistoryEntry(m llm.Message) HistoryEntry {
	data, _ := json.Marshal(m) // llm.Message always marshals
	return HistoryEntry{ID: m.ID, Timestamp: m.CreatedAt, Category: CategoryChat, Type: string(m.Role), Data: data}
}

// ChatEntryToMessage decodes the message of a chat entry.
func ChatEntryToMessage(e HistoryEntry) (llm.Message, error) {
	if e.Category != CategoryChat {
		return llm.Message{}, fmt.Errorf("%w: %q is not a chat entry", ErrInvalidEntry, e.Category)
	}
	var m llm.Message
	if err := json.Unmarshal(e.Data, &m); err != nil {
		return llm.Message{}, fmt.Errorf("%w: %w", ErrInvalidEntry, err)
	}
	if m.Role == "" {
		return llm.Message{}, fmt.Errorf("%w: chat entry %s has no role", ErrInvalidEntry, e.ID)
	}
	return m, nil
}

// MessagesForAPI is the spec's getMessagesForAPI: the messages a provider call gets
// from a timeline. It keeps the chat entries (event entries are the timeline's, never
// the model's), decodes them, and prepares them as llm.MessagesForAPI does (an
// interrupted assistant message carries the interruption note). A chat entry that does
// not decode is an error wrapping ErrInvalidEntry.
func MessagesForAPI(entries []HistoryEntry) ([]llm.Message, error) {
	msgs := make([]llm.Message, 0, len(entries))
	for i, e := range entries {
		if e.Category != CategoryChat {
			continue
		}
		m, err := ChatEntryToMessage(e)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		msgs = append(msgs, m)
	}
	return llm.MessagesForAPI(msgs), nil
}

// anchoredEvent is an event entry placed after the first `after` chat messages.
type anchoredEvent struct {
	after int
	entry HistoryEntry
}

// mergeTimeline interleaves chat messages with anchored events (events keep their order;
// an anchor past the end lands at the end).
func mergeTimeline(msgs []llm.Message, events []anchoredEvent) []HistoryEntry {
	out := make([]HistoryEntry, 0, len(msgs)+len(events))
	j := 0
	for i := 0; i <= len(msgs); i++ {
		for j < len(events) && (events[j].after <= i || i == len(msgs)) {
			out = append(out, events[j].entry)
			j++
		}
		if i < len(msgs) {
			out = append(out, MessageToHistoryEntry(msgs[i]))
		}
	}
	return out
}

// eventsFromRecord decodes a stored record's timeline events. They are encoding/json's
// output (the store's journal, written by this package), so json v2's stricter defaults
// hold for them, and v2 decodes them in a fraction of encoding/json's time (issue 29:
// the events of a long session are as many as its messages).
func eventsFromRecord(stored []store.Event) ([]anchoredEvent, error) {
	out := make([]anchoredEvent, 0, len(stored))
	for i, e := range stored {
		var entry HistoryEntry
		if err := jsonv2.Unmarshal(e.Entry, &entry); err != nil {
			return nil, fmt.Errorf("%w: entry %d: %w", ErrInvalidEntry, i, err)
		}
		out = append(out, anchoredEvent{after: e.After, entry: entry})
	}
	return out, nil
}
