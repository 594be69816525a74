package sessionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// A process that reopens a log (a session resumed into it) has no native request body to
// compare its first one with, and that body holds the whole conversation again. So, at
// that first body, the logger rebuilds the last body the log holds for the conversation
// and provider, in one streaming pass over the log (only that conversation's native
// request lines are decoded; a conversation array in a payload file is split, not
// decoded), and writes the new body as a delta of it. The log's body is redacted and
// encoded as lines encode JSON, so the new body's elements and members are compared in
// that form: each is decoded, redacted and encoded once, for this one body.

// loggedBody is a native request body as the log holds it: its conversation array's
// elements and its other members, as written (redacted, encoded as lines encode JSON).
type loggedBody struct {
	exec   string
	round  int
	member string
	elems  [][]byte
	others map[string][]byte
}

// recoverNative rebuilds the last native request body of the conversation and provider
// in the part of the log written before it was opened (nil when there is none, or when
// the chain of bases cannot be followed). l.mu is held.
func (l *FileLogger) recoverNative(conv, provider string) *loggedBody {
	quoted, err := json.Marshal(conv)
	if err != nil {
		return nil
	}
	needle := append([]byte(`"conversationId":`), quoted...)
	src := DirPayloads(l.dir)
	r := bufio.NewReaderSize(io.NewSectionReader(l.f, 0, l.opened), 1<<20)
	var cur *loggedBody
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && bytes.Contains(line, needle) && bytes.Contains(line, []byte(`"payloadKind":"request"`)) &&
			isEvent(line, EventProviderNativeRawPayload) {
			cur = nextLoggedBody(cur, line, l.sessionID, conv, provider, src)
		}
		if err != nil {
			return cur
		}
	}
}

// nextLoggedBody is the body of a native request line for the conversation, given the
// body before it (cur). A line of another provider, or without a conversation array,
// leaves cur (the writer's base is unchanged by it); a delta that does not extend cur
// breaks the chain (nil).
func nextLoggedBody(cur *loggedBody, line []byte, sessionID, conv, provider string, src PayloadSource) *loggedBody {
	var e Entry
	var ev struct {
		ConversationID string `json:"conversationId"`
		ExecutionID    string `json:"executionId"`
		Round          int    `json:"round"`
		RawPayload     *struct {
			Provider    string          `json:"provider"`
			PayloadKind string          `json:"payloadKind"`
			Payload     json.RawMessage `json:"payload"`
			PayloadBase *PayloadBase    `json:"payloadBase"`
		} `json:"rawPayload"`
	}
	if json.Unmarshal(line, &e) != nil || json.Unmarshal(e.Data, &ev) != nil || ev.RawPayload == nil ||
		ev.ConversationID != conv || ev.RawPayload.Provider != provider || ev.RawPayload.PayloadKind != string(llm.PayloadRequest) {
		return cur
	}
	members, ok := objectMembers(ev.RawPayload.Payload)
	if !ok {
		return cur
	}
	b := ev.RawPayload.PayloadBase
	body := &loggedBody{exec: ev.ExecutionID, round: ev.Round, others: map[string][]byte{}}
	for _, m := range members {
		if body.member == "" && (b == nil && slices.Contains(nativeArrays, m.key) || b != nil && m.key == b.Member) {
			if elems, ok := loggedArray(m.value, sessionID, src); ok {
				body.member, body.elems = m.key, elems
				continue
			}
		}
		v, err := Hydrate(m.value, sessionID, src)
		if err != nil {
			return nil
		}
		body.others[m.key] = v
	}
	switch {
	case body.member == "" && b == nil:
		return cur
	case b == nil:
		return body
	case body.member == "" || cur == nil || cur.exec != b.ExecutionID || cur.round != b.Round || cur.member != b.Member ||
		b.Shared < 0 || b.Shared > len(cur.elems):
		return nil
	}
	// cur is dropped: its array is reused in place.
	body.elems = append(cur.elems[:b.Shared], body.elems...)
	for _, k := range b.Same {
		v, ok := cur.others[k]
		if !ok {
			return nil
		}
		body.others[k] = v
	}
	return body
}

// loggedArray splits an array as a line holds it (inline, or a reference to the payload
// file holding it) into its elements, resolving references inside them.
func loggedArray(raw []byte, sessionID string, src PayloadSource) ([][]byte, bool) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		var ref PayloadRef
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.DisallowUnknownFields()
		if dec.Decode(&ref) != nil || ref.Kind != PayloadKind {
			return nil, false
		}
		b, err := resolve(ref, sessionID, src)
		if err != nil {
			return nil, false
		}
		raw = b // a payload file holds its value whole: no references inside
	}
	elems, ok := arrayElements(raw)
	if !ok {
		return nil, false
	}
	for i, el := range elems {
		if bytes.Contains(el, []byte(PayloadKind)) {
			h, err := Hydrate(el, sessionID, src)
			if err != nil {
				return nil, false
			}
			elems[i] = h
		}
	}
	return elems, true
}

// delta returns ev's native body written as a delta of the logged body, the base, and
// the mark to keep for the next body.
func (lb *loggedBody) delta(ev agent.Event) (agent.Event, *PayloadBase, *nativeMark) {
	mark, _ := scanBody(bytes.Clone(ev.RawPayload.Payload), nil)
	if mark == nil {
		return ev, nil, nil
	}
	mark.exec, mark.round = ev.ExecutionID, ev.Round
	if mark.keys[mark.conv] != lb.member {
		return ev, nil, mark
	}
	shared := 0
	for shared < len(mark.elems) && shared < len(lb.elems) {
		e := mark.elems[shared]
		if !sameAsLogged(mark.payload[e.start:e.end], lb.elems[shared]) {
			break
		}
		shared++
	}
	out, base := reduceBody(ev, mark, shared, func(key string, value []byte) bool {
		v, ok := lb.others[key]
		return ok && sameAsLogged(value, v)
	})
	if base != nil {
		base.ExecutionID, base.Round = lb.exec, lb.round
	}
	return out, base, mark
}

// sameAsLogged reports whether raw, as a line would hold it, is logged. Bytes already
// alike need no decoding: what a line holds is redacted and encoded as lines are, and
// redacting and encoding it again changes nothing.
func sameAsLogged(raw, logged []byte) bool {
	return bytes.Equal(raw, logged) || bytes.Equal(asLogged(raw), logged)
}

// asLogged is a JSON value as a line holds it: redacted, encoded as lines are (nil when
// it cannot be decoded).
func asLogged(raw []byte) []byte {
	tree, err := toTree(json.RawMessage(raw))
	if err != nil {
		return nil
	}
	b, err := encodeJSON(redact.Value(tree))
	if err != nil {
		return nil
	}
	return b
}
