package sessionlog

import (
	"fmt"
	"reflect"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Level says how much a FileLogger writes (settings.json sessionLog.level).
//
// LevelFull writes every event the spec lists, the raw provider payloads among them
// (native request bodies and stream events, raw and normalized responses, stream deltas)
// and the messages again (history_mutation, *_message_committed, timeline_entry): the log
// alone replays the session.
//
// LevelCompact writes, once per round, what the session's journal (package store) does
// not already hold: the messages and the timeline's event entries are the journal's, and
// the raw payloads are left out. A round is then its provider_request (written against
// the history: base {history: true, messages: k, toolsFrom}, with no message when the
// request is the history's) and a provider_response_normalized without its message
// (stopReason, toolCallsCount); a turn's assistant event has no historyStructure. Not
// written: provider_native_raw_payload,
// provider_stream_raw_delta, provider_response_raw, text_delta, timeline_entry,
// assistant_message_committed, tool_message_committed, tool_batch_started,
// tool_execution_request, a successful tool_execution_result (the tool call and its
// result are the journal's messages, the tool's start and end its timeline entries), and
// history_mutation appends (the logger follows them all the same). A history reset is
// written as at LevelFull; a resumed session's reset continues the journal's history
// ({continues, journal: true}) without writing it. session_init carries logLevel
// "compact", so replay and validation know which lines to expect from there on;
// ReplayOptions.Journal gives replay the messages and entries it takes from the journal.
type Level string

const (
	// LevelCompact is what a session writes unless its settings ask for LevelFull.
	LevelCompact Level = "compact"
	// LevelFull writes every event with its raw payloads. It is also what a FileLogger
	// whose Options.Level is empty writes.
	LevelFull Level = "full"
)

// DefaultLevel is the level a session's log is written at when settings do not name one.
const DefaultLevel = LevelCompact

// ParseLevel reads a level's name; "" is DefaultLevel.
func ParseLevel(s string) (Level, error) {
	switch Level(s) {
	case "":
		return DefaultLevel, nil
	case LevelCompact, LevelFull:
		return Level(s), nil
	}
	return "", fmt.Errorf("%w: log level %q (want %q or %q)", ErrInvalidLevel, s, LevelCompact, LevelFull)
}

// compactSkips reports whether the compact level leaves event out whatever its data (it
// is dropped before it is copied or queued). history_mutation is not among them: the
// logger follows appends it does not write.
func compactSkips(event string) bool {
	switch event {
	case EventProviderNativeRawPayload, EventProviderStreamRawDelta, EventProviderResponseRaw, EventTextDelta,
		EventTimelineEntry, EventAssistantMessageCommitted, EventToolMessageCommitted, EventToolBatchStarted,
		EventToolExecutionRequest:
		return true
	}
	return false
}

// compactSkipsData reports whether the compact level leaves out event with this data: a
// tool result that succeeded (its result is the journal's tool message).
func compactSkipsData(event string, data any) bool {
	if compactSkips(event) {
		return true
	}
	if event == EventToolExecutionResult {
		if ev, ok := data.(agent.Event); ok && ev.Tool != nil && ev.Tool.Result != nil && ev.Tool.Result.Success {
			return true
		}
	}
	return false
}

// compactData returns what the compact level writes for event (l.mu held): write false
// when nothing is written, op the history change to apply (once written, or at once
// when nothing is).
func (l *FileLogger) compactData(event string, data any) (out any, write bool, op *histOp) {
	if compactSkipsData(event, data) {
		return nil, false, nil
	}
	switch event {
	case EventSessionInit:
		switch d := data.(type) {
		case SessionInitData:
			d.LogLevel = LevelCompact
			return d, true, nil
		case *SessionInitData:
			if d != nil {
				c := *d
				c.LogLevel = LevelCompact
				return c, true, nil
			}
		}
		return data, true, nil
	case EventHistoryMutation:
		return l.compactMutation(data)
	case EventProviderRequest:
		if ev, ok := data.(agent.Event); ok && ev.Request != nil {
			return l.compactRequest(ev), true, nil
		}
	case EventAssistant:
		// historyStructure describes the messages the run added, which the journal holds.
		switch d := data.(type) {
		case AssistantData:
			return compactAssistant{Content: d.Content, HistoryLength: d.HistoryLength, HistoryFrom: d.HistoryFrom}, true, nil
		case *AssistantData:
			if d != nil {
				return compactAssistant{Content: d.Content, HistoryLength: d.HistoryLength, HistoryFrom: d.HistoryFrom}, true, nil
			}
		}
	case EventProviderResponseNormalized:
		if ev, ok := data.(agent.Event); ok && ev.Response != nil {
			return compactResponse{ExecutionID: ev.ExecutionID, Round: ev.Round, ConversationID: l.otherConversation(ev),
				Response: compactResponseWire{StopReason: string(ev.Response.Response.StopReason),
					ToolCallsCount: ev.Response.ToolCallsCount, Message: messageOmitted}}, true, nil
		}
	}
	return data, true, nil
}

// messageOmitted stands for a message the compact level does not write.
const messageOmitted = "journal"

// otherConversation is the event's conversation ID when it is not the session's (a
// compact line leaves the session's out).
func (l *FileLogger) otherConversation(ev agent.Event) string {
	if ev.ConversationID == l.sessionID {
		return ""
	}
	return ev.ConversationID
}

// compactMutation follows an append without writing it, and writes a resumed session's
// history as a continuation of the journal's.
func (l *FileLogger) compactMutation(data any) (any, bool, *histOp) {
	if d, ok := data.(HistoryMutationData); ok && d.resumed && d.Mutation.Kind == MutationReset && d.Continues == nil {
		msgs := d.Messages
		n := len(msgs)
		out := HistoryMutationData{Mutation: d.Mutation, Length: &n, Journal: true,
			Continues: &HistoryContinuation{Messages: n}}
		if n > 0 {
			out.LastID = msgs[n-1].ID
			out.Continues.LastID = out.LastID
		}
		for _, i := range d.changed {
			if i >= 0 && i < n {
				out.Replaced = append(out.Replaced, IndexedMessage{Index: i, Message: msgs[i]})
			}
		}
		l.verified = nil
		return out, true, &histOp{reset: true, msgs: msgs}
	}
	out, op := l.historyMutation(data)
	if op != nil && !op.reset && !op.forget {
		return nil, false, op // an append: the journal holds the message
	}
	l.verified = nil // a new history: no request's prefix is known to be it
	return out, true, op
}

// compactAssistant is an assistant event at the compact level: AssistantData without
// historyStructure.
type compactAssistant struct {
	Content       string `json:"content"`
	HistoryLength int    `json:"historyLength"`
	HistoryFrom   int    `json:"historyFrom"`
}

// compactResponse is a provider_response_normalized at the compact level: the message is
// the one the journal holds (or, for an answer that was not committed, nowhere).
type compactResponse struct {
	ConversationID string              `json:"conversationId,omitempty"`
	ExecutionID    string              `json:"executionId"`
	Round          int                 `json:"round"`
	Response       compactResponseWire `json:"response"`
}

type compactResponseWire struct {
	StopReason     string `json:"stopReason,omitempty"`
	ToolCallsCount int    `json:"toolCallsCount"`
	Message        string `json:"message"`
}

// compactRequestEvent is a provider_request at the compact level.
type compactRequestEvent struct {
	ConversationID string             `json:"conversationId,omitempty"`
	ExecutionID    string             `json:"executionId"`
	Round          int                `json:"round"`
	Request        compactRequestWire `json:"request"`
}

// compactRequestWire is data.request of a compact provider_request: historyRequestWire
// whose base may name the request whose tools it had (toolsFrom), tools then left out.
type compactRequestWire struct {
	Provider     string           `json:"provider"`
	Model        string           `json:"model"`
	Purpose      llm.Purpose      `json:"purpose,omitempty"`
	Base         compactBase      `json:"base"`
	MessageCount int              `json:"messageCount"`
	NewMessages  []llm.Message    `json:"newMessages"`
	Tools        []llm.ToolSchema `json:"tools,omitempty"`
}

// compactBase is historyBase with toolsFrom.
type compactBase struct {
	History   bool             `json:"history"`
	Messages  int              `json:"messages"`
	Replaced  []IndexedMessage `json:"replaced,omitempty"`
	ToolsFrom *RoundRef        `json:"toolsFrom,omitempty"`
}

// RoundRef names a provider request by execution and round; an empty ExecutionID is
// that of the line holding the reference.
type RoundRef struct {
	ExecutionID string `json:"executionId,omitempty"`
	Round       int    `json:"round"`
}

// toolsMark is the last tool list a compact provider_request wrote whole or named, per
// conversation.
type toolsMark struct {
	ref   RoundRef
	tools []llm.ToolSchema
}

// compactRequest writes a request against the history the logger follows: its leading
// messages that are the history's are counted, not written, and its tools are named by
// the last request of the conversation that had the same ones. A request that does not
// start with the history (a subagent's, a summary's) keeps the agent's delta form.
func (l *FileLogger) compactRequest(ev agent.Event) any {
	req := ev.Request
	h := l.hist.msgs
	if req.Omitted() > 0 || len(h) == 0 {
		return ev
	}
	// The messages of the agent's previous request that were the history's still are
	// (the history is append-only, the agent's requests extend each other): only those
	// after them are compared, so a round costs what it adds, not the history.
	from := 0
	if b := req.Base; b != nil {
		if last, ok := l.verified[ev.ConversationID]; ok && last.ref == (RoundRef{b.ExecutionID, b.Round}) {
			from = min(b.Messages, last.k, len(h), len(req.Messages))
		}
	}
	k := from
	for k < len(h) && k < len(req.Messages) && sameHistoryMessage(h[k], req.Messages[k]) {
		k++
	}
	if k == 0 {
		return ev
	}
	base := compactBase{History: true, Messages: k}
	for i := from; i < k; i++ {
		if !sameMessage(h[i], req.Messages[i]) {
			base.Replaced = append(base.Replaced, IndexedMessage{Index: i, Message: req.Messages[i]})
		}
	}
	if l.verified == nil {
		l.verified = map[string]verifiedPrefix{}
	}
	if from > 0 {
		var kept []IndexedMessage
		for _, r := range l.verified[ev.ConversationID].replaced {
			if r.Index < from {
				kept = append(kept, r)
			}
		}
		base.Replaced = append(kept, base.Replaced...)
	}
	l.verified[ev.ConversationID] = verifiedPrefix{ref: RoundRef{ev.ExecutionID, ev.Round}, k: k, replaced: base.Replaced}
	w := compactRequestWire{Provider: req.Provider, Model: req.Model, Purpose: req.Purpose, Base: base,
		MessageCount: len(req.Messages), NewMessages: req.Messages[k:], Tools: req.Tools}
	if w.NewMessages == nil {
		w.NewMessages = []llm.Message{}
	}
	if l.tools == nil {
		l.tools = map[string]toolsMark{}
	}
	ref := RoundRef{ExecutionID: ev.ExecutionID, Round: ev.Round}
	if prev, ok := l.tools[ev.ConversationID]; ok && sameTools(prev.tools, req.Tools) {
		from := prev.ref
		if from.ExecutionID == ev.ExecutionID {
			from.ExecutionID = "" // the line's own execution
		}
		w.Base.ToolsFrom, w.Tools = &from, nil
	} else {
		l.tools[ev.ConversationID] = toolsMark{ref: ref, tools: req.Tools}
	}
	return compactRequestEvent{ConversationID: l.otherConversation(ev), ExecutionID: ev.ExecutionID, Round: ev.Round, Request: w}
}

// verifiedPrefix is, for the last compact request of a conversation, how many of its
// leading messages were the history's (k) and which of those differed (replaced).
type verifiedPrefix struct {
	ref      RoundRef
	k        int
	replaced []IndexedMessage
}

// sameTools reports whether two tool lists are alike (the agent hands the same slice on
// round after round).
func sameTools(a, b []llm.ToolSchema) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return reflect.DeepEqual(a, b)
}
