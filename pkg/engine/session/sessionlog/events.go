package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// EventType names a log event. It is an alias of string so the constants below can be
// passed wherever a plain event name is expected (e.g. the session's Logger port).
type EventType = string

// The spec's Session Logging events. The replay-boundary events (provider_* through
// history_mutation) are agent.Event values logged as data with event = agent.Event.Type;
// replay and validation read their JSON shape (executionId, round, tool.toolCallId,
// rawPayload.payloadKind, mutation, message).
const (
	EventSessionInit                EventType = "session_init"
	EventServerTool                 EventType = "server_tool"
	EventPreRun                     EventType = "pre_run"
	EventProviderRequest            EventType = "provider_request"
	EventProviderNativeRawPayload   EventType = "provider_native_raw_payload"
	EventProviderStreamRawDelta     EventType = "provider_stream_raw_delta"
	EventProviderResponseRaw        EventType = "provider_response_raw"
	EventProviderResponseNormalized EventType = "provider_response_normalized"
	EventToolBatchStarted           EventType = "tool_batch_started"
	EventToolExecutionRequest       EventType = "tool_execution_request"
	EventToolExecutionResult        EventType = "tool_execution_result"
	EventToolMessageCommitted       EventType = "tool_message_committed"
	EventHistoryMutation            EventType = "history_mutation"
	EventTextDelta                  EventType = "text_delta"
	EventAssistant                  EventType = "assistant"
	EventSessionShutdown            EventType = "session_shutdown"
)

// Events the spec names outside the Session Logging list, and the agent's extra replay
// event.
const (
	// EventContextCompact records a compaction: trigger and context state before/after.
	EventContextCompact EventType = "context_compact"
	// EventContextState records the context window's use after a model call (a
	// subagent's transcript has one per call).
	EventContextState EventType = "context_state"
	// EventError records a failed run (Session.run error recovery).
	EventError EventType = "error"
	// EventAssistantMessageCommitted is the agent's commit of an assistant message.
	EventAssistantMessageCommitted EventType = "assistant_message_committed"
	// Auxiliary events replay collects into ReplayRecord.
	EventBackgroundTask     EventType = "background_task_event"
	EventBackgroundJobGroup EventType = "background_job_group_event"
	EventMemory             EventType = "memory_event"
	// EventTimelineEntry records a timeline event entry (tool start/end, tool-summary,
	// usage-summary, compaction, skill-invocation ...) and where it stands: after how
	// many messages of the conversation (TimelineEntryData). Replay rebuilds the timeline
	// from these and the history mutations.
	EventTimelineEntry EventType = "timeline_entry"
)

// TimelineEntryData is an EventTimelineEntry's data: the entry (the session's history
// entry JSON: id, timestamp, category, type, data) and its anchor.
type TimelineEntryData struct {
	After int             `json:"after"`
	Entry json.RawMessage `json:"entry"`
}

// SpecEvents lists the spec's Session Logging events in spec order.
var SpecEvents = []EventType{
	EventSessionInit, EventServerTool, EventPreRun, EventProviderRequest,
	EventProviderNativeRawPayload, EventProviderStreamRawDelta, EventProviderResponseRaw,
	EventProviderResponseNormalized, EventToolBatchStarted, EventToolExecutionRequest,
	EventToolExecutionResult, EventToolMessageCommitted, EventHistoryMutation, EventTextDelta,
	EventAssistant, EventSessionShutdown,
}

// validEvent accepts snake_case names: they are written unescaped into every line.
func validEvent(e EventType) bool {
	if e == "" || len(e) > 64 {
		return false
	}
	for i := 0; i < len(e); i++ {
		c := e[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// SessionInitData is the data of session_init.
type SessionInitData struct {
	SystemPrompt       string           `json:"systemPrompt"`
	SystemPromptLength int              `json:"systemPromptLength"`
	Provider           string           `json:"provider"`
	Model              string           `json:"model"`
	Cwd                string           `json:"cwd"`
	ToolSchemas        []llm.ToolSchema `json:"toolSchemas"`
	// LogLevel is set by a FileLogger writing at LevelCompact: the lines after it (up to
	// the next session_init) are that level's (see Level).
	LogLevel Level `json:"logLevel,omitempty"`
}

// NewSessionInit fills SystemPromptLength (in characters) from systemPrompt.
func NewSessionInit(systemPrompt, provider, model, cwd string, tools []llm.ToolSchema) SessionInitData {
	if tools == nil {
		tools = []llm.ToolSchema{}
	}
	return SessionInitData{SystemPrompt: systemPrompt, SystemPromptLength: utf8.RuneCountInString(systemPrompt),
		Provider: provider, Model: model, Cwd: cwd, ToolSchemas: tools}
}

// ServerToolData is the data of server_tool (a provider-hosted tool such as web search),
// logged while its provider call streams. Query is the input's "query" (for a tool
// without one, the input as JSON text); ToolUseID is the provider's ID of the call.
type ServerToolData struct {
	Name        string          `json:"name"`
	Query       string          `json:"query,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
	ToolUseID   string          `json:"toolUseId,omitempty"`
	ExecutionID string          `json:"executionId,omitempty"`
	Round       int             `json:"round,omitempty"`
}

// NewServerToolData describes use, reported during round of the run execID. Query is the
// input's "query" string; for a tool without one (web_fetch) it is the input as compact
// JSON text. An empty input is {}; an input that is not JSON (a cut stream) is kept as a
// JSON string.
func NewServerToolData(use llm.ServerToolUse, execID string, round int) ServerToolData {
	input := use.Input
	var v any
	if len(input) == 0 {
		input, v = json.RawMessage(`{}`), map[string]any{}
	} else if unmarshal(input, &v) != nil {
		v = string(input)
		input, _ = marshal(v)
	}
	query, ok := v.(string)
	if m, isObject := v.(map[string]any); isObject {
		query, ok = m["query"].(string)
	}
	if !ok {
		compact := jsontext.Value(bytes.Clone(input))
		_ = compact.Compact() // input is valid JSON here
		query = string(compact)
	}
	return ServerToolData{Name: use.Name, Query: query, Input: input, ToolUseID: use.ID,
		ExecutionID: execID, Round: round}
}

// NativeWebState is the provider-native web capability and enabled state.
type NativeWebState struct {
	WebSearch llm.NativeToolSupport `json:"webSearch"`
	WebFetch  llm.NativeToolSupport `json:"webFetch"`
}

// PreRunData is the data of pre_run: the enriched input and the length of the history
// before the call. The history itself is the one the log's history_mutation events
// rebuild at this point (its first HistoryLength messages): it is not written again.
type PreRunData struct {
	Provider       string         `json:"provider"`
	NativeWebTools NativeWebState `json:"nativeWebTools"`
	Input          string         `json:"input"`
	HistoryLength  int            `json:"historyLength"`
}

// TextDeltaData is the data of text_delta. The logger coalesces a call's pieces: a line
// carries Pieces consecutive pieces joined in Delta (Pieces is left out for one piece, the
// shape every line had before coalescing).
type TextDeltaData struct {
	Delta       string `json:"delta"`
	ExecutionID string `json:"executionId,omitempty"`
	Pieces      int    `json:"pieces,omitempty"`
}

// MessageStructure is one entry of assistant.historyStructure.
type MessageStructure struct {
	Role          llm.Role       `json:"role"`
	ContentLength int            `json:"contentLength"`
	HasToolCalls  bool           `json:"hasToolCalls"`
	ToolCallNames []string       `json:"toolCallNames"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// AssistantData is the data of assistant: the answer, the length of the post-run history
// and the shape of its messages from HistoryFrom on (those the run added; the earlier ones
// were described by earlier assistant events). The messages themselves are in the log's
// history_mutation events and are not written again.
type AssistantData struct {
	Content       string `json:"content"`
	HistoryLength int    `json:"historyLength"`
	HistoryFrom   int    `json:"historyFrom"`
	// HistoryStructure describes history[HistoryFrom:HistoryLength], in order.
	HistoryStructure []MessageStructure `json:"historyStructure"`
}

// NewAssistantData builds assistant data for history, describing history[from:] (from is
// clamped to [0, len(history)]); its cost is that of the described messages only.
func NewAssistantData(content string, history []llm.Message, from int) AssistantData {
	from = min(max(from, 0), len(history))
	added := history[from:]
	structure := make([]MessageStructure, len(added))
	for i, m := range added {
		names := []string{}
		for _, c := range m.ToolCalls() {
			names = append(names, c.Name)
		}
		length := utf8.RuneCountInString(m.Text())
		if r, ok := m.ToolResult(); ok {
			length = utf8.RuneCountInString(r.Content)
		}
		structure[i] = MessageStructure{Role: m.Role, ContentLength: length, HasToolCalls: len(names) > 0,
			ToolCallNames: names, Metadata: m.Metadata}
	}
	return AssistantData{Content: content, HistoryLength: len(history), HistoryFrom: from, HistoryStructure: structure}
}

// SessionShutdownData is the data of session_shutdown (reason as Claude Code names it:
// clear, logout, prompt_input_exit, other, …).
type SessionShutdownData struct {
	Reason string `json:"reason"`
}

// ContextCompactData is the data of context_compact. Trigger is "auto" or "manual".
type ContextCompactData struct {
	Trigger string                 `json:"trigger"`
	Before  contextwin.WindowState `json:"before"`
	After   contextwin.WindowState `json:"after"`
}

// ErrorData is the data of error.
type ErrorData struct {
	Error string        `json:"error"`
	Code  llm.ErrorCode `json:"code,omitempty"`
	// Phase says where it happened (run, compact, shutdown, …).
	Phase string `json:"phase,omitempty"`
}

// NewErrorData describes err, with its llm error code when it has one.
func NewErrorData(phase string, err error) ErrorData {
	if err == nil {
		err = errors.New("unknown error")
	}
	return ErrorData{Error: err.Error(), Code: llm.CodeOf(err), Phase: phase}
}

// History mutation kinds. The agent appends ("append", with the message's index); a
// session that replaces its history (clear, compaction, a resumed or forked conversation)
// logs "reset": with the complete new history, or, when the new history continues the one
// the log already holds (a session resumed into its own log), with only what differs (see
// HistoryMutationData.Continues).
const (
	MutationAppend = "append"
	MutationReset  = "reset"
)

// MutationData matches agent.MutationData.
type MutationData struct {
	Kind  string `json:"kind"`
	Index int    `json:"index"`
}

// HistoryMutationData is the data of a history_mutation logged by the session itself
// (agent.Event values have the same shape for appends).
type HistoryMutationData struct {
	Mutation MutationData `json:"mutation"`
	Message  *llm.Message `json:"message,omitempty"`
	// Messages is a reset's new history; on a reset that Continues the log's history, the
	// messages after the continued ones.
	Messages []llm.Message `json:"messages,omitempty"`
	// Continues, on a reset, says the new history starts with the history the log's lines
	// rebuild up to this one, which has Continues.Messages messages, the last with ID
	// Continues.LastID, except the Replaced ones; Messages follow.
	Continues *HistoryContinuation `json:"continues,omitempty"`
	Replaced  []IndexedMessage     `json:"replaced,omitempty"`
	// Length and LastID describe the history after a reset (written by the FileLogger), so
	// a logger that reopens the log learns them from this line alone.
	Length   *int   `json:"length,omitempty"`
	LastID   string `json:"lastId,omitempty"`
	LastHash string `json:"lastHash,omitempty"` // SHA-256 of the last message's JSON on its line
	// Journal, on a reset that Continues, says the continued history is the session
	// journal's (a log written at LevelCompact does not hold its messages): replay takes
	// them from ReplayOptions.Journal.
	Journal bool `json:"journal,omitempty"`

	// resumed marks data built by ContinueHistory; changed are its indices that differ
	// from the resumed conversation.
	resumed bool
	changed []int
}

// HistoryContinuation is HistoryMutationData.Continues: the length of the history the
// line continues and the ID of its last message.
type HistoryContinuation struct {
	Messages int    `json:"messages"`
	LastID   string `json:"lastId"`
}

// IndexedMessage is a message at an index of a list.
type IndexedMessage struct {
	Index   int         `json:"index"`
	Message llm.Message `json:"message"`
}

// ResetHistory is the history_mutation data that replaces the whole history.
func ResetHistory(messages []llm.Message) HistoryMutationData {
	if messages == nil {
		messages = []llm.Message{}
	}
	return HistoryMutationData{Mutation: MutationData{Kind: MutationReset}, Messages: messages}
}

// ContinueHistory is the history_mutation data of a session resumed from a saved
// conversation: messages is its new history, the saved conversation except at the
// indices changed (a replaced system prompt). A FileLogger whose log already holds that
// conversation (the session resumed into its own log: same length, same last message ID)
// writes only what differs; any other logger, or a log that does not hold it (a fork's
// new log), records a whole reset, which is also this value's JSON form.
func ContinueHistory(messages []llm.Message, changed []int) HistoryMutationData {
	d := ResetHistory(messages)
	d.resumed, d.changed = true, changed
	return d
}

// NewAppendMutation is the history_mutation data of one message appended at index.
func NewAppendMutation(index int, message llm.Message) HistoryMutationData {
	return HistoryMutationData{Mutation: MutationData{Kind: MutationAppend, Index: index}, Message: &message}
}
