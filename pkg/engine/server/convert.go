package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// modes pairs each permission mode's name with its proto value; both conversions read it.
var modes = [...]struct {
	name  string
	proto robotav1.PermissionMode
}{
	{"default", robotav1.PermissionMode_PERMISSION_MODE_DEFAULT},
	{"acceptEdits", robotav1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS},
	{"plan", robotav1.PermissionMode_PERMISSION_MODE_PLAN},
	{"bypassPermissions", robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS},
	{"dontAsk", robotav1.PermissionMode_PERMISSION_MODE_DONT_ASK},
}

// modeToProto is UNSPECIFIED for an unknown mode.
func modeToProto(m string) robotav1.PermissionMode {
	for _, x := range modes {
		if x.name == m {
			return x.proto
		}
	}
	return robotav1.PermissionMode_PERMISSION_MODE_UNSPECIFIED
}

func modeFromProto(m robotav1.PermissionMode) (string, error) {
	if m == robotav1.PermissionMode_PERMISSION_MODE_UNSPECIFIED {
		return "", nil
	}
	for _, x := range modes {
		if x.proto == m {
			return x.name, nil
		}
	}
	return "", invalidArg("permission_mode", "unknown value %d", m)
}

func approvalFromProto(a robotav1.PermissionAnswer) (interactive.Approval, error) {
	switch a {
	case robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW:
		return interactive.ApprovalAllow, nil
	case robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW_FOR_SESSION:
		return interactive.ApprovalAllowSession, nil
	case robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY:
		return interactive.ApprovalDeny, nil
	}
	return "", invalidArg("answer", "want ALLOW, ALLOW_FOR_SESSION or DENY, got %v", a)
}

func approvalToProto(a interactive.Approval) robotav1.PermissionAnswer {
	switch a {
	case interactive.ApprovalAllow:
		return robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW
	case interactive.ApprovalAllowSession:
		return robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW_FOR_SESSION
	}
	return robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY
}

func ts(t interface{ IsZero() bool }) bool { return !t.IsZero() }

func infoToProto(in manager.Info) *robotav1.SessionInfo {
	out := &robotav1.SessionInfo{SessionId: in.ID, Cwd: in.Cwd, Provider: in.Provider, Model: in.Model,
		PermissionMode: modeToProto(in.PermissionMode), Title: in.Title, Name: in.Name, MessageCount: int32(in.MessageCount),
		Running: in.Running, Live: in.Live, Tools: in.Tools, ApiKeySource: in.APIKeySource,
		CommandSandbox: in.Sandbox}
	if ts(in.CreatedAt) {
		out.CreatedAt = timestamppb.New(in.CreatedAt)
	}
	if ts(in.UpdatedAt) {
		out.UpdatedAt = timestamppb.New(in.UpdatedAt)
	}
	if in.Context != nil {
		out.ContextState = contextToProto(*in.Context)
	}
	return out
}

func contextToProto(st contextwin.WindowState) *robotav1.ContextState {
	return fillContext(&robotav1.ContextState{}, st)
}

func fillContext(out *robotav1.ContextState, st contextwin.WindowState) *robotav1.ContextState {
	out.MaxTokens, out.UsedTokens = int64(st.MaxTokens), int64(st.UsedTokens)
	out.UsedPercentage, out.RemainingPercentage = st.UsedPercentage, st.RemainingPercentage
	return out
}

func usageToProto(u llm.Usage) *robotav1.Usage {
	return fillUsage(&robotav1.Usage{}, u)
}

func fillUsage(out *robotav1.Usage, u llm.Usage) *robotav1.Usage {
	out.InputTokens, out.OutputTokens = int64(u.InputTokens), int64(u.OutputTokens)
	out.CacheCreationInputTokens, out.CacheReadInputTokens = int64(u.CacheCreationInputTokens), int64(u.CacheReadInputTokens)
	return out
}

// toolToProto maps InteractiveSession's ToolState (the spec's IToolState).
func toolToProto(t *interactive.ToolState) *robotav1.ToolState {
	out := &robotav1.ToolState{ToolCallId: t.ToolUseID, ToolName: t.ToolName, FirstArg: t.FirstArg,
		InputJson: string(t.Args), IsRunning: t.IsRunning, Output: t.ToolResultData, DiffFile: t.DiffFile}
	if !t.IsRunning {
		switch {
		case t.Result == "success":
			out.Outcome = robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS
		case t.Result == "denied":
			out.Outcome = robotav1.ToolOutcome_TOOL_OUTCOME_DENIED
		case t.ErrorCode == "interrupted":
			out.Outcome = robotav1.ToolOutcome_TOOL_OUTCOME_INTERRUPTED
		case t.ErrorCode == "unknown_tool":
			out.Outcome = robotav1.ToolOutcome_TOOL_OUTCOME_UNKNOWN_TOOL
		case t.Result != "":
			out.Outcome = robotav1.ToolOutcome_TOOL_OUTCOME_ERROR
		}
		if out.Outcome != robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS {
			out.Error = t.Reason
		}
	}
	// Unified diff lines: "@@ ... @@", " " context, "-" removed, "+" added; start_line
	// numbers the first line after the hunk header.
	for _, d := range t.DiffLines {
		sign := "+"
		switch d.Kind {
		case "hunk":
			out.DiffLines = append(out.DiffLines, d.Text)
			continue
		case "remove":
			sign = "-"
		case "context":
			sign = " "
		}
		if out.StartLine == 0 {
			out.StartLine = int32(d.Line)
		}
		out.DiffLines = append(out.DiffLines, sign+d.Text)
	}
	if t.Message != "" || t.ErrorCode != "" {
		m := map[string]any{}
		if t.Message != "" {
			m["message"] = t.Message
		}
		if t.ErrorCode != "" {
			m["errorCode"] = t.ErrorCode
		}
		out.Metadata, _ = structpb.NewStruct(m)
	}
	return out
}

func resultToProto(r *interactive.Result, ctx *contextwin.WindowState) *robotav1.ExecutionResult {
	var usage robotav1.Usage
	var state robotav1.ContextState
	return fillResult(&robotav1.ExecutionResult{}, &usage, &state, r, ctx)
}

// fillResult maps r into out, with usage and state as out's Usage and ContextState (the
// caller allocates them, possibly together).
func fillResult(out *robotav1.ExecutionResult, usage *robotav1.Usage, state *robotav1.ContextState, r *interactive.Result, ctx *contextwin.WindowState) *robotav1.ExecutionResult {
	out.Response, out.Usage, out.Rounds = r.Response, fillUsage(usage, r.Usage), int32(r.Rounds)
	out.StopReason, out.Reason = string(r.StopReason), r.Reason
	if len(out.Response) > MaxEventTextBytes {
		out.Response, out.ResponseTruncated = cutUTF8(out.Response, MaxEventTextBytes), true
	}
	if ctx != nil {
		out.ContextState = fillContext(state, *ctx)
	}
	if len(r.Tools) > 0 {
		out.Tools = make([]*robotav1.ToolState, len(r.Tools))
		for i := range r.Tools {
			out.Tools[i] = toolToProto(&r.Tools[i])
		}
	}
	return out
}

// The events every prompt sends (its text and its end) are each made in one
// allocation, with their timestamp and payload, where they took four and seven: a
// quick turn's conversion is a good part of what Submit adds to it.
type textDeltaMessage struct {
	ev    robotav1.SessionEvent
	ts    timestamppb.Timestamp
	oneof robotav1.SessionEvent_TextDelta
	delta robotav1.TextDeltaEvent
}

type completeMessage struct {
	ev     robotav1.SessionEvent
	ts     timestamppb.Timestamp
	oneof  robotav1.SessionEvent_Complete
	done   robotav1.CompleteEvent
	result robotav1.ExecutionResult
	usage  robotav1.Usage
	state  robotav1.ContextState
}

func newEventHeader(ev *robotav1.SessionEvent, ts *timestamppb.Timestamp, sessionID string, e interactive.Event) {
	ts.Seconds, ts.Nanos = e.Time.Unix(), int32(e.Time.Nanosecond())
	ev.SessionId, ev.Sequence, ev.Timestamp, ev.PromptId = sessionID, e.Seq, ts, e.PromptID
}

func textDeltaToProto(sessionID string, e interactive.Event) *robotav1.SessionEvent {
	m := &textDeltaMessage{}
	newEventHeader(&m.ev, &m.ts, sessionID, e)
	m.delta.Text = e.Text
	m.oneof.TextDelta = &m.delta
	m.ev.Event = &m.oneof
	return &m.ev
}

func completeToProto(sessionID string, e interactive.Event, ctxState func() contextwin.WindowState) *robotav1.SessionEvent {
	m := &completeMessage{}
	newEventHeader(&m.ev, &m.ts, sessionID, e)
	st := endContext(e.Result, ctxState)
	m.done.Result = fillResult(&m.result, &m.usage, &m.state, e.Result, &st)
	m.oneof.Complete = &m.done
	m.ev.Event = &m.oneof
	return &m.ev
}

// endContext is the context state of a prompt's end: the one its result holds (taken
// when the prompt ended, so a replayed end event shows it too), else the session's now
// (a result without one: a queued prompt removed before it ran).
func endContext(r *interactive.Result, ctxState func() contextwin.WindowState) contextwin.WindowState {
	if r != nil && r.ContextState.MaxTokens > 0 {
		return r.ContextState
	}
	return ctxState()
}

// eventToProto maps one InteractiveSession event. ctxState is the session's context
// usage, added to the result of a prompt's end event.
func eventToProto(sessionID string, e interactive.Event, ctxState func() contextwin.WindowState) *robotav1.SessionEvent {
	switch {
	case e.Type == interactive.EventTextDelta:
		return textDeltaToProto(sessionID, e)
	case e.Type == interactive.EventComplete && e.Result != nil:
		return completeToProto(sessionID, e, ctxState)
	}
	out := &robotav1.SessionEvent{SessionId: sessionID, Sequence: e.Seq, Timestamp: timestamppb.New(e.Time), PromptId: e.PromptID}
	if !complete(e) {
		return nil
	}
	switch e.Type {
	case interactive.EventTextDelta:
		out.Event = &robotav1.SessionEvent_TextDelta{TextDelta: &robotav1.TextDeltaEvent{Text: e.Text}}
	case interactive.EventThinkingDelta:
		out.Event = &robotav1.SessionEvent_Thinking{Thinking: &robotav1.ThinkingEvent{IsThinking: true, Text: e.Text}}
	case interactive.EventThinkingEnd:
		out.Event = &robotav1.SessionEvent_Thinking{Thinking: &robotav1.ThinkingEvent{IsThinking: false}}
	case interactive.EventToolStart:
		out.Event = &robotav1.SessionEvent_ToolStart{ToolStart: &robotav1.ToolStartEvent{Tool: toolToProto(e.Tool)}}
	case interactive.EventToolEnd:
		out.Event = &robotav1.SessionEvent_ToolEnd{ToolEnd: &robotav1.ToolEndEvent{Tool: toolToProto(e.Tool)}}
	case interactive.EventPermissionRequest:
		p := e.Permission
		out.Event = &robotav1.SessionEvent_PermissionRequest{PermissionRequest: &robotav1.PermissionRequestEvent{
			RequestId: p.RequestID, ToolName: p.ToolName, InputJson: string(p.Input), Reason: p.Reason,
			ToolCallId: p.ToolUseID, SessionRule: p.SessionRule, Deadline: timestamppb.New(p.Deadline), TaskId: p.TaskID}}
	case interactive.EventPermissionResolved:
		r := e.Resolution
		out.Event = &robotav1.SessionEvent_PermissionResolved{PermissionResolved: &robotav1.PermissionResolvedEvent{
			RequestId: r.RequestID, Outcome: outcomeToProto(r.Outcome), Answer: approvalToProto(r.Approval)}}
	case interactive.EventContextUpdate:
		out.Event = &robotav1.SessionEvent_ContextUpdate{ContextUpdate: &robotav1.ContextUpdateEvent{State: contextToProto(*e.Context)}}
	case interactive.EventCompaction:
		out.Event = &robotav1.SessionEvent_Compact{Compact: compactToProto(e.Compaction)}
	case interactive.EventComplete, interactive.EventError, interactive.EventInterrupted:
		st := endContext(e.Result, ctxState)
		res := resultToProto(e.Result, &st)
		switch e.Type {
		case interactive.EventComplete:
			out.Event = &robotav1.SessionEvent_Complete{Complete: &robotav1.CompleteEvent{Result: res}}
		case interactive.EventInterrupted:
			res.Interrupted = true
			out.Event = &robotav1.SessionEvent_Interrupted{Interrupted: &robotav1.InterruptedEvent{Result: res}}
		default:
			out.Event = &robotav1.SessionEvent_Error{Error: errorToProto(e.Result, res)}
		}
	case interactive.EventBackgroundTask:
		out.Event = &robotav1.SessionEvent_BackgroundTaskEvent{BackgroundTaskEvent: taskEventToProto(e.Task)}
	case interactive.EventBackgroundJobGroup:
		out.Event = &robotav1.SessionEvent_BackgroundJobGroupEvent{BackgroundJobGroupEvent: groupEventToProto(e.Group)}
	case interactive.EventSubagentMessage:
		// The session's own messages are not sent (GetHistory has them); a subagent's
		// are nowhere else a client can read them as they come.
		m, err := messageToProto(*e.Message)
		if err != nil {
			return nil
		}
		out.Event = &robotav1.SessionEvent_SubagentMessage{SubagentMessage: &robotav1.SubagentMessageEvent{
			ParentToolUseId: e.ParentToolUseID, Message: m}}
	default:
		return nil // an event clients are not sent
	}
	return out
}

// complete reports whether e carries the payload its type needs (never sent otherwise,
// rather than failing the stream over one malformed event).
func complete(e interactive.Event) bool {
	switch e.Type {
	case interactive.EventToolStart, interactive.EventToolEnd:
		return e.Tool != nil
	case interactive.EventPermissionRequest:
		return e.Permission != nil
	case interactive.EventBackgroundTask:
		return e.Task != nil
	case interactive.EventBackgroundJobGroup:
		return e.Group != nil
	case interactive.EventPermissionResolved:
		return e.Resolution != nil
	case interactive.EventContextUpdate:
		return e.Context != nil
	case interactive.EventCompaction:
		return e.Compaction != nil
	case interactive.EventComplete, interactive.EventError, interactive.EventInterrupted:
		return e.Result != nil
	case interactive.EventSubagentMessage:
		return e.Message != nil
	}
	return true
}

func outcomeToProto(o string) robotav1.PermissionOutcome {
	switch o {
	case "answered":
		return robotav1.PermissionOutcome_PERMISSION_OUTCOME_ANSWERED
	case "timeout":
		return robotav1.PermissionOutcome_PERMISSION_OUTCOME_TIMEOUT
	case "aborted":
		return robotav1.PermissionOutcome_PERMISSION_OUTCOME_ABORTED
	}
	return robotav1.PermissionOutcome_PERMISSION_OUTCOME_UNSPECIFIED
}

func errorToProto(r *interactive.Result, res *robotav1.ExecutionResult) *robotav1.ErrorEvent {
	out := &robotav1.ErrorEvent{Message: r.Error, Code: "error", Category: "session", Result: res}
	var le *llm.Error
	if errors.As(r.Err, &le) {
		out.Code, out.Category, out.Recoverable = string(le.Code), string(le.Category), le.Recoverable
	}
	return out
}

func compactToProto(c *interactive.CompactEvent) *robotav1.CompactEvent {
	trig := robotav1.CompactTrigger_COMPACT_TRIGGER_AUTO
	if c.Trigger == "manual" {
		trig = robotav1.CompactTrigger_COMPACT_TRIGGER_MANUAL
	}
	return &robotav1.CompactEvent{Trigger: trig, Before: contextToProto(c.Before), After: contextToProto(c.After)}
}

// historyToProto maps one timeline entry.
func historyToProto(e interactive.HistoryEntry) (*robotav1.HistoryEntry, error) {
	out := &robotav1.HistoryEntry{Id: e.ID, Type: e.Type}
	if !e.Timestamp.IsZero() {
		out.Timestamp = timestamppb.New(e.Timestamp)
	}
	if e.Category == interactive.CategoryChat {
		m, err := interactive.ChatEntryToMessage(e)
		if err != nil {
			return nil, err
		}
		out.Category = robotav1.HistoryEntryCategory_HISTORY_ENTRY_CATEGORY_CHAT
		msg, err := messageToProto(m)
		if err != nil {
			return nil, err
		}
		out.Data = &robotav1.HistoryEntry_Message{Message: msg}
		return out, nil
	}
	out.Category = robotav1.HistoryEntryCategory_HISTORY_ENTRY_CATEGORY_EVENT
	st, err := jsonStruct(e.Data)
	if err != nil {
		return nil, fmt.Errorf("history entry %s: %w", e.ID, err)
	}
	out.Data = &robotav1.HistoryEntry_EventData{EventData: st}
	return out, nil
}

// jsonStruct decodes a JSON object (any other value is wrapped as {"value": v}).
func jsonStruct(b []byte) (*structpb.Struct, error) {
	if len(b) == 0 {
		return &structpb.Struct{}, nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{"value": v}
	}
	return structpb.NewStruct(m)
}

// roleToProto is UNSPECIFIED for an unknown role.
func roleToProto(r llm.Role) robotav1.Role {
	switch r {
	case llm.RoleUser:
		return robotav1.Role_ROLE_USER
	case llm.RoleAssistant:
		return robotav1.Role_ROLE_ASSISTANT
	case llm.RoleSystem:
		return robotav1.Role_ROLE_SYSTEM
	case llm.RoleTool:
		return robotav1.Role_ROLE_TOOL
	}
	return robotav1.Role_ROLE_UNSPECIFIED
}

func messageToProto(m llm.Message) (*robotav1.Message, error) {
	out := &robotav1.Message{Id: m.ID, Role: roleToProto(m.Role), State: robotav1.MessageState_MESSAGE_STATE_COMPLETE}
	if m.State == llm.StateInterrupted {
		out.State = robotav1.MessageState_MESSAGE_STATE_INTERRUPTED
	}
	for _, p := range m.Content {
		switch p.Type {
		case llm.PartText:
			out.Parts = append(out.Parts, &robotav1.ContentPart{Part: &robotav1.ContentPart_Text{Text: &robotav1.TextPart{Text: p.Text}}})
		case llm.PartThinking:
			out.Parts = append(out.Parts, &robotav1.ContentPart{Part: &robotav1.ContentPart_Thinking{
				Thinking: &robotav1.ThinkingPart{Text: p.Text, Signature: p.Signature}}})
		case llm.PartToolUse:
			if c := p.ToolCall; c != nil {
				out.Parts = append(out.Parts, &robotav1.ContentPart{Part: &robotav1.ContentPart_ToolUse{
					ToolUse: &robotav1.ToolUsePart{Id: c.ID, Name: c.Name, InputJson: string(c.Input)}}})
				out.ToolCalls = append(out.ToolCalls, &robotav1.ToolCall{Id: c.ID, Name: c.Name, ArgumentsJson: string(c.Input)})
			}
		case llm.PartToolResult:
			if r := p.ToolResult; r != nil {
				out.Parts = append(out.Parts, &robotav1.ContentPart{Part: &robotav1.ContentPart_ToolResult{
					ToolResult: &robotav1.ToolResultPart{ToolUseId: r.ToolCallID, Content: r.Content, IsError: r.IsError}}})
				if out.ToolCallId == "" {
					out.ToolCallId, out.Name = r.ToolCallID, r.ToolName
				}
			}
		}
	}
	if m.Usage != nil {
		out.Usage = usageToProto(*m.Usage)
	}
	if len(m.Metadata) > 0 {
		b, err := json.Marshal(m.Metadata)
		if err != nil {
			return nil, fmt.Errorf("message %s metadata: %w", m.ID, err)
		}
		if out.Metadata, err = jsonStruct(b); err != nil {
			return nil, fmt.Errorf("message %s metadata: %w", m.ID, err)
		}
	}
	if !m.CreatedAt.IsZero() {
		out.Timestamp = timestamppb.New(m.CreatedAt)
	}
	return out, nil
}

// MaxEventTextBytes bounds the text of one message (a delta, a result's response), so
// that every message stays under gRPC's default 4 MiB receive limit whatever the client.
const MaxEventTextBytes = 1 << 20

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// splitText splits a text or thinking delta longer than MaxEventTextBytes into
// consecutive events with the same sequence number.
func splitText(e *robotav1.SessionEvent) []*robotav1.SessionEvent {
	var text string
	var rebuild func(string) *robotav1.SessionEvent
	switch ev := e.GetEvent().(type) {
	case *robotav1.SessionEvent_TextDelta:
		text = ev.TextDelta.GetText()
		rebuild = func(t string) *robotav1.SessionEvent {
			c := proto.CloneOf(e)
			c.Event = &robotav1.SessionEvent_TextDelta{TextDelta: &robotav1.TextDeltaEvent{Text: t}}
			return c
		}
	case *robotav1.SessionEvent_Thinking:
		text = ev.Thinking.GetText()
		rebuild = func(t string) *robotav1.SessionEvent {
			c := proto.CloneOf(e)
			c.Event = &robotav1.SessionEvent_Thinking{Thinking: &robotav1.ThinkingEvent{IsThinking: ev.Thinking.GetIsThinking(), Text: t}}
			return c
		}
	}
	if len(text) <= MaxEventTextBytes {
		return []*robotav1.SessionEvent{e}
	}
	var out []*robotav1.SessionEvent
	for len(text) > 0 {
		part := cutUTF8(text, MaxEventTextBytes)
		if part == "" { // cannot happen with valid UTF-8; never loop forever
			part = text[:min(len(text), MaxEventTextBytes)]
		}
		out = append(out, rebuild(part))
		text = text[len(part):]
	}
	return out
}

// longText reports whether e's text or thinking delta is over MaxEventTextBytes (and
// needs splitText).
func longText(e *robotav1.SessionEvent) bool {
	return len(e.GetTextDelta().GetText()) > MaxEventTextBytes || len(e.GetThinking().GetText()) > MaxEventTextBytes
}

// isEnd reports whether e ends its prompt.
func isEnd(e interactive.Event) bool {
	switch e.Type {
	case interactive.EventComplete, interactive.EventError, interactive.EventInterrupted:
		return true
	}
	return false
}
