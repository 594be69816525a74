package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Record is a persisted session: the spec's ISessionRecord with its JSON member names.
// Fields the spec types as unknown[] are opaque JSON owned by higher layers (the UI
// timeline, background tasks, memory); this package stores them verbatim.
type Record struct {
	ID        string    `json:"id"`
	Cwd       string    `json:"cwd"`
	Name      string    `json:"name,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Messages are the provider messages, replayed into the conversation on resume.
	Messages []llm.Message `json:"messages"`
	// History is the full UI timeline (IHistoryEntry[]: chat and event entries), kept as
	// raw JSON: the typed entry, session.HistoryEntry, lives above this package, and the
	// session converts at its Store boundary.
	History      []json.RawMessage `json:"history"`
	SystemPrompt string            `json:"systemPrompt,omitempty"`
	ToolSchemas  []llm.ToolSchema  `json:"toolSchemas,omitempty"`

	BackgroundTasks          []json.RawMessage `json:"backgroundTasks,omitempty"`
	BackgroundTaskEvents     []json.RawMessage `json:"backgroundTaskEvents,omitempty"`
	BackgroundJobGroups      []json.RawMessage `json:"backgroundJobGroups,omitempty"`
	BackgroundJobGroupEvents []json.RawMessage `json:"backgroundJobGroupEvents,omitempty"`
	MemoryEvents             []json.RawMessage `json:"memoryEvents,omitempty"`
	UsedMemoryReferences     []json.RawMessage `json:"usedMemoryReferences,omitempty"`
	ContextReferences        []json.RawMessage `json:"contextReferences,omitempty"`
	SandboxSnapshotID        string            `json:"sandboxSnapshotId,omitempty"`

	// Extra holds members this version does not define (diagnostic extensions, or fields
	// written by a newer version). They are written back as they were read.
	Extra map[string]json.RawMessage `json:"-"`
}

// recordFields is Record without its methods, so encoding it does not recurse.
type recordFields Record

// knownMembers are the JSON names Record defines; everything else goes to Extra.
var knownMembers = map[string]bool{
	"id": true, "cwd": true, "name": true, "createdAt": true, "updatedAt": true,
	"messages": true, "history": true, "systemPrompt": true, "toolSchemas": true,
	"backgroundTasks": true, "backgroundTaskEvents": true, "backgroundJobGroups": true,
	"backgroundJobGroupEvents": true, "memoryEvents": true, "usedMemoryReferences": true,
	"contextReferences": true, "sandboxSnapshotId": true,
}

// MarshalJSON writes the record with messages and history always present (as [] when
// empty), followed by the Extra members.
func (r Record) MarshalJSON() ([]byte, error) {
	f := recordFields(r)
	if f.Messages == nil {
		f.Messages = []llm.Message{}
	}
	if f.History == nil {
		f.History = []json.RawMessage{}
	}
	known, err := json.Marshal(f)
	if err != nil || len(r.Extra) == 0 {
		return known, err
	}
	extra := make(map[string]json.RawMessage, len(r.Extra))
	for k, v := range r.Extra {
		if !knownMembers[k] {
			extra[k] = v
		}
	}
	if len(extra) == 0 {
		return known, nil
	}
	tail, err := json.Marshal(extra)
	if err != nil {
		return nil, fmt.Errorf("encode extra members: %w", err)
	}
	// Splice {known...} and {extra...} into one object.
	out := make([]byte, 0, len(known)+len(tail))
	out = append(out, known[:len(known)-1]...)
	out = append(out, ',')
	return append(out, tail[1:]...), nil
}

// UnmarshalJSON reads a record, keeping unknown members in Extra.
func (r *Record) UnmarshalJSON(data []byte) error {
	var f recordFields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	for k, v := range all {
		if knownMembers[k] {
			continue
		}
		if f.Extra == nil {
			f.Extra = make(map[string]json.RawMessage)
		}
		f.Extra[k] = v
	}
	*r = Record(f)
	return nil
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

// clone returns a deep copy of r through its JSON form (the form every backend stores).
func (r Record) clone() (Record, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return Record{}, err
	}
	var out Record
	err = json.Unmarshal(b, &out)
	return out, err
}
