package sessionlog

import (
	"bytes"
	"slices"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// A provider reports the SDK-native body of each request (provider_native_raw_payload of
// kind request), and that body holds the whole conversation again, with the system prompt
// and tool definitions. The logger writes it as a delta of the previous request body of
// the same conversation and provider that it wrote: the conversation array keeps only the
// elements after the ones both bodies share, the other members equal to the base's are
// left out, and rawPayload.payloadBase names the base line, the shared count and the
// members taken from the base.

// nativeArrays are the members of a native request body that hold the conversation
// (Anthropic and OpenAI Chat Completions "messages", OpenAI Responses "input").
var nativeArrays = []string{"messages", "input"}

// PayloadBase is rawPayload.payloadBase of a native request body written as a delta: its
// Member array starts with the first Shared elements of that array in the native request
// body of the base line (same executionId and round), followed by the elements written.
type PayloadBase struct {
	ExecutionID string `json:"executionId"`
	Round       int    `json:"round"`
	Member      string `json:"member"`
	Shared      int    `json:"shared"`
	// Same lists the other members of the body that are the base body's, as they are.
	Same []string `json:"same,omitempty"`
}

// nativeMark is the last native request body written for a conversation and provider
// (unredacted, as the provider encoded it), to compare the next body with: the body, the
// spans of its members and of its conversation array's elements.
type nativeMark struct {
	exec    string
	round   int
	payload []byte
	members []span // values of the top-level members, in order
	keys    []string
	conv    int    // index of the conversation array in members
	elems   []span // its elements
}

// span is [start, end) in a body.
type span struct{ start, end int }

func nativeKey(ev agent.Event) string { return ev.ConversationID + "\x00" + ev.RawPayload.Provider }

// nativeDelta returns the event to log for a native request body (l.mu held): the body
// with its conversation array reduced to what the last body written for the conversation
// lacks and the members equal to that body's left out, and the base naming that body
// (nil when nothing is shared). mark is what to remember once the line is written. Other
// events, and bodies without a conversation array, come back unchanged.
//
// The cost does not grow with the conversation beyond one byte comparison with the last
// body: the bytes both bodies start with have the same structure, so the elements they
// cover are shared, and only the rest of the body is scanned.
func (l *FileLogger) nativeDelta(ev agent.Event) (out agent.Event, base *PayloadBase, mark *nativeMark) {
	p := ev.RawPayload
	if p == nil || p.PayloadKind != llm.PayloadRequest {
		return ev, nil, nil
	}
	// A process's first body of a conversation in a log it reopened (a session resumed
	// into it) has no base: rebuilding the last body the log holds would mean reading the
	// log back to its start (that body's chain of deltas), and a resume must cost the
	// conversation, not the log. Only the full level writes native bodies.
	prev := l.native[nativeKey(ev)]
	mark, shared := scanBody(bytes.Clone(p.Payload), prev) // the mark keeps the body
	if mark == nil {
		return ev, nil, nil
	}
	mark.exec, mark.round = ev.ExecutionID, ev.Round
	if prev == nil || prev.keys[prev.conv] != mark.keys[mark.conv] {
		return ev, nil, mark
	}
	out, base = reduceBody(ev, mark, shared, func(key string, value []byte) bool {
		pv, ok := prev.member(key)
		return ok && bytes.Equal(pv, value)
	})
	if base != nil {
		base.ExecutionID, base.Round = prev.exec, prev.round
	}
	return out, base, mark
}

// reduceBody returns ev with its native body reduced to the elements of its conversation
// array after the first shared ones and the members same does not claim, and the base
// (without its line) naming them; ev and nil when nothing is shared.
func reduceBody(ev agent.Event, mark *nativeMark, shared int, same func(key string, value []byte) bool) (agent.Event, *PayloadBase) {
	body := mark.payload
	var sameKeys []string
	var reduced bytes.Buffer
	reduced.WriteByte('{')
	for i, m := range mark.members {
		value := body[m.start:m.end]
		if i != mark.conv && same(mark.keys[i], value) {
			sameKeys = append(sameKeys, mark.keys[i])
			continue
		}
		if reduced.Len() > 1 {
			reduced.WriteByte(',')
		}
		reduced.Write(appendString(nil, mark.keys[i]))
		reduced.WriteByte(':')
		if i != mark.conv {
			reduced.Write(value)
			continue
		}
		reduced.WriteByte('[')
		for j, e := range mark.elems[shared:] {
			if j > 0 {
				reduced.WriteByte(',')
			}
			reduced.Write(body[e.start:e.end])
		}
		reduced.WriteByte(']')
	}
	reduced.WriteByte('}')
	if shared == 0 && len(sameKeys) == 0 {
		return ev, nil
	}
	slices.Sort(sameKeys)
	cp := *ev.RawPayload
	cp.Payload = reduced.Bytes()
	ev.RawPayload = &cp
	return ev, &PayloadBase{Member: mark.keys[mark.conv], Shared: shared, Same: sameKeys}
}

// member returns the value of the member named key.
func (m *nativeMark) member(key string) ([]byte, bool) {
	for i, k := range m.keys {
		if k == key && i != m.conv {
			return m.payload[m.members[i].start:m.members[i].end], true
		}
	}
	return nil, false
}

// scanBody splits body into members and its conversation array into elements (nil when
// it is not an object with one), and counts the leading elements it shares with prev's.
// What body and prev's body start with alike is not scanned again.
func scanBody(body []byte, prev *nativeMark) (mark *nativeMark, shared int) {
	m := &nativeMark{payload: body, conv: -1}
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return nil, 0
	}
	i++
	inArray := false
	if prev != nil && prev.conv >= 0 {
		// An element inside the common prefix is shared; one that ends right at its end
		// too, when it closes itself (a string, object or array: a number could go on).
		same := commonPrefix(prev.payload, body)
		for shared < len(prev.elems) {
			e := prev.elems[shared]
			if e.end > same || e.end == same && !bytes.ContainsAny(prev.payload[e.end-1:e.end], `"}]`) {
				break
			}
			shared++
		}
		if shared > 0 { // resume after the last shared element, inside the array
			m.members = append(m.members, prev.members[:prev.conv]...)
			m.keys = append(m.keys, prev.keys[:prev.conv+1]...)
			m.conv = prev.conv
			m.elems = append(make([]span, 0, len(prev.elems)+1), prev.elems[:shared]...)
			i, inArray = prev.elems[shared-1].end, true
		}
	}
	for {
		if inArray {
			end, ok := m.scanElements(body, i)
			if !ok {
				return nil, 0
			}
			start := prev.members[prev.conv].start
			m.members = append(m.members, span{start, end})
			i, inArray = skipSpace(body, end), false
			if i < len(body) && body[i] == '}' {
				break
			}
			if i >= len(body) || body[i] != ',' {
				return nil, 0
			}
			i++
		}
		i = skipSpace(body, i)
		if len(m.members) == 0 && i < len(body) && body[i] == '}' {
			break
		}
		if i >= len(body) || body[i] != '"' {
			return nil, 0
		}
		end := skipValue(body, i)
		if end < 0 {
			return nil, 0
		}
		key := unquote(body[i:end])
		if i = skipSpace(body, end); i >= len(body) || body[i] != ':' {
			return nil, 0
		}
		start := skipSpace(body, i+1)
		if m.conv < 0 && slices.Contains(nativeArrays, key) && start < len(body) && body[start] == '[' {
			m.conv, m.keys = len(m.members), append(m.keys, key)
			end, ok := m.scanElements(body, start+1)
			if !ok {
				return nil, 0
			}
			m.members = append(m.members, span{start, end})
			i = skipSpace(body, end)
		} else {
			if end = skipValue(body, start); end < 0 {
				return nil, 0
			}
			m.members, m.keys = append(m.members, span{start, end}), append(m.keys, key)
			i = skipSpace(body, end)
		}
		if i < len(body) && body[i] == '}' {
			break
		}
		if i >= len(body) || body[i] != ',' {
			return nil, 0
		}
		i++
	}
	if skipSpace(body, i+1) != len(body) || m.conv < 0 {
		return nil, 0
	}
	return m, shared
}

// scanElements adds the elements of the conversation array from i (just after '[' or
// after an element) and returns the offset just past its ']'.
func (m *nativeMark) scanElements(body []byte, i int) (int, bool) {
	i = skipSpace(body, i)
	if len(m.elems) == 0 && i < len(body) && body[i] == ']' {
		return i + 1, true
	}
	if len(m.elems) > 0 {
		if i >= len(body) || body[i] != ',' && body[i] != ']' {
			return 0, false
		}
		if body[i] == ']' {
			return i + 1, true
		}
		i = skipSpace(body, i+1)
	}
	for {
		end := skipValue(body, i)
		if end < 0 {
			return 0, false
		}
		m.elems = append(m.elems, span{i, end})
		i = skipSpace(body, end)
		switch {
		case i < len(body) && body[i] == ']':
			return i + 1, true
		case i < len(body) && body[i] == ',':
			i = skipSpace(body, i+1)
		default:
			return 0, false
		}
	}
}

// skipSpace returns the offset of the first byte from i that is not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the offset just past the JSON value at b[i], or -1 when there is
// none: jsontext reads (and checks) it; what follows it is the caller's.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	d := getDecoder(b[i:])
	defer putDecoder(d)
	if _, err := d.ReadValue(); err != nil {
		return -1
	}
	return i + int(d.InputOffset())
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n, i := min(len(a), len(b)), 0
	for _, step := range []int{4096, 64} {
		for i+step <= n && bytes.Equal(a[i:i+step], b[i:i+step]) {
			i += step
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// setPayloadBase records base in the line's tree (rawPayload.payloadBase).
func setPayloadBase(tree any, base *PayloadBase) {
	m, _ := tree.(map[string]any)
	rp, _ := m["rawPayload"].(map[string]any)
	if rp != nil {
		b := map[string]any{"executionId": base.ExecutionID, "round": base.Round,
			"member": base.Member, "shared": base.Shared}
		if len(base.Same) > 0 {
			same := make([]any, len(base.Same))
			for i, k := range base.Same {
				same[i] = k
			}
			b["same"] = same
		}
		rp["payloadBase"] = b
	}
}
