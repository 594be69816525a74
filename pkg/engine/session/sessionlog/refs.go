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

// refer returns data with a message the log already holds taken out, and the reference
// to put in its place (ref.any() false when data is kept whole; l.mu held). The encoder
// writes ref itself when data is handed on as ref (ev or assistant set); else
// ref.apply puts it in data's JSON tree.
func (l *FileLogger) refer(event string, data any) (_ any, ref referredEvent) {
	switch d := data.(type) {
	case agent.Event:
		switch {
		case event == EventProviderResponseNormalized && d.Response != nil:
			r := l.shown.response
			if r.msg == nil || r.exec != d.ExecutionID || r.round != d.Round || !reflect.DeepEqual(*r.msg, d.Response.Response.Message) {
				return data, ref
			}
			resp := *d.Response
			resp.Response.Message = llm.Message{}
			d.Response = &resp
			return d, referredEvent{responseRef: r.seq}
		case event == EventAssistantMessageCommitted && d.Message != nil:
			h := l.shown.history
			if h.msg == nil || h.exec != d.ExecutionID || !reflect.DeepEqual(*h.msg, *d.Message) {
				return data, ref
			}
			d.Message = nil
			return d, referredEvent{messageRef: h.seq}
		}
	case AssistantData:
		h := l.shown.history
		if h.msg == nil || h.msg.Role != llm.RoleAssistant || d.Content == "" || d.Content != h.msg.Text() {
			return data, ref
		}
		d.Content = ""
		return d, referredEvent{contentRef: h.seq}
	}
	return data, ref
}

// referredEvent is a reference refer puts in place of what it took out of an event: the
// response's message (responseRef: response.messageRef), the message (messageRef:
// messageRef) or an assistant's content (contentRef: contentRef), each a line's
// sequence (0 for none). Handed on with the agent.Event (ev) or the AssistantData
// (assistant) it was taken from, it is written by the encoder (encode.go), the line
// made without the JSON tree apply edits.
type referredEvent struct {
	ev                                  agent.Event
	assistant                           *AssistantData
	responseRef, messageRef, contentRef int64
}

// any reports whether r holds a reference.
func (r *referredEvent) any() bool {
	return r.responseRef != 0 || r.messageRef != 0 || r.contentRef != 0
}

// apply puts r's reference in place in the data's JSON tree.
func (r *referredEvent) apply(tree any) {
	m, ok := tree.(map[string]any)
	if !ok {
		return
	}
	switch {
	case r.responseRef != 0:
		if rm, ok := m["response"].(map[string]any); ok {
			if inner, ok := rm["response"].(map[string]any); ok {
				delete(inner, "message")
			}
			rm["messageRef"] = map[string]any{"sequence": r.responseRef}
		}
	case r.messageRef != 0:
		m["messageRef"] = map[string]any{"sequence": r.messageRef}
	case r.contentRef != 0:
		delete(m, "content")
		m["contentRef"] = map[string]any{"sequence": r.contentRef}
	}
}
