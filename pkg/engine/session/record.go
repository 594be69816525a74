package session

import (
	"encoding/json"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Record is the persisted session: the spec's ISessionRecord, with its JSON member names
// (pkg/engine/session/store uses the same names). The session fills the fields it owns and
// carries the others (written by higher layers) through unchanged from the resumed record.
type Record struct {
	ID        string    `json:"id"`
	Cwd       string    `json:"cwd"`
	Name      string    `json:"name,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Messages are the provider messages (the system message first), replayed verbatim on
	// resume.
	Messages []llm.Message `json:"messages"`
	// History is the full timeline: chat entries and event entries.
	History      []HistoryEntry   `json:"history"`
	SystemPrompt string           `json:"systemPrompt,omitempty"`
	ToolSchemas  []llm.ToolSchema `json:"toolSchemas,omitempty"`

	BackgroundTasks          []json.RawMessage `json:"backgroundTasks,omitempty"`
	BackgroundTaskEvents     []json.RawMessage `json:"backgroundTaskEvents,omitempty"`
	BackgroundJobGroups      []json.RawMessage `json:"backgroundJobGroups,omitempty"`
	BackgroundJobGroupEvents []json.RawMessage `json:"backgroundJobGroupEvents,omitempty"`
	MemoryEvents             []json.RawMessage `json:"memoryEvents,omitempty"`
	UsedMemoryReferences     []json.RawMessage `json:"usedMemoryReferences,omitempty"`
	ContextReferences        []json.RawMessage `json:"contextReferences,omitempty"`
	SandboxSnapshotID        string            `json:"sandboxSnapshotId,omitempty"`
}

// opaqueFields copies the fields the session does not own from src.
func (r *Record) opaqueFields(src *Record) {
	if src == nil {
		return
	}
	r.BackgroundTasks = src.BackgroundTasks
	r.BackgroundTaskEvents = src.BackgroundTaskEvents
	r.BackgroundJobGroups = src.BackgroundJobGroups
	r.BackgroundJobGroupEvents = src.BackgroundJobGroupEvents
	r.MemoryEvents = src.MemoryEvents
	r.UsedMemoryReferences = src.UsedMemoryReferences
	r.ContextReferences = src.ContextReferences
	r.SandboxSnapshotID = src.SandboxSnapshotID
}
