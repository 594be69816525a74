package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// ReplayOptions are what ReplaySessionLog reads besides the log.
type ReplayOptions struct {
	// Journal is the session journal's conversations (store.FileStore.Segments). A log
	// written at LevelCompact does not hold the messages and timeline entries the
	// journal does: replay takes them from the segment that continues the history the
	// log rebuilds. Without it such a log replays as far as its own lines go, and a
	// request or continuation that needs the journal's messages is an ErrReplay.
	Journal []store.Segment
}

// journalCursor finds the journal's messages a compact log leaves out.
type journalCursor struct {
	segs []store.Segment
	at   int // the segment last used: segments are searched from it on
}

// segment returns the segment whose messages start with msgs and number at least n.
func (j *journalCursor) segment(msgs []llm.Message, n int) *store.Segment {
	for i := j.at; i < len(j.segs); i++ {
		s := &j.segs[i]
		if len(s.Messages) < max(n, len(msgs)) {
			continue
		}
		if k := len(msgs); k > 0 && (!hasIDAt(s, 0, msgs[0].ID) || !hasIDAt(s, k-1, msgs[k-1].ID)) {
			continue
		}
		j.at = i
		return s
	}
	return nil
}

// hasIDAt reports whether the segment's message i has the ID, as appended or as replaced.
func hasIDAt(s *store.Segment, i int, id string) bool {
	if s.Messages[i].ID == id {
		return true
	}
	for _, r := range s.Replaced {
		if r.Index == i && r.Message.ID == id {
			return true
		}
	}
	return false
}

// extend returns msgs extended to n messages with the journal's (msgs itself when it
// has n or more).
func (j *journalCursor) extend(msgs []llm.Message, n int) ([]llm.Message, error) {
	if n <= len(msgs) {
		return msgs, nil
	}
	if len(j.segs) == 0 {
		return msgs, fmt.Errorf("the log's history has %d messages and the line needs %d: a compact log takes them from the journal, which replay was not given", len(msgs), n)
	}
	s := j.segment(msgs, n)
	if s == nil {
		return msgs, fmt.Errorf("no conversation of the journal continues the log's history of %d messages to %d", len(msgs), n)
	}
	return append(slices.Clip(msgs), s.Messages[len(msgs):n]...), nil
}

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
			data, _ := marshal(m) // llm.Message always marshals
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
		err := unmarshal(raw, &kind)
		return mutation{kind: normalizeKind(kind)}, err
	}
	var obj struct {
		Kind  string `json:"kind"`
		Index *int   `json:"index"`
	}
	if err := unmarshal(raw, &obj); err != nil {
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
	return ReplaySessionLog(entries, payloads, ReplayOptions{})
}

// ReplaySessionLog is ReplaySessionLogEntries for a log written at any level: where the
// log was written at LevelCompact, the messages and timeline entries it does not hold are
// taken from opts.Journal (the history at the end of the log is then the journal
// conversation that continues it, and the timeline's event entries that conversation's).
func ReplaySessionLog(entries []Entry, payloads PayloadSource, opts ReplayOptions) (rec ReplayRecord, err error) {
	rec = ReplayRecord{Messages: []llm.Message{}}
	requests := newRequestRebuilder()
	journal := &journalCursor{segs: opts.Journal}
	compact := false // a compact session_init was seen
	var events []anchoredEntry
	defer func() {
		if compact && err == nil {
			if s := journal.segment(rec.Messages, len(rec.Messages)); s != nil {
				rec.Messages = append(slices.Clip(rec.Messages), s.Messages[len(rec.Messages):]...)
				events = events[:0]
				for _, ev := range s.Events {
					var entry TimelineEntry
					if unmarshal(ev.Entry, &entry) == nil {
						events = append(events, anchoredEntry{after: ev.After, entry: entry})
					}
				}
			}
		}
		rec.Requests, rec.Timeline = requests.out, timeline(rec.Messages, events)
	}()
	for _, e := range entries {
		if rec.SessionID == "" {
			rec.SessionID = e.SessionID
			rec.CreatedAt = e.Timestamp
		}
		rec.UpdatedAt = e.Timestamp
		switch e.Event {
		case EventSessionInit:
			var d struct {
				Cwd      string `json:"cwd"`
				LogLevel Level  `json:"logLevel"`
			}
			if unmarshal(e.Data, &d) == nil && d.Cwd != "" {
				rec.Cwd = d.Cwd
			}
			compact = compact || d.LogLevel == LevelCompact
		case EventProviderRequest:
			if n := historyShared(e); n > len(rec.Messages) {
				if rec.Messages, err = journal.extend(rec.Messages, n); err != nil {
					return rec, fmt.Errorf("%w: provider_request %d (line %d): %w", ErrReplay, e.Sequence, e.Line, err)
				}
			}
			if err := requests.add(e, payloads, rec.Messages); err != nil {
				return rec, err
			}
		case EventHistoryMutation:
			if n := continuedLength(e); n > len(rec.Messages) {
				if rec.Messages, err = journal.extend(rec.Messages, n); err != nil {
					return rec, fmt.Errorf("%w: history_mutation %d (line %d): %w", ErrReplay, e.Sequence, e.Line, err)
				}
			}
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
			if err := unmarshal(data, &d); err != nil || unmarshal(d.Entry, &entry) != nil {
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

// historyShared is how many messages of the history a provider_request's base shares
// (0 for a request not written against the history).
func historyShared(e Entry) int {
	var d struct {
		Request *struct {
			Base *requestBase `json:"base"`
		} `json:"request"`
	}
	if unmarshal(e.Data, &d) != nil || d.Request == nil || d.Request.Base == nil || !d.Request.Base.History {
		return 0
	}
	return d.Request.Base.Messages
}

// continuedLength is the length of the journal's history a compact log's continuing
// reset continues (0 for any other history_mutation).
func continuedLength(e Entry) int {
	var d struct {
		Continues *HistoryContinuation `json:"continues"`
		Journal   bool                 `json:"journal"`
	}
	if unmarshal(e.Data, &d) != nil || d.Continues == nil || !d.Journal {
		return 0
	}
	return d.Continues.Messages
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
	if err := unmarshal(data, &ev); err != nil {
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
