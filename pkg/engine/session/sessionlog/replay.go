package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ReplayRecord is the session state rebuilt from a log (the spec's ISessionReplayRecord).
type ReplayRecord struct {
	SessionID string
	Cwd       string
	CreatedAt time.Time // timestamp of the first entry
	UpdatedAt time.Time // timestamp of the last entry
	// Messages is the canonical chat history after the last history_mutation.
	Messages []llm.Message
	// Requests are the provider requests in log order, each with the exact message list
	// and tools the provider was sent (rebuilt from the delta lines; see the package doc).
	Requests                 []ReplayedRequest
	BackgroundTaskEvents     []json.RawMessage
	BackgroundJobGroupEvents []json.RawMessage
	MemoryEvents             []json.RawMessage
	// Timeline is the UI timeline at the end of the log, as the session's history has
	// it: a chat entry per message of Messages, with the event entries (tool start/end,
	// tool-summary, usage-summary, compaction, skill-invocation ...) where they stood. A
	// compaction or clear starts it again; a rewind keeps the entries of the kept
	// messages.
	Timeline []TimelineEntry
}

// TimelineEntry is one timeline entry, in the session's history entry JSON shape
// (session.HistoryEntry, which this package cannot import).
type TimelineEntry struct {
	ID        string          `json:"id"`
	Timestamp time.Time       `json:"timestamp"`
	Category  string          `json:"category"`
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
}

// anchoredEntry is a timeline event entry after how many messages it stands.
type anchoredEntry struct {
	after int
	entry TimelineEntry
}

// timeline merges the messages with the anchored event entries (an entry anchored after
// n messages comes after the n-th; entries past the end come last).
func timeline(msgs []llm.Message, events []anchoredEntry) []TimelineEntry {
	out := make([]TimelineEntry, 0, len(msgs)+len(events))
	j := 0
	for i := 0; i <= len(msgs); i++ {
		for j < len(events) && (events[j].after <= i || i == len(msgs)) {
			out = append(out, events[j].entry)
			j++
		}
		if i < len(msgs) {
			m := msgs[i]
			data, _ := json.Marshal(m) // llm.Message always marshals
			out = append(out, TimelineEntry{ID: m.ID, Timestamp: m.CreatedAt, Category: "chat", Type: string(m.Role), Data: data})
		}
	}
	return out
}

// mutationEvent is what replay reads from a history_mutation's data. Mutation is either an
// object {kind, index} (this engine) or a bare kind string (the TypeScript SDK's
// "append_message").
type mutationEvent struct {
	Mutation  json.RawMessage      `json:"mutation"`
	Message   *llm.Message         `json:"message"`
	Messages  []llm.Message        `json:"messages"`
	Continues *HistoryContinuation `json:"continues"`
	Replaced  []IndexedMessage     `json:"replaced"`
}

type mutation struct {
	kind  string
	index *int
}

func (m mutationEvent) parse() (mutation, error) {
	raw := bytes.TrimSpace(m.Mutation)
	if len(raw) > 0 && raw[0] == '"' {
		var kind string
		err := json.Unmarshal(raw, &kind)
		return mutation{kind: normalizeKind(kind)}, err
	}
	var obj struct {
		Kind  string `json:"kind"`
		Index *int   `json:"index"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return mutation{}, err
	}
	return mutation{kind: normalizeKind(obj.Kind), index: obj.Index}, nil
}

func normalizeKind(k string) string {
	switch k {
	case "append_message":
		return MutationAppend
	case "clear":
		return MutationReset
	}
	return k
}

// ReplaySessionLogEntries rebuilds the conversation from history_mutation events ("append"
// adds data.message; "reset" replaces the history with data.messages), every provider
// request from the provider_request events (a delta line extends the request it names as
// its base), and collects the background and memory events. Payload references are
// resolved through payloads (which may be nil when the log has none). A mutation that
// cannot be applied, or a request whose base is not in the log or does not add up, is an
// error matching ErrReplay.
func ReplaySessionLogEntries(entries []Entry, payloads PayloadSource) (rec ReplayRecord, err error) {
	rec = ReplayRecord{Messages: []llm.Message{}}
	requests := newRequestRebuilder()
	var events []anchoredEntry
	defer func() { rec.Requests, rec.Timeline = requests.out, timeline(rec.Messages, events) }()
	for _, e := range entries {
		if rec.SessionID == "" {
			rec.SessionID = e.SessionID
			rec.CreatedAt = e.Timestamp
		}
		rec.UpdatedAt = e.Timestamp
		switch e.Event {
		case EventSessionInit:
			var d struct {
				Cwd string `json:"cwd"`
			}
			if json.Unmarshal(e.Data, &d) == nil && d.Cwd != "" {
				rec.Cwd = d.Cwd
			}
		case EventProviderRequest:
			if err := requests.add(e, payloads, rec.Messages); err != nil {
				return rec, err
			}
		case EventHistoryMutation:
			msgs, err := applyMutation(rec.Messages, e, payloads)
			if err != nil {
				return rec, err
			}
			if !sameStart(msgs, rec.Messages) {
				// A reset that is no continuation (a clear, a rewind; a compaction's
				// context_compact follows): the entries of the kept messages stay, as in
				// the session.
				kept := events[:0:0]
				for _, a := range events {
					if a.after <= len(msgs) {
						kept = append(kept, a)
					}
				}
				events = kept
			}
			rec.Messages = msgs
		case EventContextCompact:
			events = nil // the session's compaction starts the timeline again
		case EventTimelineEntry:
			data, err := Hydrate(e.Data, e.SessionID, payloads)
			if err != nil {
				return rec, fmt.Errorf("%w: entry %d (%s): %w", ErrReplay, e.Sequence, e.Event, err)
			}
			var d TimelineEntryData
			var entry TimelineEntry
			if err := json.Unmarshal(data, &d); err != nil || json.Unmarshal(d.Entry, &entry) != nil {
				return rec, fmt.Errorf("%w: timeline_entry %d (line %d) is not an entry", ErrReplay, e.Sequence, e.Line)
			}
			events = append(events, anchoredEntry{after: d.After, entry: entry})
		case EventBackgroundTask, EventBackgroundJobGroup, EventMemory:
			data, err := Hydrate(e.Data, e.SessionID, payloads)
			if err != nil {
				return rec, fmt.Errorf("%w: entry %d (%s): %w", ErrReplay, e.Sequence, e.Event, err)
			}
			switch e.Event {
			case EventBackgroundTask:
				rec.BackgroundTaskEvents = append(rec.BackgroundTaskEvents, data)
			case EventBackgroundJobGroup:
				rec.BackgroundJobGroupEvents = append(rec.BackgroundJobGroupEvents, data)
			default:
				rec.MemoryEvents = append(rec.MemoryEvents, data)
			}
		}
	}
	return rec, nil
}

// sameStart reports whether next extends prev (an append, or a reset that continues it):
// the same first message, and no fewer messages.
func sameStart(next, prev []llm.Message) bool {
	if len(next) < len(prev) {
		return false
	}
	return len(prev) == 0 || next[0].ID == prev[0].ID
}

func applyMutation(msgs []llm.Message, e Entry, payloads PayloadSource) ([]llm.Message, error) {
	fail := func(err error) ([]llm.Message, error) {
		return nil, fmt.Errorf("%w: history_mutation %d (line %d): %w", ErrReplay, e.Sequence, e.Line, err)
	}
	data, err := Hydrate(e.Data, e.SessionID, payloads)
	if err != nil {
		return fail(err)
	}
	var ev mutationEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fail(err)
	}
	m, err := ev.parse()
	if err != nil {
		return fail(err)
	}
	switch m.kind {
	case MutationAppend:
		if ev.Message == nil || !validRole(ev.Message.Role) {
			return fail(fmt.Errorf("append without a message"))
		}
		return append(msgs, *ev.Message), nil
	case MutationReset:
		for _, msg := range ev.Messages {
			if !validRole(msg.Role) {
				return fail(fmt.Errorf("reset with a message of role %q", msg.Role))
			}
		}
		if c := ev.Continues; c != nil {
			return continueHistory(msgs, c, ev.Replaced, ev.Messages, fail)
		}
		return append([]llm.Message{}, ev.Messages...), nil
	default:
		return fail(fmt.Errorf("unknown mutation kind %q", m.kind))
	}
}

func validRole(r llm.Role) bool {
	switch r {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleSystem, llm.RoleTool:
		return true
	}
	return false
}

// continueHistory applies a reset that continues the history msgs: checked against its
// length and last ID, replaced messages set, the new ones appended. The result is a new
// list: earlier requests may share msgs.
func continueHistory(msgs []llm.Message, c *HistoryContinuation, replaced []IndexedMessage, added []llm.Message,
	fail func(error) ([]llm.Message, error)) ([]llm.Message, error) {
	if c.Messages != len(msgs) || c.Messages > 0 && msgs[c.Messages-1].ID != c.LastID {
		last := ""
		if len(msgs) > 0 {
			last = msgs[len(msgs)-1].ID
		}
		return fail(fmt.Errorf("reset continues a history of %d messages ending with %q, the log's has %d ending with %q",
			c.Messages, c.LastID, len(msgs), last))
	}
	out := append(make([]llm.Message, 0, len(msgs)+len(added)), msgs...)
	if err := applyReplaced(out, replaced); err != nil {
		return fail(err)
	}
	return append(out, added...), nil
}

// applyReplaced sets the replaced messages of list.
func applyReplaced(list []llm.Message, replaced []IndexedMessage) error {
	for _, r := range replaced {
		if r.Index < 0 || r.Index >= len(list) || !validRole(r.Message.Role) {
			return fmt.Errorf("replaced message %d (role %q) of a list of %d", r.Index, r.Message.Role, len(list))
		}
		list[r.Index] = r.Message
	}
	return nil
}
