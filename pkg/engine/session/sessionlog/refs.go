package sessionlog

import (
	"reflect"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// A round's answer reaches the logger several times: in provider_response_raw, again in
// provider_response_normalized, in its history_mutation, again in
// assistant_message_committed and, as text, in assistant. The repeats are written as a
// reference to the line that holds it (LineRef), so the answer is encoded, redacted and
// written twice a round (the provider's response, the history), not five times.

// LineRef names an earlier line of the same log by its sequence.
type LineRef struct {
	Sequence int64 `json:"sequence"`
}

// shownMessage is a message the log holds, and the line holding it.
type shownMessage struct {
	exec  string
	round int
	msg   *llm.Message // a copy of the message as logged
	seq   int64
}

// shown remembers, per kind, the last message written.
type shown struct {
	response shownMessage // provider_response_raw: response.response.message
	history  shownMessage // history_mutation: message
}

// remember notes the message data carries once its line is written as seq (l.mu held).
func (l *FileLogger) remember(event string, data any, seq int64) {
	ev, ok := data.(agent.Event)
	if !ok {
		return
	}
	switch {
	case event == EventProviderResponseRaw && ev.Response != nil:
		m := ev.Response.Response.Message
		l.shown.response = shownMessage{ev.ExecutionID, ev.Round, &m, seq}
	case event == EventHistoryMutation && ev.Message != nil:
		m := *ev.Message
		l.shown.history = shownMessage{ev.ExecutionID, ev.Round, &m, seq}
	}
}

// refer returns data with a message the log already holds taken out, and the function
// that puts the reference in its place in data's JSON tree (nil when data is kept whole;
// l.mu held).
//
// For an agent.Event, ref also says where the reference goes (referredEvent).
func (l *FileLogger) refer(event string, data any) (_ any, fix func(tree any), ref referredEvent) {
	switch d := data.(type) {
	case agent.Event:
		switch {
		case event == EventProviderResponseNormalized && d.Response != nil:
			r := l.shown.response
			if r.msg == nil || r.exec != d.ExecutionID || r.round != d.Round || !reflect.DeepEqual(*r.msg, d.Response.Response.Message) {
				return data, nil, ref
			}
			resp := *d.Response
			resp.Response.Message = llm.Message{}
			d.Response = &resp
			return d, func(tree any) {
				m, _ := tree.(map[string]any)
				if rm, ok := m["response"].(map[string]any); ok {
					if inner, ok := rm["response"].(map[string]any); ok {
						delete(inner, "message")
					}
					rm["messageRef"] = map[string]any{"sequence": r.seq}
				}
			}, referredEvent{responseRef: r.seq}
		case event == EventAssistantMessageCommitted && d.Message != nil:
			h := l.shown.history
			if h.msg == nil || h.exec != d.ExecutionID || !reflect.DeepEqual(*h.msg, *d.Message) {
				return data, nil, ref
			}
			d.Message = nil
			return d, func(tree any) {
				if m, ok := tree.(map[string]any); ok {
					m["messageRef"] = map[string]any{"sequence": h.seq}
				}
			}, referredEvent{messageRef: h.seq}
		}
	case AssistantData:
		h := l.shown.history
		if h.msg == nil || h.msg.Role != llm.RoleAssistant || d.Content == "" || d.Content != h.msg.Text() {
			return data, nil, ref
		}
		d.Content = ""
		return d, func(tree any) {
			if m, ok := tree.(map[string]any); ok {
				delete(m, "content")
				m["contentRef"] = map[string]any{"sequence": h.seq}
			}
		}, referredEvent{contentRef: h.seq}
	}
	return data, nil, ref
}

// referredEvent is an agent.Event refer took a message out of, with the reference in
// its place: response.messageRef (responseRef) or messageRef (messageRef), a line's
// sequence (0 for none); or the AssistantData (assistant) whose content refer took out,
// contentRef in its place. The encoder writes it as such (encode.go), so the line is
// made without the JSON tree the fix function edits; fix is kept for an event the
// encoder does not take.
type referredEvent struct {
	ev                                  agent.Event
	assistant                           *AssistantData
	responseRef, messageRef, contentRef int64
	fix                                 func(tree any)
}
