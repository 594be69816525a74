package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// (unredacted, as the provider encoded it), to compare the next body with: its
// conversation array's elements and its other members.
type nativeMark struct {
	exec    string
	round   int
	member  string
	elems   [][]byte
	members map[string][]byte
}

func nativeKey(ev agent.Event) string { return ev.ConversationID + "\x00" + ev.RawPayload.Provider }

// nativeDelta returns the event to log for a native request body (l.mu held): the body
// with its conversation array reduced to what the last body written for the conversation
// lacks and the members equal to that body's left out, and the base naming that body
// (nil when nothing is shared). mark is what to remember once the line is written. Other
// events, and bodies without a conversation array, come back unchanged. The cost is a
// scan and a byte comparison of the body, which the provider has just encoded whole.
func (l *FileLogger) nativeDelta(ev agent.Event) (out agent.Event, base *PayloadBase, mark *nativeMark) {
	p := ev.RawPayload
	if p == nil || p.PayloadKind != llm.PayloadRequest {
		return ev, nil, nil
	}
	payload := bytes.Clone(p.Payload) // the mark keeps pieces of it
	members, ok := objectMembers(payload)
	if !ok {
		return ev, nil, nil
	}
	conv := -1
	var elems [][]byte
	for _, name := range nativeArrays {
		for i, m := range members {
			if m.key == name {
				if elems, ok = arrayElements(m.value); ok {
					conv = i
				}
			}
		}
		if conv >= 0 {
			break
		}
	}
	if conv < 0 {
		return ev, nil, nil
	}
	member := members[conv].key
	mark = &nativeMark{exec: ev.ExecutionID, round: ev.Round, member: member, elems: elems,
		members: make(map[string][]byte, len(members))}
	for i, m := range members {
		if i != conv {
			mark.members[m.key] = m.value
		}
	}
	prev := l.native[nativeKey(ev)]
	if prev == nil || prev.member != member {
		return ev, nil, mark
	}
	shared := 0
	for shared < len(prev.elems) && shared < len(elems) && bytes.Equal(prev.elems[shared], elems[shared]) {
		shared++
	}
	var same []string
	var reduced bytes.Buffer
	reduced.WriteByte('{')
	for i, m := range members {
		if i != conv {
			if pv, ok := prev.members[m.key]; ok && bytes.Equal(pv, m.value) {
				same = append(same, m.key)
				continue
			}
		}
		if reduced.Len() > 1 {
			reduced.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		reduced.Write(key)
		reduced.WriteByte(':')
		if i != conv {
			reduced.Write(m.value)
			continue
		}
		reduced.WriteByte('[')
		for j, e := range elems[shared:] {
			if j > 0 {
				reduced.WriteByte(',')
			}
			reduced.Write(e)
		}
		reduced.WriteByte(']')
	}
	reduced.WriteByte('}')
	if shared == 0 && len(same) == 0 {
		return ev, nil, mark
	}
	slices.Sort(same)
	cp := *p
	cp.Payload = reduced.Bytes()
	ev.RawPayload = &cp
	return ev, &PayloadBase{ExecutionID: prev.exec, Round: prev.round, Member: member, Shared: shared, Same: same}, mark
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

// nativeEvent is what replay reads from a provider_native_raw_payload's data.
type nativeEvent struct {
	ExecutionID string `json:"executionId"`
	Round       int    `json:"round"`
	RawPayload  *struct {
		PayloadKind string          `json:"payloadKind"`
		Payload     json.RawMessage `json:"payload"`
		PayloadBase *PayloadBase    `json:"payloadBase"`
	} `json:"rawPayload"`
}

// EachNativeRequest calls fn, in log order, with the complete body of every native
// request (provider_native_raw_payload of kind request) of the log, rebuilding the bodies
// written as deltas from their base. A base that is not earlier in the log or does not
// add up is an error matching ErrReplay; so is an error of fn. Bodies are handed over one
// at a time: a long log's bodies together are quadratic in its length.
func EachNativeRequest(entries []Entry, payloads PayloadSource, fn func(executionID string, round int, body json.RawMessage) error) error {
	c := nativeChain{byKey: map[roundKey]nativeBody{}}
	for _, e := range entries {
		if e.Event != EventProviderNativeRawPayload {
			continue
		}
		data, err := Hydrate(e.Data, e.SessionID, payloads)
		if err == nil {
			var key roundKey
			var body json.RawMessage
			if key, body, err = c.rebuild(data); err == nil && body != nil {
				err = fn(key.execution, key.round, body)
			}
		}
		if err != nil {
			return fmt.Errorf("%w: provider_native_raw_payload %d (line %d): %w", ErrReplay, e.Sequence, e.Line, err)
		}
	}
	return nil
}

// nativeChain rebuilds native request bodies written as deltas. It keeps the
// conversation array of the bodies a later line may still use as its base: a base is used
// once (the writer's next delta names the body after it), so it is dropped when used.
type nativeChain struct {
	byKey map[roundKey]nativeBody
}

// nativeBody is a rebuilt body: its conversation array and its other members.
type nativeBody struct {
	elems   []json.RawMessage
	members map[string]json.RawMessage
}

// rebuild returns the complete body of a native request line (nil, nil for other kinds).
func (c *nativeChain) rebuild(data json.RawMessage) (key roundKey, body json.RawMessage, err error) {
	var ev nativeEvent
	if err := json.Unmarshal(data, &ev); err != nil || ev.RawPayload == nil || ev.RawPayload.PayloadKind != string(llm.PayloadRequest) {
		return key, nil, err
	}
	key = roundKey{ev.ExecutionID, ev.Round}
	var members map[string]json.RawMessage
	if json.Unmarshal(ev.RawPayload.Payload, &members) != nil {
		return key, ev.RawPayload.Payload, nil // not an object: kept as written
	}
	b := ev.RawPayload.PayloadBase
	for _, member := range nativeArrays {
		if b != nil && member != b.Member {
			continue
		}
		var elems []json.RawMessage
		if raw := bytes.TrimSpace(members[member]); len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
			continue
		}
		if b != nil {
			prev, ok := c.byKey[roundKey{b.ExecutionID, b.Round}]
			if !ok {
				return key, nil, fmt.Errorf("base native request %s round %d is not in the log", b.ExecutionID, b.Round)
			}
			if b.Shared < 0 || b.Shared > len(prev.elems) {
				return key, nil, fmt.Errorf("base shares %d elements, its body has %d", b.Shared, len(prev.elems))
			}
			for _, k := range b.Same {
				v, ok := prev.members[k]
				if !ok || k == member {
					return key, nil, fmt.Errorf("base body has no member %q", k)
				}
				members[k] = v
			}
			delete(c.byKey, roundKey{b.ExecutionID, b.Round})
			elems = append(append(make([]json.RawMessage, 0, b.Shared+len(elems)), prev.elems[:b.Shared]...), elems...)
		}
		others := make(map[string]json.RawMessage, len(members))
		for k, v := range members {
			if k != member {
				others[k] = v
			}
		}
		c.byKey[key] = nativeBody{elems: elems, members: others}
		if members[member], err = json.Marshal(elems); err != nil {
			return key, nil, err
		}
		body, err = json.Marshal(members)
		return key, body, err
	}
	if b != nil {
		return key, nil, fmt.Errorf("payloadBase names member %q, which the body lacks", b.Member)
	}
	return key, ev.RawPayload.Payload, nil
}
