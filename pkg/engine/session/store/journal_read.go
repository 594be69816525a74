package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// commitLine is the JSON form of a commit line.
type commitLine struct {
	N int       `json:"n"`
	E int       `json:"e"`
	T time.Time `json:"t"`
	H int64     `json:"h"`
	R int64     `json:"r"`
}

// lastCommit finds the last complete commit line in data: it returns the offset just
// after it and what it says. Lines after it (a torn or uncommitted batch) are not part of
// the journal. ok is false when data holds no complete commit line.
func lastCommit(data []byte) (end int64, st tail, ok bool) {
	stop := len(data)
	if stop > 0 && data[stop-1] != '\n' {
		stop = bytes.LastIndexByte(data, '\n') + 1
	}
	for stop > 0 {
		start := bytes.LastIndexByte(data[:stop-1], '\n') + 1
		if line := data[start : stop-1]; bytes.HasPrefix(line, prefixCommit) {
			var c commitLine
			if json.Unmarshal(line, &c) == nil {
				return int64(stop), tail{end: int64(stop), n: c.N, e: c.E, headerOff: c.H, resetOff: c.R, updated: c.T}, true
			}
		}
		stop = start
	}
	return 0, tail{}, false
}

// headerAt returns the payload of the header line starting at off in data.
func headerAt(data []byte, off int64) ([]byte, error) {
	if off < 0 || off >= int64(len(data)) || !bytes.HasPrefix(data[off:], prefixHeader) {
		return nil, fmt.Errorf("no header line at offset %d", off)
	}
	line := data[off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return headerPayload(line)
}

// headerPayload cuts the payload out of a header line.
func headerPayload(line []byte) ([]byte, error) {
	p, ok := bytes.CutPrefix(line, prefixHeader)
	if !ok || len(p) == 0 || p[len(p)-1] != '}' {
		return nil, errors.New("malformed header line")
	}
	return p[:len(p)-1], nil
}

// messageLine and eventLine decode the lines that carry history; M points into the
// history being built, so each message is decoded once, in place.
type messageLine struct {
	I int          `json:"i"`
	M *llm.Message `json:"m"`
}

type eventLine struct {
	A int            `json:"a"`
	E jsontext.Value `json:"e"`
}

// decodeJournal rebuilds a record from a journal's bytes in one pass: every committed
// line is decoded once, messages straight into the history. It returns the number of
// bytes after the last complete round (dropped; the caller warns).
func decodeJournal(data []byte) (Record, int64, error) {
	end, last, ok := lastCommit(data)
	if !ok {
		return Record{}, 0, errors.New("no complete round (no commit line)")
	}
	var r Record
	r.Messages = make([]llm.Message, 0, last.n)
	// The header in force is the one the last commit names; history before the last
	// reset (whose end the commit names too) was dropped: nothing before it is decoded.
	hp, err := headerAt(data[:end], last.headerOff)
	if err != nil {
		return Record{}, 0, err
	}
	var h header
	if err := json.Unmarshal(hp, &h); err != nil {
		return Record{}, 0, fmt.Errorf("header: %w", err)
	}
	// The history in force starts after the last reset line, which the commit names.
	start := last.resetOff
	if start < 0 || start > end || (start > 0 && !bytes.HasSuffix(data[:start], append(lineReset, '\n'))) {
		return Record{}, 0, fmt.Errorf("the last commit names a reset ending at offset %d, where there is none", start)
	}
	lineOf := func(rel int) int { // the line number, only needed for an error
		return bytes.Count(data[:start], []byte{'\n'}) + rel
	}
	rel := 0
	for rest := data[start:end]; len(rest) > 0; {
		rel++
		i := bytes.IndexByte(rest, '\n')
		line := rest[:i]
		rest = rest[i+1:]
		var err error
		switch {
		case bytes.HasPrefix(line, prefixMessage):
			r.Messages = append(r.Messages, llm.Message{})
			ml := messageLine{M: &r.Messages[len(r.Messages)-1]}
			if err = decodeLine(line, &ml); err == nil && ml.I != len(r.Messages)-1 {
				err = fmt.Errorf("message index %d where %d was due", ml.I, len(r.Messages)-1)
			}
		case bytes.HasPrefix(line, prefixReplace):
			var m llm.Message
			ml := messageLine{M: &m}
			if err = decodeLine(line, &ml); err == nil {
				if ml.I < 0 || ml.I >= len(r.Messages) {
					err = fmt.Errorf("replace of message %d in a history of %d", ml.I, len(r.Messages))
				} else {
					r.Messages[ml.I] = m
				}
			}
		case bytes.HasPrefix(line, prefixEvent):
			var el eventLine
			if err = decodeLine(line, &el); err == nil {
				r.Events = append(r.Events, Event{After: min(el.A, len(r.Messages)), Entry: json.RawMessage(el.E)})
			}
		case bytes.Equal(line, lineReset):
			r.Messages, r.Events = r.Messages[:0], nil
		case bytes.HasPrefix(line, prefixHeader): // superseded or the one decoded above
		case bytes.HasPrefix(line, prefixCommit):
			var c commitLine
			if err = decodeLine(line, &c); err == nil {
				if c.N != len(r.Messages) || c.E != len(r.Events) {
					err = fmt.Errorf("commit says %d messages and %d events, the journal holds %d and %d",
						c.N, c.E, len(r.Messages), len(r.Events))
				}
				r.UpdatedAt = c.T
			}
		default:
			err = errors.New("unknown line kind")
		}
		if err != nil {
			return Record{}, 0, fmt.Errorf("line %d: %w", lineOf(rel), err)
		}
	}
	h.apply(&r)
	return r, int64(len(data)) - end, nil
}

// decodeStored decodes either format, checks the record belongs under id and reports a
// failure as a *CorruptError naming where. torn is the journal's dropped tail.
func decodeStored(data []byte, id, where string) (rec Record, torn int64, err error) {
	if isJournal(data) {
		rec, torn, err = decodeJournal(data)
	} else {
		rec, err = decodeLegacy(data)
	}
	if err == nil {
		err = rec.validate()
	}
	if err == nil && rec.ID != id {
		err = fmt.Errorf("holds session %q, not %q", rec.ID, id)
	}
	if err != nil {
		return Record{}, 0, &CorruptError{Path: where, Err: err}
	}
	return rec, torn, nil
}

// infoOf decodes what List reports from a journal's last commit and header payload.
func infoOf(st tail, headerPayload []byte) (Info, error) {
	var h header
	if err := json.Unmarshal(headerPayload, &h); err != nil {
		return Info{}, fmt.Errorf("header: %w", err)
	}
	return Info{ID: h.ID, Cwd: h.Cwd, Name: h.Name, Parent: h.Parent, CreatedAt: h.CreatedAt,
		UpdatedAt: st.updated, Messages: st.n}, nil
}

// forkBytes builds a fork's journal from its parent's: the parent's complete rounds
// (copied, not decoded), then a header naming newID and the parent, and a commit.
func forkBytes(parent []byte, parentID, newID string, now time.Time) ([]byte, error) {
	end, st, ok := lastCommit(parent)
	if !ok {
		return nil, errors.New("no complete round (no commit line)")
	}
	hp, err := headerAt(parent[:end], st.headerOff)
	if err != nil {
		return nil, err
	}
	var h header
	if err := json.Unmarshal(hp, &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	var rec Record
	h.apply(&rec)
	rec.ID, rec.Parent, rec.CreatedAt, rec.Name = newID, parentID, now, ""
	e := newEncoder()
	b, _, _, err := e.batch(&Delta{ID: newID, Header: &rec, Base: st.n, EventBase: st.e}, st, true, hp, end, now)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, int(end)+len(b))
	return append(append(out, parent[:end]...), b...), nil
}

// decodeLine decodes one journal line into v. The lines are this package's own output
// (encoding/json), so the stricter defaults of json v2 (exact member names, valid UTF-8,
// no duplicate members) hold for them; v2 decodes them with far less reflection than
// encoding/json, which first scans each line whole to validate it (issue 29: decoding a
// 2,000-round journal was the most of a resume's time).
func decodeLine(line []byte, v any) error { return jsonv2.Unmarshal(line, v) }
