package sessionlog

import (
	"encoding/json"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ReplayedRequest is one provider request rebuilt from a provider_request entry: the
// message list and tool schemas the provider was sent (as redacted in the log).
type ReplayedRequest struct {
	Sequence    int64
	Line        int
	ExecutionID string
	Round       int
	Purpose     llm.Purpose
	// Messages must be treated as read-only: requests share the memory of their common
	// prefix.
	Messages []llm.Message
	Tools    []llm.ToolSchema
}

// requestBase is a provider_request's data.request.base (agent.RequestBase).
type requestBase struct {
	ExecutionID string `json:"executionId"`
	Round       int    `json:"round"`
	Messages    int    `json:"messages"`
	Tools       bool   `json:"tools"`
	// History: the first Messages messages are the history's at this line (see
	// history.go), except Replaced.
	History  bool             `json:"history"`
	Replaced []IndexedMessage `json:"replaced"`
	// ToolsFrom (a compact line) names the request whose tools this one had.
	ToolsFrom *RoundRef `json:"toolsFrom"`
}

// requestEvent is what replay reads from a provider_request's data. A line written whole
// (the format before deltas) has request.messages; a delta line has request.newMessages,
// request.messageCount and, unless it starts a conversation, request.base.
type requestEvent struct {
	ExecutionID string `json:"executionId"`
	Round       *int   `json:"round"`
	Request     *struct {
		Purpose      llm.Purpose     `json:"purpose"`
		Messages     *[]llm.Message  `json:"messages"`
		Base         *requestBase    `json:"base"`
		MessageCount *int            `json:"messageCount"`
		NewMessages  *[]llm.Message  `json:"newMessages"`
		Tools        json.RawMessage `json:"tools"`
	} `json:"request"`
}

// messageArena backs the message lists of a chain of requests that each extend the one
// before: a list is a prefix of msgs, and nothing below len(msgs) is ever rewritten, so
// extending the longest list appends in place and every list stays valid.
type messageArena struct{ msgs []llm.Message }

// requestRebuilder rebuilds provider requests in log order.
type requestRebuilder struct {
	out    []ReplayedRequest
	arenas []*messageArena // per out entry
	byKey  map[roundKey]int
}

func newRequestRebuilder() *requestRebuilder {
	return &requestRebuilder{byKey: map[roundKey]int{}}
}

// add rebuilds the request of e (a provider_request entry); history is the history
// rebuilt up to e.
func (b *requestRebuilder) add(e Entry, payloads PayloadSource, history []llm.Message) error {
	fail := func(err error) error {
		return fmt.Errorf("%w: provider_request %d (line %d): %w", ErrReplay, e.Sequence, e.Line, err)
	}
	data, err := Hydrate(e.Data, e.SessionID, payloads)
	if err != nil {
		return fail(err)
	}
	var ev requestEvent
	if err := unmarshal(data, &ev); err != nil {
		return fail(err)
	}
	if ev.Request == nil || ev.ExecutionID == "" || ev.Round == nil {
		return fail(fmt.Errorf("no request, executionId or round"))
	}
	req := ev.Request
	out := ReplayedRequest{Sequence: e.Sequence, Line: e.Line, ExecutionID: ev.ExecutionID, Round: *ev.Round,
		Purpose: req.Purpose}
	var arena *messageArena
	var base *ReplayedRequest
	switch {
	case req.Messages != nil: // written whole
		arena = &messageArena{msgs: *req.Messages}
	case req.NewMessages == nil || req.MessageCount == nil:
		return fail(fmt.Errorf("neither messages nor newMessages and messageCount"))
	case req.Base == nil:
		arena = &messageArena{msgs: *req.NewMessages}
	case req.Base.History:
		k := req.Base.Messages
		if k < 0 || k > len(history) {
			return fail(fmt.Errorf("base shares %d messages of the history, which has %d", k, len(history)))
		}
		arena = &messageArena{msgs: append(append(make([]llm.Message, 0, k+len(*req.NewMessages)), history[:k]...), *req.NewMessages...)}
		if err := applyReplaced(arena.msgs[:k], req.Base.Replaced); err != nil {
			return fail(err)
		}
	default:
		i, ok := b.byKey[roundKey{req.Base.ExecutionID, req.Base.Round}]
		if !ok {
			return fail(fmt.Errorf("base request %s round %d is not in the log", req.Base.ExecutionID, req.Base.Round))
		}
		base = &b.out[i]
		k := req.Base.Messages
		if k < 0 || k > len(base.Messages) {
			return fail(fmt.Errorf("base shares %d messages, its request has %d", k, len(base.Messages)))
		}
		if arena = b.arenas[i]; k != len(arena.msgs) {
			// The base's list was extended differently (a forced summary's extra
			// message): start a new arena from the shared prefix.
			arena = &messageArena{msgs: append(make([]llm.Message, 0, k+len(*req.NewMessages)), base.Messages[:k]...)}
		}
		arena.msgs = append(arena.msgs, *req.NewMessages...)
	}
	out.Messages = arena.msgs[:len(arena.msgs):len(arena.msgs)]
	if req.MessageCount != nil && *req.MessageCount != len(out.Messages) {
		return fail(fmt.Errorf("messageCount %d, rebuilt %d messages", *req.MessageCount, len(out.Messages)))
	}
	for _, m := range out.Messages[len(out.Messages)-countNew(req.Messages, req.NewMessages):] {
		if !validRole(m.Role) {
			return fail(fmt.Errorf("message of role %q", m.Role))
		}
	}
	if base != nil && req.Base.Tools && !req.Base.History {
		out.Tools = base.Tools
	} else if req.Base != nil && req.Base.ToolsFrom != nil {
		from := *req.Base.ToolsFrom
		if from.ExecutionID == "" {
			from.ExecutionID = ev.ExecutionID
		}
		i, ok := b.byKey[roundKey{from.ExecutionID, from.Round}]
		if !ok {
			return fail(fmt.Errorf("tools of request %s round %d, which is not in the log", from.ExecutionID, from.Round))
		}
		out.Tools = b.out[i].Tools
	} else if len(req.Tools) > 0 {
		if err := unmarshal(req.Tools, &out.Tools); err != nil {
			return fail(fmt.Errorf("tools: %w", err))
		}
	}
	b.byKey[roundKey{out.ExecutionID, out.Round}] = len(b.out)
	b.out = append(b.out, out)
	b.arenas = append(b.arenas, arena)
	return nil
}

// countNew is how many messages the line itself carried.
func countNew(whole, added *[]llm.Message) int {
	if whole != nil {
		return len(*whole)
	}
	return len(*added)
}
