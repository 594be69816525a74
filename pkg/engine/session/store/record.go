package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Record is a persisted session: the spec's ISessionRecord. Fields the spec types as
// unknown[] are opaque JSON owned by higher layers (background tasks, memory); this
// package stores them verbatim.
//
// The spec's history member (the UI timeline, IHistoryEntry[]) repeats every message as a
// chat entry. A Record holds each message once: Messages, plus Events, the timeline's
// other entries, each placed after the message it followed. Timeline rebuilds the spec's
// form when a caller needs it.
type Record struct {
	ID   string
	Cwd  string
	Name string
	// Parent is the session this one was forked from (--fork-session), empty otherwise.
	Parent    string
	CreatedAt time.Time
	// UpdatedAt is when the latest save was committed; stores stamp it.
	UpdatedAt time.Time
	// Messages are the provider messages, replayed into the conversation on resume.
	Messages []llm.Message
	// Events are the timeline's event entries, in order.
	Events       []Event
	SystemPrompt string
	ToolSchemas  []llm.ToolSchema

	BackgroundTasks          []json.RawMessage
	BackgroundTaskEvents     []json.RawMessage
	BackgroundJobGroups      []json.RawMessage
	BackgroundJobGroupEvents []json.RawMessage
	MemoryEvents             []json.RawMessage
	UsedMemoryReferences     []json.RawMessage
	ContextReferences        []json.RawMessage
	SandboxSnapshotID        string

	// Extra holds members this version does not define (diagnostic extensions, or fields
	// written by a newer version). They are written back as they were read.
	Extra map[string]json.RawMessage
}

// Event is one event entry of the timeline (an IHistoryEntry whose category is not
// "chat"): Entry is the entry's JSON, After the number of messages before it.
type Event struct {
	After int
	Entry json.RawMessage
}

// header is the JSON form of a record's header: every field but the messages, the events
// and UpdatedAt (which each commit stamps). Member names are the spec's.
type header struct {
	ID                       string            `json:"id"`
	Cwd                      string            `json:"cwd"`
	Name                     string            `json:"name,omitempty"`
	Parent                   string            `json:"parent,omitempty"`
	CreatedAt                time.Time         `json:"createdAt"`
	SystemPrompt             string            `json:"systemPrompt,omitempty"`
	ToolSchemas              []llm.ToolSchema  `json:"toolSchemas,omitempty"`
	BackgroundTasks          []json.RawMessage `json:"backgroundTasks,omitempty"`
	BackgroundTaskEvents     []json.RawMessage `json:"backgroundTaskEvents,omitempty"`
	BackgroundJobGroups      []json.RawMessage `json:"backgroundJobGroups,omitempty"`
	BackgroundJobGroupEvents []json.RawMessage `json:"backgroundJobGroupEvents,omitempty"`
	MemoryEvents             []json.RawMessage `json:"memoryEvents,omitempty"`
	UsedMemoryReferences     []json.RawMessage `json:"usedMemoryReferences,omitempty"`
	ContextReferences        []json.RawMessage `json:"contextReferences,omitempty"`
	SandboxSnapshotID        string            `json:"sandboxSnapshotId,omitempty"`
	// Extra keeps the members this version does not define, nested so that they can never
	// shadow a defined one.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

func headerOf(r *Record) header {
	return header{
		ID: r.ID, Cwd: r.Cwd, Name: r.Name, Parent: r.Parent, CreatedAt: r.CreatedAt,
		SystemPrompt: r.SystemPrompt, ToolSchemas: r.ToolSchemas,
		BackgroundTasks: r.BackgroundTasks, BackgroundTaskEvents: r.BackgroundTaskEvents,
		BackgroundJobGroups: r.BackgroundJobGroups, BackgroundJobGroupEvents: r.BackgroundJobGroupEvents,
		MemoryEvents: r.MemoryEvents, UsedMemoryReferences: r.UsedMemoryReferences,
		ContextReferences: r.ContextReferences, SandboxSnapshotID: r.SandboxSnapshotID, Extra: r.Extra,
	}
}

// equal reports whether h and o encode alike: every field equal, CreatedAt as the same
// instant in the same location (time.Time ==, stricter than the encoding needs).
func (h *header) equal(o *header) bool {
	return h.ID == o.ID && h.Cwd == o.Cwd && h.Name == o.Name && h.Parent == o.Parent && h.CreatedAt == o.CreatedAt &&
		h.SystemPrompt == o.SystemPrompt && h.SandboxSnapshotID == o.SandboxSnapshotID &&
		slices.EqualFunc(h.ToolSchemas, o.ToolSchemas, func(a, b llm.ToolSchema) bool {
			return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema) &&
				(a.InputSchema == nil) == (b.InputSchema == nil)
		}) &&
		rawsEqual(h.BackgroundTasks, o.BackgroundTasks) && rawsEqual(h.BackgroundTaskEvents, o.BackgroundTaskEvents) &&
		rawsEqual(h.BackgroundJobGroups, o.BackgroundJobGroups) && rawsEqual(h.BackgroundJobGroupEvents, o.BackgroundJobGroupEvents) &&
		rawsEqual(h.MemoryEvents, o.MemoryEvents) && rawsEqual(h.UsedMemoryReferences, o.UsedMemoryReferences) &&
		rawsEqual(h.ContextReferences, o.ContextReferences) &&
		(h.Extra == nil) == (o.Extra == nil) && maps.EqualFunc(h.Extra, o.Extra, rawEqual)
}

// clone copies h deeply (strings are shared: they cannot change).
func (h *header) clone() header {
	c := *h
	if h.ToolSchemas != nil {
		c.ToolSchemas = make([]llm.ToolSchema, len(h.ToolSchemas))
		for i, t := range h.ToolSchemas {
			t.InputSchema = bytes.Clone(t.InputSchema)
			c.ToolSchemas[i] = t
		}
	}
	for _, f := range []*[]json.RawMessage{&c.BackgroundTasks, &c.BackgroundTaskEvents, &c.BackgroundJobGroups,
		&c.BackgroundJobGroupEvents, &c.MemoryEvents, &c.UsedMemoryReferences, &c.ContextReferences} {
		*f = cloneRaws(*f)
	}
	if h.Extra != nil {
		c.Extra = make(map[string]json.RawMessage, len(h.Extra))
		for k, v := range h.Extra {
			c.Extra[k] = bytes.Clone(v)
		}
	}
	return c
}

// rawEqual compares two JSON values as the encoder writes them: bytes, and nil (null)
// apart from empty.
func rawEqual(a, b json.RawMessage) bool { return bytes.Equal(a, b) && (a == nil) == (b == nil) }

// rawsEqual is slices.EqualFunc(rawEqual) that also tells nil (omitted) from empty.
func rawsEqual(a, b []json.RawMessage) bool {
	return (a == nil) == (b == nil) && slices.EqualFunc(a, b, rawEqual)
}

func cloneRaws(s []json.RawMessage) []json.RawMessage {
	if s == nil {
		return nil
	}
	out := make([]json.RawMessage, len(s))
	for i, r := range s {
		out[i] = bytes.Clone(r)
	}
	return out
}

// apply sets r's header fields from h; messages, events and UpdatedAt are kept.
func (h *header) apply(r *Record) {
	r.ID, r.Cwd, r.Name, r.Parent, r.CreatedAt = h.ID, h.Cwd, h.Name, h.Parent, h.CreatedAt
	r.SystemPrompt, r.ToolSchemas = h.SystemPrompt, h.ToolSchemas
	r.BackgroundTasks, r.BackgroundTaskEvents = h.BackgroundTasks, h.BackgroundTaskEvents
	r.BackgroundJobGroups, r.BackgroundJobGroupEvents = h.BackgroundJobGroups, h.BackgroundJobGroupEvents
	r.MemoryEvents, r.UsedMemoryReferences = h.MemoryEvents, h.UsedMemoryReferences
	r.ContextReferences, r.SandboxSnapshotID, r.Extra = h.ContextReferences, h.SandboxSnapshotID, h.Extra
}

// Timeline returns the spec's history member: every message as a chat entry ({id,
// timestamp, category "chat", type = role, data = message}) interleaved with the event
// entries. It encodes every message, so it is for export, not for the hot path.
func (r *Record) Timeline() ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(r.Messages)+len(r.Events))
	j := 0
	for i := 0; i <= len(r.Messages); i++ {
		for j < len(r.Events) && (r.Events[j].After <= i || i == len(r.Messages)) {
			out = append(out, r.Events[j].Entry)
			j++
		}
		if i == len(r.Messages) {
			break
		}
		m := r.Messages[i]
		data, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		entry, err := json.Marshal(struct {
			ID        string          `json:"id"`
			Timestamp time.Time       `json:"timestamp"`
			Category  string          `json:"category"`
			Type      string          `json:"type"`
			Data      json.RawMessage `json:"data"`
		}{m.ID, m.CreatedAt, "chat", string(m.Role), data})
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, entry)
	}
	return out, nil
}

// validate checks what every stored record must have.
func (r *Record) validate() error {
	if err := ValidateID(r.ID); err != nil {
		return err
	}
	if r.CreatedAt.IsZero() || r.UpdatedAt.IsZero() {
		return fmt.Errorf("record %s: missing createdAt or updatedAt", r.ID)
	}
	return nil
}

// decodeLegacy reads a record in the whole-record format ({id}.json, one JSON object with
// the spec's member names; see testdata/record.golden.json). The object is split into
// raw members once, and each member is decoded once from its bytes: the messages are
// never decoded twice. The history member's chat entries are dropped (they repeat the
// messages); its other entries become Events.
func decodeLegacy(b []byte) (Record, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return Record{}, err
	}
	var r Record
	var h header
	var history []json.RawMessage
	targets := map[string]any{
		"id": &h.ID, "cwd": &h.Cwd, "name": &h.Name, "parent": &h.Parent, "createdAt": &h.CreatedAt,
		"updatedAt": &r.UpdatedAt, "messages": &r.Messages, "history": &history,
		"systemPrompt": &h.SystemPrompt, "toolSchemas": &h.ToolSchemas,
		"backgroundTasks": &h.BackgroundTasks, "backgroundTaskEvents": &h.BackgroundTaskEvents,
		"backgroundJobGroups": &h.BackgroundJobGroups, "backgroundJobGroupEvents": &h.BackgroundJobGroupEvents,
		"memoryEvents": &h.MemoryEvents, "usedMemoryReferences": &h.UsedMemoryReferences,
		"contextReferences": &h.ContextReferences, "sandboxSnapshotId": &h.SandboxSnapshotID,
	}
	for name, raw := range members {
		target, ok := targets[name]
		if !ok {
			if h.Extra == nil {
				h.Extra = map[string]json.RawMessage{}
			}
			h.Extra[name] = raw
			continue
		}
		if err := json.Unmarshal(raw, target); err != nil {
			return Record{}, fmt.Errorf("member %s: %w", name, err)
		}
	}
	h.apply(&r)
	chats := 0
	for i, e := range history {
		var kind struct {
			Category string `json:"category"`
		}
		if err := json.Unmarshal(e, &kind); err != nil {
			return Record{}, fmt.Errorf("history entry %d: %w", i, err)
		}
		if kind.Category == "chat" {
			chats++
			continue
		}
		r.Events = append(r.Events, Event{After: min(chats, len(r.Messages)), Entry: bytes.Clone(e)})
	}
	if r.Messages == nil {
		r.Messages = []llm.Message{}
	}
	return r, nil
}
