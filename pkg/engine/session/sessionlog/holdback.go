package sessionlog

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// Streaming events carry a provider call's answer in pieces, and a key split across
// pieces matches no pattern line by line. So the FileLogger holds them back (see the
// package doc): once CoalesceBytes are held or the oldest piece is the coalescing
// interval old, the pieces up to where the text before them is settled (redact.
// SettledPrefix) and clean are written, and whatever is still held when the call ends is
// written then, with its text withheld if the call's streamed text holds a secret. Held
// text deltas (text_delta, provider_stream_raw_delta) are written coalesced: the pieces of
// one kind and execution that go out together make one line.

// Bounds of the hold-back queue: past them the queue is written at once, withheld unless
// a settled cut frees it.
const (
	maxHeldBytes  = 4 << 20
	maxHeldEvents = 10_000
)

// Bounds of coalescing: held pieces are written (up to the settled cut) once this much
// event data is held or the oldest held piece is this old, so a crash loses at most about
// that much of a streaming answer.
const (
	CoalesceBytes           = 64 << 10
	DefaultCoalesceInterval = time.Second
	approxDeltaOverhead     = 64 // bytes of a delta line besides its text
)

// WithheldNote replaces streamed text whose call contained a secret: in text_delta and
// provider_stream_raw_delta data beside an emptied "delta", and as the whole payload of a
// provider_native_raw_payload stream event ({"withheld": WithheldNote}).
const WithheldNote = "streamed text contained a secret; see the committed message"

type heldKind uint8

const (
	heldTextDelta heldKind = iota + 1 // text_delta
	heldRawDelta                      // provider_stream_raw_delta
	heldNative                        // provider_native_raw_payload of kind stream_event
	heldInCall                        // server_tool: no streamed text, logged mid-stream
)

// heldEvent is a streaming event waiting to be written.
//
// A long answer holds thousands of them, so it is kept small: its event name follows
// from its kind, and data is its tree or, when typed is set, the typed data of a delta.
type heldEvent struct {
	// data is the event's tree: redacted for native and server_tool events; for the
	// deltas it is unredacted, or the typed data given (typed), as the line a delta
	// goes out in is built, and redacted, when it is written.
	data  any
	stamp time.Time
	exec  string
	kind  heldKind
	typed bool
	// unread: the event's text is not yet in its streams (see holdback.read).
	unread bool
	text   string    // deltas: the piece as received
	leaves *[]string // native: "path\x00text" for each string in the payload
	end    int       // deltas: offset just past this piece in its stream
	size   int
}

// event is the name of ev's event.
func (ev *heldEvent) event() string {
	switch ev.kind {
	case heldTextDelta:
		return EventTextDelta
	case heldRawDelta:
		return EventProviderStreamRawDelta
	case heldNative:
		return EventProviderNativeRawPayload
	case heldInCall:
		return EventServerTool
	}
	return ""
}

// streamKey names one text being streamed: a delta kind, or one JSON path of the native
// stream events (a provider's text, thinking or tool-input pieces sit at fixed paths), per
// execution.
type streamKey struct{ exec, name string }

type holdback struct {
	queue []heldEvent
	// read is how many of the queue's first events have their text in their streams:
	// a piece's text is added to its stream when the stream is read (a release, the
	// call's end), not as it arrives, so a stream's buffer is sized for what arrived
	// in between instead of doubling piece by piece.
	read    int
	bytes   int
	streams map[streamKey]*stream
	tainted map[string]bool // executions whose remaining streamed text is withheld
	// recent are the streams last found (see stream); dropped with them.
	recent [2]recentStream
	// Release attempts redo redaction from the start of the text, so they are spaced
	// geometrically: fresh delta bytes since the last attempt, checked bytes at it.
	fresh, checked int
}

// typedDelta recognizes a text delta given as the types the session and the agent log
// (TextDeltaData, agent.Event with a Delta), without encoding it.
// src keeps data as it was given: boxing the value again would allocate a copy of it
// for every piece.
func typedDelta(event string, data any) (heldEvent, bool) {
	switch event {
	case EventTextDelta:
		switch d := data.(type) {
		case TextDeltaData:
			return heldEvent{exec: d.ExecutionID, kind: heldTextDelta, text: d.Delta, data: data, typed: true,
				size: len(d.Delta) + approxDeltaOverhead}, true
		case *TextDeltaData:
			if d != nil { // a copy: the caller may reuse what it points to
				return typedDelta(event, any(*d))
			}
		}
	case EventProviderStreamRawDelta:
		if ev, ok := data.(agent.Event); ok && ev.Delta != nil {
			return heldEvent{exec: ev.ExecutionID, kind: heldRawDelta, text: ev.Delta.Delta, data: data, typed: true,
				size: len(ev.Delta.Delta) + approxDeltaOverhead}, true
		}
	}
	return heldEvent{}, false
}

// classify recognizes a streaming event from its unredacted data.
func classify(event string, tree any) (heldEvent, bool) {
	m, _ := tree.(map[string]any)
	exec, _ := m["executionId"].(string)
	ev := heldEvent{exec: exec}
	switch event {
	case EventTextDelta:
		s, ok := m["delta"].(string)
		ev.kind, ev.text = heldTextDelta, s
		return ev, ok
	case EventProviderStreamRawDelta:
		d, _ := m["delta"].(map[string]any)
		s, ok := d["delta"].(string)
		ev.kind, ev.text = heldRawDelta, s
		return ev, ok
	case EventServerTool:
		// A hosted tool runs in the middle of its call's stream; writing it at once would
		// end the call's hold-back there, and a key streamed around it would go out in two
		// readable parts. Held, it keeps its place and carries no streamed text.
		ev.kind = heldInCall
		return ev, true
	case EventProviderNativeRawPayload:
		p, _ := m["rawPayload"].(map[string]any)
		if p["payloadKind"] != string(llm.PayloadStreamEvent) {
			return ev, false
		}
		leaves := stringLeaves(p["payload"], "", nil)
		ev.kind, ev.leaves = heldNative, &leaves
		return ev, true
	}
	return ev, false
}

// stringLeaves lists the strings of a JSON tree with their paths.
func stringLeaves(v any, path string, out []string) []string {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			out = stringLeaves(c, path+"."+k, out)
		}
	case []any:
		for i, c := range t {
			out = stringLeaves(c, path+"."+strconv.Itoa(i), out)
		}
	case string:
		out = append(out, path+"\x00"+t)
	}
	return out
}

// hold queues ev (l.mu held) and writes what it can.
func (l *FileLogger) hold(ev heldEvent) []heldFailure {
	h := &l.held
	if h.streams == nil {
		h.streams, h.tainted = map[streamKey]*stream{}, map[string]bool{}
	}
	if !(len(h.tainted) > 0 && h.tainted[ev.exec]) && ev.kind != heldInCall {
		ev.unread = true
		if ev.kind != heldNative {
			b := h.stream(streamKey{ev.exec, ev.event()})
			b.want += len(ev.text)
			ev.end = b.want
			h.fresh += len(ev.text)
		}
	}
	if len(h.queue) == cap(h.queue) {
		// Doubling: a long answer holds thousands of pieces, and append's growth of a
		// long slice (1.25×) would copy the queue many times over.
		// A short answer holds a few pieces: the queue starts small.
		q := make([]heldEvent, len(h.queue), max(4, 2*cap(h.queue)))
		copy(q, h.queue)
		h.queue = q
	}
	h.queue = append(h.queue, ev)
	h.bytes += ev.size
	over := h.bytes > maxHeldBytes || len(h.queue) > maxHeldEvents
	var errs []heldFailure
	// A release redoes redaction from the start of the text, so one driven by size waits
	// for geometric growth too; one driven by time is paced by the interval itself.
	bySize := h.bytes >= CoalesceBytes && h.fresh*4 >= h.checked
	byTime := ev.stamp.Sub(h.queue[0].stamp) >= l.interval
	if over || (bySize || byTime) && ev.kind != heldNative && hasSpace(ev.text) {
		errs = l.releaseSettled()
	}
	if h.bytes > maxHeldBytes || len(h.queue) > maxHeldEvents {
		h.readAll()
		// No settled cut frees the queue: a split key cannot be ruled out, so the rest
		// of these calls' streamed text is withheld.
		for _, q := range h.queue {
			h.taint(q.exec)
		}
		errs = append(errs, l.writeHeld(len(h.queue))...)
	}
	l.armDue()
	return errs
}

// hasSpace reports whether s holds ASCII whitespace (" \t\n\f\r"): only a piece that
// does can move the settled cut. Once a call has streamed CoalesceBytes every piece is
// asked, so eight bytes are looked at a time: a word with no byte below '!' has none.
func hasSpace(s string) bool {
	const highs, below = 0x8080808080808080, 0x21 * 0x0101010101010101
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if (x-below)&^x&highs != 0 && strings.ContainsAny(s[i:i+8], " \t\n\f\r") {
			return true
		}
	}
	return strings.ContainsAny(s[i:], " \t\n\f\r")
}

// armDue starts the timer that writes held pieces when no later piece does (l.mu held).
// The timer runs on the real clock; arriving pieces check the bound on Options.Now.
func (l *FileLogger) armDue() {
	if len(l.held.queue) == 0 || l.due != nil {
		return
	}
	l.due = time.AfterFunc(l.interval, l.writeDue)
}

// writeDue writes the settled part of what is held (the timer armDue set).
func (l *FileLogger) writeDue() {
	l.mu.Lock()
	l.due = nil
	if l.f == nil {
		l.mu.Unlock()
		return
	}
	var errs []heldFailure
	if len(l.held.queue) > 0 {
		errs = l.releaseSettled()
	}
	l.armDue()
	l.mu.Unlock()
	l.reportHeld(errs)
}

func (h *holdback) stream(k streamKey) *stream {
	// A call's pieces alternate between its raw and text deltas: the two streams last
	// found are looked at before the map.
	for _, r := range h.recent {
		if r.s != nil && r.k == k {
			return r.s
		}
	}
	b := h.streams[k]
	if b == nil {
		b = &stream{buf: &strings.Builder{}}
		// A call's text and raw deltas carry the same text: one buffer holds it for both.
		for _, sib := range [...]string{EventTextDelta, EventProviderStreamRawDelta} {
			if o := h.streams[streamKey{k.exec, sib}]; o != nil && sib != k.name && (k.name == EventTextDelta || k.name == EventProviderStreamRawDelta) {
				b.buf = o.buf
			}
		}
		h.streams[k] = b
	}
	h.recent[1], h.recent[0] = h.recent[0], recentStream{k, b}
	return b
}

// recentStream is a stream found by holdback.stream.
type recentStream struct {
	k streamKey
	s *stream
}

// readAll adds the text of the queued events not yet read to their streams, in queue
// order (so two streams sharing a buffer see their pieces in the order they came). The
// streams are read only after it: nothing taints an execution or drops a stream between
// an event's hold and its read.
func (h *holdback) readAll() {
	for i := h.read; i < len(h.queue); i++ {
		ev := &h.queue[i]
		if !ev.unread {
			continue
		}
		ev.unread = false
		if ev.kind == heldNative {
			for _, lf := range *ev.leaves {
				path, text, _ := strings.Cut(lf, "\x00")
				h.stream(streamKey{ev.exec, "payload" + path}).add(text)
			}
			continue
		}
		h.stream(streamKey{ev.exec, ev.event()}).add(ev.text)
	}
	h.read = len(h.queue)
}

// stream is the text streamed so far at one streamKey: buf's first n bytes. Two
// streams may share buf while one's text is a prefix of the other's. want is n with
// the pieces held and not yet read.
type stream struct {
	buf  *strings.Builder
	n    int
	want int
}

func (s *stream) String() string { return s.buf.String()[:s.n] }

// add appends p: a stream that shares its buffer and is behind only checks that p
// follows in it; one that differs takes a buffer of its own.
func (s *stream) add(p string) {
	if all := s.buf.String(); s.n+len(p) <= len(all) && all[s.n:s.n+len(p)] == p {
		s.n += len(p)
		return
	}
	if s.n != s.buf.Len() {
		own := &strings.Builder{}
		own.Grow(max(s.want, s.n+len(p)))
		own.WriteString(s.String())
		s.buf = own
	}
	if s.buf.Cap()-s.buf.Len() < len(p) {
		// Room for the pieces still to be read too; Grow at least doubles: append's
		// growth of a long buffer (1.25×) copies a long answer several times over as
		// it streams.
		s.buf.Grow(max(len(p), s.want-s.n))
	}
	s.buf.WriteString(p)
	s.n += len(p)
}

// taint withholds the rest of exec's streamed text and drops its texts.
func (h *holdback) taint(exec string) {
	h.tainted[exec] = true
	h.recent = [2]recentStream{} // its streams are dropped
	for k := range h.streams {
		if k.exec == exec {
			delete(h.streams, k)
		}
	}
}

// releaseSettled writes the longest queue prefix whose texts are settled and clean.
func (l *FileLogger) releaseSettled() []heldFailure {
	h := &l.held
	h.readAll()
	h.checked += h.fresh
	h.fresh = 0
	cuts := map[streamKey]int{}
	var judged judgements
	for k, b := range h.streams {
		if h.tainted[k.exec] {
			continue
		}
		s := b.String()
		if strings.HasPrefix(k.name, "payload") {
			// Native pieces get no cut of their own: they go out with the delta that
			// follows them, while everything the call streamed at their paths is clean.
			if judged.secret(l, s) {
				h.taint(k.exec)
			}
			continue
		}
		n, secret := judged.settled(s)
		if secret {
			h.taint(k.exec)
			continue
		}
		cuts[k] = n
	}
	n := 0
	for i, ev := range h.queue {
		if h.tainted[ev.exec] {
			break
		}
		if ev.kind == heldNative || ev.kind == heldInCall {
			continue
		}
		if cut, ok := cuts[streamKey{ev.exec, ev.event()}]; !ok || ev.end > cut {
			break
		}
		n = i + 1
	}
	return l.writeHeld(n)
}

// flushHeld writes everything held (a provider call ended, or the log is synced or
// closed), withheld for the executions whose streamed text holds a secret, and starts
// afresh.
func (l *FileLogger) flushHeld() []heldFailure {
	h := &l.held
	h.readAll()
	var judged judgements
	for k, b := range h.streams {
		if judged.secret(l, b.String()) {
			h.taint(k.exec)
		}
	}
	errs := l.writeHeld(len(h.queue))
	*h = holdback{}
	return errs
}

// judgements remembers the redaction of the texts judged in one pass: a call's text and
// raw deltas carry the same text, which is then judged once.
type judgements []struct {
	text   string
	n      int
	secret bool
	cut    bool // n is known
}

func (j *judgements) find(s string) int {
	for i := range *j {
		if len((*j)[i].text) == len(s) && (*j)[i].text == s {
			return i
		}
	}
	return -1
}

// secret reports whether s holds something redact.String redacts (through l's memo: a
// call's whole text is judged here and then stored redacted).
func (j *judgements) secret(l *FileLogger, s string) bool {
	if i := j.find(s); i >= 0 {
		return (*j)[i].secret
	}
	secret := l.redactLong(s) != s
	*j = append(*j, struct {
		text   string
		n      int
		secret bool
		cut    bool
	}{text: s, secret: secret})
	return secret
}

// settled is redact.SettledPrefix(s).
func (j *judgements) settled(s string) (int, bool) {
	if i := j.find(s); i >= 0 && (*j)[i].cut {
		return (*j)[i].n, (*j)[i].secret
	}
	n, secret := redact.SettledPrefix(s)
	*j = append(*j, struct {
		text   string
		n      int
		secret bool
		cut    bool
	}{text: s, n: n, secret: secret, cut: true})
	return n, secret
}

// writeHeld writes the first n queued events and drops them from the queue. The text
// deltas among them are coalesced: one line per kind and execution, at the place of its
// first piece. A failure loses that line only; it is returned for Options.OnError.
func (l *FileLogger) writeHeld(n int) []heldFailure {
	h := &l.held
	var errs []heldFailure
	var lines []*deltaLine
	open := map[streamKey]*deltaLine{}
	for i := range h.queue[:n] {
		ev := &h.queue[i]
		if ev.kind == heldTextDelta || ev.kind == heldRawDelta {
			k := streamKey{ev.exec, ev.event()}
			if d := open[k]; d != nil {
				d.last = ev
				d.pieces++
				continue
			}
			d := &deltaLine{first: ev, last: ev, pieces: 1}
			open[k] = d
			lines = append(lines, d)
			continue
		}
		if ev.kind == heldInCall {
			// A hosted tool's line stays between the text streamed before and after it.
			for k := range open {
				if k.exec == ev.exec {
					delete(open, k)
				}
			}
		}
		lines = append(lines, &deltaLine{first: ev})
	}
	for _, d := range lines {
		ev := d.first
		withheld := h.tainted[ev.exec]
		var err error
		if d.pieces > 0 && !withheld {
			d.text = h.joined(d)
			if l.threshold >= 0 && len(d.text) > l.threshold {
				// Long text goes to a payload file: the call's text and raw deltas (and
				// then its response and history) share it, redacted and hashed once.
				var ref PayloadRef
				if ref, err = l.textPayload(d.text); err == nil {
					d.ref = &ref
				}
			}
		}
		var tree any
		if err == nil {
			tree, err = d.tree(withheld)
		}
		if err == nil {
			err = l.write(ev.event(), tree, ev.stamp, -1)
		}
		if err != nil {
			errs = append(errs, heldFailure{ev.event(), err})
		}
	}
	for _, ev := range h.queue[:n] {
		h.bytes -= ev.size
	}
	// The rest moves to the front; the written events' slots are cleared, letting their
	// trees go, and the queue's array is kept for the pieces still to come.
	rest := copy(h.queue, h.queue[n:])
	clear(h.queue[rest:])
	h.queue = h.queue[:rest]
	h.read = max(h.read-n, 0)
	return errs
}

// deltaLine is one line writeHeld writes: a held event, or the coalesced pieces of a text
// delta kind (first and last are its first and last pieces, text their text joined).
type deltaLine struct {
	first, last *heldEvent
	text        string
	ref         *PayloadRef // where text is stored, when it is too long for the line
	pieces      int
}

// joined is the text of d's pieces: they are consecutive in their stream's text, so it is
// a part of that text, not a copy.
func (h *holdback) joined(d *deltaLine) string {
	start := d.first.end - len(d.first.text)
	if b := h.streams[streamKey{d.first.exec, d.first.event()}]; b != nil && start >= 0 && d.last.end <= b.n {
		return b.String()[start:d.last.end]
	}
	return "" // not reached: a stream is dropped only when its execution is withheld
}

// tree builds the line's data: a native or server_tool event's own tree; for deltas, the
// first piece's data carrying the joined text (and the piece count when more than one),
// redacted as a whole, or withheld.
func (d *deltaLine) tree(withheld bool) (any, error) {
	ev := d.first
	if d.pieces == 0 {
		if withheld {
			return withhold(*ev), nil
		}
		return ev.data, nil
	}
	tree := ev.data
	if d, ok := ev.data.(TextDeltaData); ok && ev.typed && utf8.ValidString(d.Delta) && utf8.ValidString(d.ExecutionID) {
		tree = textDeltaTree(d)
	} else if ev.typed {
		var err error
		if tree, err = toTree(ev.data); err != nil {
			return nil, fmt.Errorf("session log: encode %s: %w", ev.event(), err)
		}
	}
	m, _ := tree.(map[string]any)
	if ev.kind == heldRawDelta {
		m, _ = m["delta"].(map[string]any)
	}
	if m == nil {
		return nil, fmt.Errorf("session log: %s without a delta", ev.event())
	}
	m["delta"] = d.text
	if d.ref != nil {
		m["delta"] = ""
	}
	if d.pieces > 1 {
		m["pieces"] = d.pieces
	}
	if withheld {
		m["delta"], m["withheld"] = "", WithheldNote
		return tree, nil
	}
	tree = redact.Value(tree)
	if d.ref != nil {
		m, _ = tree.(map[string]any)
		if ev.kind == heldRawDelta {
			m, _ = m["delta"].(map[string]any)
		}
		m["delta"] = *d.ref
	}
	return tree, nil
}

// textDeltaTree is toTree(d), built without encoding d, for d whose strings are valid
// UTF-8 (json.Marshal replaces what is not).
func textDeltaTree(d TextDeltaData) map[string]any {
	m := make(map[string]any, 3)
	m["delta"] = d.Delta
	if d.ExecutionID != "" {
		m["executionId"] = d.ExecutionID
	}
	if d.Pieces != 0 {
		m["pieces"] = json.Number(strconv.Itoa(d.Pieces))
	}
	return m
}

// heldFailure is a failure to write an event Append had already accepted.
type heldFailure struct {
	event string
	err   error
}

// withhold returns a native stream event's data without its streamed text. The tree is
// ev's own redacted copy, so it is changed in place. (Deltas are withheld as their line
// is built.)
func withhold(ev heldEvent) any {
	m, _ := ev.data.(map[string]any)
	if ev.kind == heldNative {
		if p, ok := m["rawPayload"].(map[string]any); ok {
			p["payload"] = map[string]any{"withheld": WithheldNote}
		}
	}
	return m
}
