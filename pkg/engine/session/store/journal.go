package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// Delta is what one Append adds to a session's journal. It is written as one batch ending
// in a commit line: after a crash the batch is there whole or not at all.
type Delta struct {
	ID string
	// Header carries the header fields (every field of a Record but UpdatedAt, Messages
	// and Events). It is written when it differs from the stored header, and required
	// when the session has no journal yet. Append stamps Header.CreatedAt when it is zero
	// and Header.UpdatedAt with the commit time.
	Header *Record
	// Reset replaces the history: the journal's messages and events are dropped before
	// Messages and Events are added (compaction, /clear, a writer out of step). Base and
	// EventBase must then be 0.
	Reset bool
	// Base and EventBase are how many messages and events the writer believes the
	// journal holds: Messages get the indexes Base, Base+1, … An append whose Base or
	// EventBase differs from the journal fails with ErrConflict and writes nothing.
	Base, EventBase int
	// Replace rewrites messages the journal already holds (index < Base), e.g. the system
	// message a resumed session replaced.
	Replace []IndexedMessage
	// Messages and Events are appended, in order.
	Messages []llm.Message
	Events   []Event
}

// IndexedMessage is a message and its index in the history.
type IndexedMessage struct {
	Index   int
	Message llm.Message
}

// empty reports whether the delta adds nothing (a header equal to the stored one is
// decided later, against the stored bytes).
func (d *Delta) empty() bool {
	return !d.Reset && len(d.Replace) == 0 && len(d.Messages) == 0 && len(d.Events) == 0
}

// tail is what a writer knows about a journal without decoding it: where its last
// complete round ends and what the commit line there says.
type tail struct {
	end       int64 // offset just after the last commit line
	n, e      int   // messages and events the journal holds
	headerOff int64 // offset of the header line in force
	resetOff  int64 // offset of the line after the last reset line (0: none)
	updated   time.Time
}

// Line prefixes. Every line the encoder writes starts with {"k":"<kind>" and the kind's
// first member, so a reader dispatches on the prefix; payloads (messages, entries,
// headers) are redacted before they are wrapped, so redaction never reorders a prefix.
var (
	prefixMessage = []byte(`{"k":"m","i":`)
	prefixReplace = []byte(`{"k":"s","i":`)
	prefixEvent   = []byte(`{"k":"e","a":`)
	prefixHeader  = []byte(`{"k":"h","v":1,"h":`)
	prefixCommit  = []byte(`{"k":"c","n":`)
	lineReset     = []byte(`{"k":"r"}`)
	journalStart  = []byte(`{"k":"`)
)

// isJournal tells the journal format from the whole-record format (a JSON object whose
// first member is never "k").
func isJournal(data []byte) bool { return bytes.HasPrefix(data, journalStart) }

// encoder builds batches. Encoding does not escape <, > and &: \u escapes would send
// ordinary code through redact's full walk (see mayHoldSecret).
type encoder struct {
	buf     bytes.Buffer
	scratch bytes.Buffer
	enc     *json.Encoder // writes to scratch
	direct  *json.Encoder // writes to buf
	// lastHeader is the header the encoder encoded last (a deep copy) and
	// lastHeaderPayload its payload: a session sends its header with every save and it
	// seldom changes, while encoding and scanning it (the tool schemas alone are
	// kilobytes) cost more than the rest of a turn's save.
	lastHeader        header
	lastHeaderPayload []byte
}

func newEncoder() *encoder {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.scratch)
	e.enc.SetEscapeHTML(false)
	e.direct = json.NewEncoder(&e.buf)
	e.direct.SetEscapeHTML(false)
	return e
}

// valueLine writes a line whose payload is v, encoded straight into the batch and
// redacted in place when it may hold a secret.
func (e *encoder) valueLine(prefix []byte, num int, payloadKey string, v any) error {
	start := e.buf.Len()
	e.buf.Write(prefix)
	var digits [20]byte
	e.buf.Write(strconv.AppendInt(digits[:0], int64(num), 10))
	e.buf.WriteString(`,"`)
	e.buf.WriteString(payloadKey)
	e.buf.WriteString(`":`)
	at := e.buf.Len()
	if err := e.direct.Encode(v); err != nil {
		e.buf.Truncate(start)
		return err
	}
	e.buf.Truncate(e.buf.Len() - 1) // the encoder's newline
	if p := e.buf.Bytes()[at:]; mayHoldSecret(p) {
		red, err := redact.JSON(p)
		if err != nil {
			e.buf.Truncate(start)
			return err
		}
		if !bytes.Equal(red, p) {
			e.buf.Truncate(at)
			e.buf.Write(red)
		}
	}
	e.buf.WriteString("}\n")
	return nil
}

// payload encodes v and redacts it; the result is valid until the next call.
func (e *encoder) payload(v any) ([]byte, error) {
	e.scratch.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return redactPayload(bytes.TrimSuffix(e.scratch.Bytes(), []byte{'\n'}))
}

// headerPayload is payload(h), taken from the last call when h equals its header. The
// result is never changed afterwards (a new header gets a new slice).
func (e *encoder) headerPayload(h *header) ([]byte, error) {
	if e.lastHeaderPayload != nil && h.equal(&e.lastHeader) {
		return e.lastHeaderPayload, nil
	}
	p, err := e.payload(h)
	if err != nil {
		return nil, err
	}
	e.lastHeader, e.lastHeaderPayload = h.clone(), bytes.Clone(p)
	return e.lastHeaderPayload, nil
}

// rawPayload compacts raw JSON onto one line (validating it) and redacts it.
func (e *encoder) rawPayload(raw json.RawMessage) ([]byte, error) {
	e.scratch.Reset()
	if err := json.Compact(&e.scratch, raw); err != nil {
		return nil, err
	}
	return redactPayload(e.scratch.Bytes())
}

func (e *encoder) line(prefix []byte, num int, payloadKey string, payload []byte) {
	e.buf.Write(prefix)
	var digits [20]byte
	e.buf.Write(strconv.AppendInt(digits[:0], int64(num), 10))
	e.buf.WriteString(`,"`)
	e.buf.WriteString(payloadKey)
	e.buf.WriteString(`":`)
	e.buf.Write(payload)
	e.buf.WriteString("}\n")
}

// batch encodes d as the lines appended at offset base of a journal in state st, with
// storedHeader the header payload in force (nil: none or unknown). It returns the batch,
// the state after it and the header payload in force after it.
func (e *encoder) batch(d *Delta, st tail, exists bool, storedHeader []byte, base int64, now time.Time) ([]byte, tail, []byte, error) {
	e.trim()
	e.buf.Reset()
	e.buf.Grow(estimate(d))
	if d.Reset {
		if d.Base != 0 || d.EventBase != 0 {
			return nil, st, nil, fmt.Errorf("session store: a reset append builds on nothing (base %d, %d)", d.Base, d.EventBase)
		}
		if exists {
			e.buf.Write(lineReset)
			e.buf.WriteByte('\n')
			st.resetOff = base + int64(e.buf.Len())
		}
		st.n, st.e = 0, 0
	} else if d.Base != st.n || d.EventBase != st.e {
		return nil, st, nil, fmt.Errorf("%w: %s holds %d messages and %d events, the append builds on %d and %d",
			ErrConflict, d.ID, st.n, st.e, d.Base, d.EventBase)
	}
	header := storedHeader
	if d.Header != nil {
		if d.Header.CreatedAt.IsZero() {
			d.Header.CreatedAt = now
			var stored struct {
				CreatedAt time.Time `json:"createdAt"`
			}
			if storedHeader != nil && json.Unmarshal(storedHeader, &stored) == nil && !stored.CreatedAt.IsZero() {
				d.Header.CreatedAt = stored.CreatedAt // the session was created before
			}
		}
		d.Header.ID = d.ID
		h := headerOf(d.Header)
		p, err := e.headerPayload(&h)
		if err != nil {
			return nil, st, nil, fmt.Errorf("encode header: %w", err)
		}
		if !bytes.Equal(p, storedHeader) {
			header = p
			st.headerOff = base + int64(e.buf.Len())
			e.buf.Write(prefixHeader)
			e.buf.Write(p)
			e.buf.WriteString("}\n")
		}
	}
	for _, r := range d.Replace {
		if r.Index < 0 || r.Index >= st.n {
			return nil, st, nil, fmt.Errorf("session store: replace of message %d in a history of %d", r.Index, st.n)
		}
		if err := e.valueLine(prefixReplace, r.Index, "m", &r.Message); err != nil {
			return nil, st, nil, fmt.Errorf("encode message %d: %w", r.Index, err)
		}
	}
	for i := range d.Messages {
		if err := e.valueLine(prefixMessage, st.n, "m", &d.Messages[i]); err != nil {
			return nil, st, nil, fmt.Errorf("encode message %d: %w", st.n, err)
		}
		st.n++
	}
	for _, ev := range d.Events {
		p, err := e.rawPayload(ev.Entry)
		if err != nil {
			return nil, st, nil, fmt.Errorf("encode timeline event %d: %w", st.e, err)
		}
		e.line(prefixEvent, max(ev.After, 0), "e", p)
		st.e++
	}
	if header == nil {
		return nil, st, nil, fmt.Errorf("%w: %s", ErrNoHeader, d.ID)
	}
	if e.buf.Len() == 0 && exists {
		return nil, st, header, nil // nothing new: no commit, UpdatedAt stays
	}
	st.updated = now.UTC()
	e.buf.Write(prefixCommit)
	e.buf.WriteString(strconv.Itoa(st.n))
	e.buf.WriteString(`,"e":`)
	e.buf.WriteString(strconv.Itoa(st.e))
	e.buf.WriteString(`,"t":"`)
	e.buf.WriteString(st.updated.Format(time.RFC3339Nano))
	e.buf.WriteByte('"')
	// h and r are left out when 0 (the header is the first line; there was no reset),
	// as a reader takes a missing member: a round's commit is most of what a small
	// round adds besides its messages.
	if st.headerOff != 0 {
		e.buf.WriteString(`,"h":`)
		e.buf.WriteString(strconv.FormatInt(st.headerOff, 10))
	}
	if st.resetOff != 0 {
		e.buf.WriteString(`,"r":`)
		e.buf.WriteString(strconv.FormatInt(st.resetOff, 10))
	}
	e.buf.WriteString("}\n")
	st.end = base + int64(e.buf.Len())
	if d.Header != nil {
		d.Header.UpdatedAt = st.updated
	}
	return e.buf.Bytes(), st, header, nil
}

// trim drops a buffer grown by a whole-record batch; the bytes of the last batch are
// invalid afterwards.
func (e *encoder) trim() {
	if e.buf.Cap() > maxKeptBuffer {
		e.buf = bytes.Buffer{}
	}
}

// maxKeptBuffer bounds the batch buffer an encoder keeps between appends.
const maxKeptBuffer = 1 << 20

// estimate guesses a batch's size from its content (JSON adds member names, IDs, times
// and escapes), so the buffer is allocated once rather than grown by copying.
func estimate(d *Delta) int {
	n := 1024
	for i := range d.Messages {
		n += 320
		for _, p := range d.Messages[i].Content {
			c := 64 + len(p.Text)
			if p.ToolResult != nil {
				c += len(p.ToolResult.Content)
			}
			if p.ToolCall != nil {
				c += len(p.ToolCall.Input)
			}
			n += c + c/8
		}
	}
	return n
}

// wholeRecord is the delta that writes rec as a new journal.
func wholeRecord(rec *Record) *Delta {
	return &Delta{ID: rec.ID, Header: rec, Messages: rec.Messages, Events: rec.Events}
}
