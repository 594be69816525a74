package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

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
	if err := unmarshal(data, &ev); err != nil || ev.RawPayload == nil || ev.RawPayload.PayloadKind != string(llm.PayloadRequest) {
		return key, nil, err
	}
	key = roundKey{ev.ExecutionID, ev.Round}
	var members map[string]json.RawMessage
	if unmarshal(ev.RawPayload.Payload, &members) != nil {
		return key, ev.RawPayload.Payload, nil // not an object: kept as written
	}
	b := ev.RawPayload.PayloadBase
	for _, member := range nativeArrays {
		if b != nil && member != b.Member {
			continue
		}
		var elems []json.RawMessage
		if raw := bytes.TrimSpace(members[member]); len(raw) == 0 || raw[0] != '[' || unmarshal(raw, &elems) != nil {
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
		if members[member], err = marshal(elems); err != nil {
			return key, nil, err
		}
		body, err = marshal(members)
		return key, body, err
	}
	if b != nil {
		return key, nil, fmt.Errorf("payloadBase names member %q, which the body lacks", b.Member)
	}
	return key, ev.RawPayload.Payload, nil
}
