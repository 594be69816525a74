package sessionlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"reflect"
	"slices"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// The FileLogger follows the history its history_mutation lines rebuild (what replay's
// ReplayRecord.Messages is at the end of the log), so that a session resumed into its own
// log does not write that history again and an agent's first request can be written as
// what it adds to it. Within a process it holds the messages themselves (the session's
// and the agent's, shared, not copied); reopening a log it learns only the length and
// the last message's ID, from the log's last history_mutation line, read backwards from
// the end: the history is not replayed.

// histState is the logger's view of the log's history.
type histState struct {
	known  bool // n and lastID are the log's
	n      int
	lastID string
	// lastHash is messageHash of the last message, when learnt from the log (msgs nil).
	lastHash string
	// msgs are the messages (len n), when this process logged them; nil after a reopen.
	msgs []llm.Message
}

// histOp is a history change to apply once its line is written.
type histOp struct {
	reset  bool
	msgs   []llm.Message // a reset's new history (owned), or the appended message
	forget bool          // the line's effect is unknown
}

func (h *histState) apply(op *histOp) {
	switch {
	case op == nil:
	case op.forget:
		*h = histState{}
	case op.reset:
		*h = histState{known: true, n: len(op.msgs), msgs: op.msgs}
		if h.n > 0 {
			h.lastID = op.msgs[h.n-1].ID
		}
	case h.known:
		m := op.msgs[0]
		h.n++
		h.lastID = m.ID
		if h.msgs != nil || h.n == 1 {
			h.msgs = append(h.msgs, m)
		}
	}
}

// historyMutation returns the data to write for a history_mutation (l.mu held) and the
// change it makes to the logger's view of the history. A reset gets Length and LastID; a
// resumed history (ContinueHistory) the log already holds becomes a continuation that
// carries only the changed messages and those after the log's.
func (l *FileLogger) historyMutation(data any) (any, *histOp) {
	switch d := data.(type) {
	case agent.Event:
		if d.Mutation != nil && d.Mutation.Kind == MutationAppend && d.Message != nil {
			return data, &histOp{msgs: []llm.Message{*d.Message}}
		}
	case *agent.Event:
		if d != nil {
			return l.historyMutation(*d)
		}
	case HistoryMutationData:
		switch {
		case d.Mutation.Kind == MutationAppend && d.Message != nil:
			return data, &histOp{msgs: []llm.Message{*d.Message}}
		case d.Mutation.Kind == MutationReset && d.Continues == nil:
			msgs := slices.Clone(d.Messages)
			n := len(msgs)
			d.Length = &n
			if n > 0 {
				d.LastID = msgs[n-1].ID
			}
			op := &histOp{reset: true, msgs: msgs}
			if n > 0 {
				d.LastHash = messageHash(msgs[n-1])
			}
			h := l.hist
			if !d.resumed || !h.known || h.n == 0 || n < h.n || msgs[h.n-1].ID != h.lastID || !h.sameLast(msgs[h.n-1]) {
				d.resumed, d.changed = false, nil
				return d, op
			}
			var replaced []IndexedMessage
			for _, i := range d.changed {
				if i >= 0 && i < h.n {
					replaced = append(replaced, IndexedMessage{Index: i, Message: msgs[i]})
				}
			}
			return HistoryMutationData{Mutation: d.Mutation, Messages: msgs[h.n:],
				Continues: &HistoryContinuation{Messages: h.n, LastID: h.lastID},
				Replaced:  replaced, Length: d.Length, LastID: d.LastID, LastHash: d.LastHash}, op
		}
	}
	return data, &histOp{forget: true}
}

// sameLast reports whether m is the history's last message: compared with it when the
// logger holds it, else with the hash of the one on the log's line.
func (h *histState) sameLast(m llm.Message) bool {
	if h.msgs != nil {
		return sameMessage(h.msgs[h.n-1], m)
	}
	return h.lastHash != "" && h.lastHash == messageHash(m)
}

// messageHash is the SHA-256 of a message as a line holds it (redacted, members sorted).
func messageHash(m llm.Message) string {
	tree, err := toTree(m)
	if err != nil {
		return ""
	}
	return treeHash(redact.Value(tree))
}

// treeHash is the SHA-256 of a JSON tree's encoding ("" when it cannot be encoded).
func treeHash(tree any) string {
	b, err := encodeJSON(tree)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// rawHash is treeHash of the JSON raw (a message read back from a line).
func rawHash(raw json.RawMessage) string {
	tree, err := toTree(raw)
	if err != nil {
		return ""
	}
	return treeHash(tree)
}

// requestFromHistory returns the data to write for an agent's provider_request that has
// no base (its first request), when the request starts with messages of the logger's
// history: it is written with base {history: true, messages: k}, its first k messages
// being the history's (by ID; those that differ from the history's, such as an
// interrupted answer as the provider is sent it, are listed in base.replaced), so a
// resumed session's first request does not write the resumed conversation again. l.mu is
// held.
func (l *FileLogger) requestFromHistory(ev agent.Event) any {
	req := ev.Request
	h := l.hist.msgs
	if req == nil || req.Base != nil || req.Omitted() > 0 || len(h) == 0 {
		return ev
	}
	k := 0
	for k < len(h) && k < len(req.Messages) && sameHistoryMessage(h[k], req.Messages[k]) {
		k++
	}
	if k == 0 {
		return ev
	}
	base := historyBase{History: true, Messages: k}
	for i := range k {
		if !sameMessage(h[i], req.Messages[i]) {
			base.Replaced = append(base.Replaced, IndexedMessage{Index: i, Message: req.Messages[i]})
		}
	}
	tools := req.Tools
	if tools == nil {
		tools = []llm.ToolSchema{}
	}
	newMessages := req.Messages[k:]
	if newMessages == nil {
		newMessages = []llm.Message{}
	}
	return historyRequestEvent{ev: ev, wire: historyRequestWire{Provider: req.Provider, Model: req.Model,
		Purpose: req.Purpose, Base: base, MessageCount: len(req.Messages), NewMessages: newMessages, Tools: tools}}
}

// historyBase is the base of a request written against the history.
type historyBase struct {
	History  bool             `json:"history"`
	Messages int              `json:"messages"`
	Replaced []IndexedMessage `json:"replaced,omitempty"`
}

// historyRequestWire is data.request of a provider_request based on the history (the
// shape of agent.ProviderRequestData's delta form).
type historyRequestWire struct {
	Provider     string           `json:"provider"`
	Model        string           `json:"model"`
	Purpose      llm.Purpose      `json:"purpose,omitempty"`
	Base         historyBase      `json:"base"`
	MessageCount int              `json:"messageCount"`
	NewMessages  []llm.Message    `json:"newMessages"`
	Tools        []llm.ToolSchema `json:"tools"`
}

// historyRequestEvent is a provider_request event whose request is a historyRequestWire.
type historyRequestEvent struct {
	ev   agent.Event
	wire historyRequestWire
}

// sameHistoryMessage reports whether the request's message b is the history's a: the
// same ID, or, for messages without one (older records, imported sessions), the same
// content.
func sameHistoryMessage(a, b llm.Message) bool {
	if a.ID != "" || b.ID != "" {
		return a.ID == b.ID
	}
	return sameMessage(a, b)
}

// sameMessage reports whether a and b encode alike: the same memory (a message handed on
// unchanged), else deep equality.
func sameMessage(a, b llm.Message) bool {
	return sameMemory(a, b) || reflect.DeepEqual(a, b)
}

// sameMemory reports whether a and b are copies of one message value: the same fields,
// the same content array, the same metadata map.
func sameMemory(a, b llm.Message) bool {
	return a.ID == b.ID && a.Role == b.Role && a.State == b.State && a.Usage == b.Usage && a.CreatedAt == b.CreatedAt &&
		len(a.Content) == len(b.Content) &&
		(len(a.Content) == 0 || &a.Content[0] == &b.Content[0]) &&
		reflect.ValueOf(a.Metadata).UnsafePointer() == reflect.ValueOf(b.Metadata).UnsafePointer() &&
		len(a.Metadata) == len(b.Metadata) && (a.Content == nil) == (b.Content == nil) && (a.Metadata == nil) == (b.Metadata == nil)
}

// recoverHistory learns the length and last message ID of the history the log at r
// (end bytes of complete lines) rebuilds, from its last history_mutation line, reading
// backwards. A log without one has an empty history; a line it cannot read leaves the
// history unknown.
func recoverHistory(r io.ReaderAt, end int64, payloads PayloadSource) histState {
	var h histState
	found := false
	err := eachLineBackward(r, end, func(line []byte) bool {
		if !isEvent(line, EventHistoryMutation) {
			return false
		}
		found = true
		h = historyFromLine(line, payloads)
		return true
	})
	if err != nil {
		return histState{}
	}
	if !found {
		return histState{known: true}
	}
	return h
}

// isEvent reports whether a line is an entry of event (the writer puts "event" before
// the data; a line from another writer is decoded).
func isEvent(line []byte, event EventType) bool {
	head := line[:min(len(line), 512)]
	if i := bytes.Index(head, []byte(`"event":"`)); i >= 0 && bytes.Contains(head, []byte(`"sessionId":`)) {
		rest := head[i+len(`"event":"`):]
		return bytes.HasPrefix(rest, []byte(event+`"`))
	}
	var e struct {
		Event string `json:"event"`
	}
	return unmarshal(line, &e) == nil && e.Event == event
}

// historyFromLine is the history after the history_mutation line.
func historyFromLine(line []byte, payloads PayloadSource) histState {
	var e Entry
	if unmarshal(line, &e) != nil {
		return histState{}
	}
	var d struct {
		Mutation json.RawMessage   `json:"mutation"`
		Message  json.RawMessage   `json:"message"`
		Messages []json.RawMessage `json:"messages"`
	}
	// Read the line as it is first: a reset's Length needs no payload file.
	var head struct {
		Length   *int   `json:"length"`
		LastID   string `json:"lastId"`
		LastHash string `json:"lastHash"`
	}
	if unmarshal(e.Data, &head) != nil {
		return histState{}
	}
	if head.Length != nil {
		return histState{known: true, n: *head.Length, lastID: head.LastID, lastHash: head.LastHash}
	}
	data, err := Hydrate(e.Data, e.SessionID, payloads)
	if err != nil || unmarshal(data, &d) != nil {
		return histState{}
	}
	m, err := mutationEvent{Mutation: d.Mutation}.parse()
	if err != nil {
		return histState{}
	}
	var id struct {
		ID string `json:"id"`
	}
	switch m.kind {
	case MutationAppend:
		if m.index == nil || unmarshal(d.Message, &id) != nil || id.ID == "" {
			return histState{}
		}
		return histState{known: true, n: *m.index + 1, lastID: id.ID, lastHash: rawHash(d.Message)}
	case MutationReset: // a whole reset written before Length
		h := histState{known: true, n: len(d.Messages)}
		if h.n > 0 && unmarshal(d.Messages[h.n-1], &id) == nil {
			h.lastID, h.lastHash = id.ID, rawHash(d.Messages[h.n-1])
		}
		return h
	}
	return histState{}
}

// eachLineBackward calls fn with the lines of r[0:end] (end just past a '\n'), last
// first, without their '\n', until fn returns true.
func eachLineBackward(r io.ReaderAt, end int64, fn func(line []byte) bool) error {
	const chunk = 256 << 10
	var pending [][]byte // the pieces, in file order, of the line being gathered
	pos := end
	for pos > 0 {
		n := min(int64(chunk), pos)
		pos -= n
		part := make([]byte, n)
		if _, err := r.ReadAt(part, pos); err != nil && err != io.EOF {
			return err
		}
		hi := len(part)
		for {
			i := bytes.LastIndexByte(part[:hi], '\n')
			if i < 0 {
				break
			}
			if line := joinPieces(part[i+1:hi], pending); len(bytes.TrimSpace(line)) > 0 && fn(line) {
				return nil
			}
			pending, hi = nil, i
		}
		pending = append([][]byte{part[:hi]}, pending...)
	}
	if line := joinPieces(nil, pending); len(bytes.TrimSpace(line)) > 0 {
		fn(line)
	}
	return nil
}

func joinPieces(first []byte, rest [][]byte) []byte {
	if len(rest) == 0 {
		return first
	}
	return bytes.Join(append([][]byte{first}, rest...), nil)
}
