package sessionlog

import (
	"strconv"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// Streaming events carry a provider call's answer in pieces, and a key split across
// pieces matches no pattern line by line. So the FileLogger holds them back (see the
// package doc): a piece is written once the text before it is settled (redact.
// SettledPrefix) and clean, and whatever is still held when the call ends is written then,
// with its text withheld if the call's streamed text holds a secret.

// Bounds of the hold-back queue: past them the queue is written at once, withheld unless
// a settled cut frees it.
const (
	maxHeldBytes  = 4 << 20
	maxHeldEvents = 10_000
)

// WithheldNote replaces streamed text whose call contained a secret: in text_delta and
// provider_stream_raw_delta data beside an emptied "delta", and as the whole payload of a
// provider_native_raw_payload stream event ({"withheld": WithheldNote}).
const WithheldNote = "streamed text contained a secret; see the committed message"

type heldKind int

const (
	heldTextDelta heldKind = iota + 1 // text_delta
	heldRawDelta                      // provider_stream_raw_delta
	heldNative                        // provider_native_raw_payload of kind stream_event
	heldInCall                        // server_tool: no streamed text, logged mid-stream
)

// heldEvent is a streaming event waiting to be written.
type heldEvent struct {
	event  string
	tree   any // data, already redacted line by line
	stamp  time.Time
	exec   string
	kind   heldKind
	text   string   // deltas: the piece as received
	leaves []string // native: "path\x00text" for each string in the payload
	end    int      // deltas: offset just past this piece in its stream
	size   int
}

// streamKey names one text being streamed: a delta kind, or one JSON path of the native
// stream events (a provider's text, thinking or tool-input pieces sit at fixed paths), per
// execution.
type streamKey struct{ exec, name string }

type holdback struct {
	queue   []heldEvent
	bytes   int
	streams map[streamKey]*strings.Builder
	tainted map[string]bool // executions whose remaining streamed text is withheld
	// Release attempts redo redaction from the start of the text, so they are spaced
	// geometrically: fresh delta bytes since the last attempt, checked bytes at it.
	fresh, checked int
}

// classify recognizes a streaming event from its unredacted data.
func classify(event string, tree any) (heldEvent, bool) {
	m, _ := tree.(map[string]any)
	exec, _ := m["executionId"].(string)
	ev := heldEvent{event: event, exec: exec}
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
		ev.kind, ev.leaves = heldNative, stringLeaves(p["payload"], "", nil)
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
		h.streams, h.tainted = map[streamKey]*strings.Builder{}, map[string]bool{}
	}
	if !h.tainted[ev.exec] && ev.kind != heldInCall {
		if ev.kind == heldNative {
			for _, lf := range ev.leaves {
				path, text, _ := strings.Cut(lf, "\x00")
				h.stream(streamKey{ev.exec, "payload" + path}).WriteString(text)
			}
		} else {
			b := h.stream(streamKey{ev.exec, ev.event})
			b.WriteString(ev.text)
			ev.end = b.Len()
			h.fresh += len(ev.text)
		}
	}
	h.queue = append(h.queue, ev)
	h.bytes += ev.size
	over := h.bytes > maxHeldBytes || len(h.queue) > maxHeldEvents
	var errs []heldFailure
	if over || (ev.kind != heldNative && strings.ContainsAny(ev.text, " \t\n\f\r") && h.fresh*4 >= h.checked) {
		errs = l.releaseSettled()
	}
	if h.bytes > maxHeldBytes || len(h.queue) > maxHeldEvents {
		// No settled cut frees the queue: a split key cannot be ruled out, so the rest
		// of these calls' streamed text is withheld.
		for _, q := range h.queue {
			h.taint(q.exec)
		}
		errs = append(errs, l.writeHeld(len(h.queue))...)
	}
	return errs
}

func (h *holdback) stream(k streamKey) *strings.Builder {
	b := h.streams[k]
	if b == nil {
		b = &strings.Builder{}
		h.streams[k] = b
	}
	return b
}

// taint withholds the rest of exec's streamed text and drops its texts.
func (h *holdback) taint(exec string) {
	h.tainted[exec] = true
	for k := range h.streams {
		if k.exec == exec {
			delete(h.streams, k)
		}
	}
}

// releaseSettled writes the longest queue prefix whose texts are settled and clean.
func (l *FileLogger) releaseSettled() []heldFailure {
	h := &l.held
	h.checked += h.fresh
	h.fresh = 0
	cuts := map[streamKey]int{}
	for k, b := range h.streams {
		if h.tainted[k.exec] {
			continue
		}
		s := b.String()
		if strings.HasPrefix(k.name, "payload") {
			// Native pieces get no cut of their own: they go out with the delta that
			// follows them, while everything the call streamed at their paths is clean.
			if redact.String(s) != s {
				h.taint(k.exec)
			}
			continue
		}
		n, secret := redact.SettledPrefix(s)
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
		if cut, ok := cuts[streamKey{ev.exec, ev.event}]; !ok || ev.end > cut {
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
	for k, b := range h.streams {
		if s := b.String(); redact.String(s) != s {
			h.taint(k.exec)
		}
	}
	errs := l.writeHeld(len(h.queue))
	*h = holdback{}
	return errs
}

// writeHeld writes the first n queued events and drops them from the queue. A failure
// loses that event only; it is returned for Options.OnError.
func (l *FileLogger) writeHeld(n int) []heldFailure {
	h := &l.held
	var errs []heldFailure
	for _, ev := range h.queue[:n] {
		tree := ev.tree
		if h.tainted[ev.exec] {
			tree = withhold(ev)
		}
		if err := l.write(ev.event, tree, ev.stamp); err != nil {
			errs = append(errs, heldFailure{ev.event, err})
		}
		h.bytes -= ev.size
	}
	rest := h.queue[n:]
	h.queue = append(h.queue[:0:0], rest...) // let the written trees go
	return errs
}

// withhold returns ev's data without its streamed text. The tree is ev's own redacted
// copy, so it is changed in place.
func withhold(ev heldEvent) any {
	m, _ := ev.tree.(map[string]any)
	switch ev.kind {
	case heldTextDelta:
		m["delta"], m["withheld"] = "", WithheldNote
	case heldRawDelta:
		if d, ok := m["delta"].(map[string]any); ok {
			d["delta"], d["withheld"] = "", WithheldNote
		}
	case heldNative:
		if p, ok := m["rawPayload"].(map[string]any); ok {
			p["payload"] = map[string]any{"withheld": WithheldNote}
		}
	}
	return m
}

// heldFailure is a failure to write an event Append had already accepted.
type heldFailure struct {
	event string
	err   error
}
