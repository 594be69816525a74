package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Segment is one conversation a journal holds: the messages and timeline event entries
// from a reset line (or the journal's start) to the next reset, or to the last commit.
// A session log written at the compact level (package sessionlog) does not hold the
// messages and entries: its replay takes them from these.
type Segment struct {
	// Messages are the messages as they were appended; Replaced the later replacements
	// of some of them (a resumed session's new system prompt), in order. Load's history
	// has them applied; a log names the point where they were made.
	Messages []llm.Message
	Replaced []IndexedMessage
	Events   []Event
}

// Current is the segment's messages with the replacements applied (a new list).
func (s *Segment) Current() []llm.Message {
	out := append([]llm.Message(nil), s.Messages...)
	for _, r := range s.Replaced {
		out[r.Index] = r.Message
	}
	return out
}

// Segments reads the conversations the journal of id holds, oldest first (the last is
// the one Load returns). A legacy whole-record file is one segment.
func (s *FileStore) Segments(ctx context.Context, id string) ([]Segment, error) {
	path, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		rec, lerr := s.Load(ctx, id)
		if lerr != nil {
			return nil, lerr
		}
		return []Segment{{Messages: rec.Messages, Events: rec.Events}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session store: read %s: %w", path, err)
	}
	segs, err := JournalSegments(data)
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	return segs, nil
}

// JournalSegments reads the conversations a journal's bytes hold, up to its last commit
// (a torn or uncommitted tail is not read). A replaced message ("s" line) is replaced in
// its segment's Replaced.
func JournalSegments(data []byte) ([]Segment, error) {
	end, _, ok := lastCommit(data)
	if !ok {
		return nil, errors.New("no complete round (no commit line)")
	}
	segs := []Segment{{}}
	cur := &segs[0]
	line := 0
	for rest := data[:end]; len(rest) > 0; {
		line++
		i := bytes.IndexByte(rest, '\n')
		l := rest[:i]
		rest = rest[i+1:]
		var err error
		switch {
		case bytes.HasPrefix(l, prefixMessage):
			cur.Messages = append(cur.Messages, llm.Message{})
			ml := messageLine{M: &cur.Messages[len(cur.Messages)-1]}
			if err = decodeLine(l, &ml); err == nil && ml.I != len(cur.Messages)-1 {
				err = fmt.Errorf("message index %d where %d was due", ml.I, len(cur.Messages)-1)
			}
		case bytes.HasPrefix(l, prefixReplace):
			var m llm.Message
			ml := messageLine{M: &m}
			if err = decodeLine(l, &ml); err == nil {
				if ml.I < 0 || ml.I >= len(cur.Messages) {
					err = fmt.Errorf("replace of message %d in a history of %d", ml.I, len(cur.Messages))
				} else {
					cur.Replaced = append(cur.Replaced, IndexedMessage{Index: ml.I, Message: m})
				}
			}
		case bytes.HasPrefix(l, prefixEvent):
			var el eventLine
			if err = decodeLine(l, &el); err == nil {
				cur.Events = append(cur.Events, Event{After: min(el.A, len(cur.Messages)), Entry: json.RawMessage(el.E)})
			}
		case bytes.Equal(l, lineReset):
			segs = append(segs, Segment{})
			cur = &segs[len(segs)-1]
		case bytes.HasPrefix(l, prefixHeader), bytes.HasPrefix(l, prefixCommit):
		default:
			err = errors.New("unknown line kind")
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	return segs, nil
}

// Segments is FileStore.Segments for a session of the memory store.
func (m *MemoryStore) Segments(ctx context.Context, id string) ([]Segment, error) {
	m.mu.Lock()
	data, ok := m.records[id]
	m.mu.Unlock()
	if !ok || !isJournal(data) {
		rec, err := m.Load(ctx, id)
		if err != nil {
			return nil, err
		}
		return []Segment{{Messages: rec.Messages, Events: rec.Events}}, nil
	}
	segs, err := JournalSegments(data)
	if err != nil {
		return nil, &CorruptError{Path: where(id), Err: err}
	}
	return segs, nil
}
