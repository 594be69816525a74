package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// modes are the permission modes by name. The tables of this package are slices and
// switches, not maps, so no package init builds them (issue 29).
var modes = []struct {
	name string
	mode robotav1.PermissionMode
}{
	{"default", robotav1.PermissionMode_PERMISSION_MODE_DEFAULT}, {"acceptEdits", robotav1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS},
	{"plan", robotav1.PermissionMode_PERMISSION_MODE_PLAN}, {"bypassPermissions", robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS},
	{"dontAsk", robotav1.PermissionMode_PERMISSION_MODE_DONT_ASK},
}

func modeToProto(m string) (robotav1.PermissionMode, error) {
	if m == "" {
		return robotav1.PermissionMode_PERMISSION_MODE_UNSPECIFIED, nil
	}
	for _, x := range modes {
		if x.name == m {
			return x.mode, nil
		}
	}
	return 0, fmt.Errorf("%w: permission mode %q: want default, acceptEdits, plan, bypassPermissions or dontAsk", ErrInvalidOption, m)
}

func modeFromProto(m robotav1.PermissionMode) string {
	for _, x := range modes {
		if x.mode == m {
			return x.name
		}
	}
	return ""
}

func createRequest(o SessionOptions) (*robotav1.CreateSessionRequest, error) {
	mode, err := modeToProto(o.PermissionMode)
	if err != nil {
		return nil, err
	}
	return &robotav1.CreateSessionRequest{
		Cwd: o.Cwd, Provider: o.Provider, Model: o.Model, Script: o.Script, PermissionMode: mode,
		AllowedTools: o.Allow, DisallowedTools: o.Deny, AppendSystemPrompt: o.AppendSystemPrompt,
		MaxTurns: int32(o.MaxTurns), ResumeSessionId: o.Resume, ForkSession: o.Fork, ContinueLatest: o.Continue,
	}, nil
}

func infoFromProto(in *robotav1.SessionInfo) SessionInfo {
	out := SessionInfo{ID: in.GetSessionId(), Cwd: in.GetCwd(), Provider: in.GetProvider(), Model: in.GetModel(),
		PermissionMode: modeFromProto(in.GetPermissionMode()), Title: in.GetTitle(), MessageCount: int(in.GetMessageCount()),
		Running: in.GetRunning(), Live: in.GetLive(), Tools: in.GetTools(), APIKeySource: in.GetApiKeySource(),
		Sandbox: in.GetCommandSandbox()}
	if in.GetCreatedAt() != nil {
		out.CreatedAt = in.GetCreatedAt().AsTime()
	}
	if in.GetUpdatedAt() != nil {
		out.UpdatedAt = in.GetUpdatedAt().AsTime()
	}
	out.Context = contextFromProto(in.GetContextState())
	return out
}

func contextFromProto(c *robotav1.ContextState) *ContextState {
	if c == nil {
		return nil
	}
	return &ContextState{MaxTokens: int(c.GetMaxTokens()), UsedTokens: int(c.GetUsedTokens()),
		UsedPercentage: c.GetUsedPercentage(), RemainingPercentage: c.GetRemainingPercentage()}
}

func usageFromProto(u *robotav1.Usage) llm.Usage {
	return llm.Usage{InputTokens: int(u.GetInputTokens()), OutputTokens: int(u.GetOutputTokens()),
		CacheCreationInputTokens: int(u.GetCacheCreationInputTokens()), CacheReadInputTokens: int(u.GetCacheReadInputTokens())}
}

func outcomeFromProto(o robotav1.ToolOutcome) ToolOutcome {
	switch o {
	case robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS:
		return ToolSuccess
	case robotav1.ToolOutcome_TOOL_OUTCOME_ERROR:
		return ToolError
	case robotav1.ToolOutcome_TOOL_OUTCOME_DENIED:
		return ToolDenied
	case robotav1.ToolOutcome_TOOL_OUTCOME_INTERRUPTED:
		return ToolInterrupted
	case robotav1.ToolOutcome_TOOL_OUTCOME_UNKNOWN_TOOL:
		return ToolUnknown
	}
	return ""
}

func toolFromProto(t *robotav1.ToolState) *ToolState {
	if t == nil {
		return nil
	}
	out := &ToolState{CallID: t.GetToolCallId(), Name: t.GetToolName(), FirstArg: t.GetFirstArg(),
		Running: t.GetIsRunning(), Outcome: outcomeFromProto(t.GetOutcome()), Output: t.GetOutput(), Error: t.GetError(),
		DiffFile: t.GetDiffFile(), DiffLines: t.GetDiffLines(), StartLine: int(t.GetStartLine()),
		Duration: t.GetDuration().AsDuration(), Metadata: t.GetMetadata().AsMap()}
	if t.GetInputJson() != "" {
		out.Input = json.RawMessage(t.GetInputJson())
	}
	if len(out.Metadata) == 0 {
		out.Metadata = nil
	}
	return out
}

func resultFromProto(r *robotav1.ExecutionResult) *Result {
	if r == nil {
		return &Result{}
	}
	out := &Result{Response: r.GetResponse(), Usage: usageFromProto(r.GetUsage()), Context: contextFromProto(r.GetContextState()),
		Rounds: int(r.GetRounds()), Interrupted: r.GetInterrupted(), Duration: r.GetDuration().AsDuration(),
		StopReason: r.GetStopReason(), Reason: r.GetReason()}
	for _, t := range r.GetTools() {
		out.Tools = append(out.Tools, *toolFromProto(t))
	}
	return out
}

// answers pairs each answer with its proto value; both conversions read it.
var answers = [...]struct {
	answer Answer
	proto  robotav1.PermissionAnswer
}{
	{AnswerAllow, robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW},
	{AnswerAllowForSession, robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW_FOR_SESSION},
	{AnswerDeny, robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY},
}

func answerToProto(a Answer) (robotav1.PermissionAnswer, bool) {
	for _, x := range answers {
		if x.answer == a {
			return x.proto, true
		}
	}
	return 0, false
}

func answerFromProto(a robotav1.PermissionAnswer) Answer {
	for _, x := range answers {
		if x.proto == a {
			return x.answer
		}
	}
	return 0
}

func permOutcomeFromProto(o robotav1.PermissionOutcome) string {
	switch o {
	case robotav1.PermissionOutcome_PERMISSION_OUTCOME_ANSWERED:
		return "answered"
	case robotav1.PermissionOutcome_PERMISSION_OUTCOME_TIMEOUT:
		return "timeout"
	case robotav1.PermissionOutcome_PERMISSION_OUTCOME_ABORTED:
		return "aborted"
	}
	return ""
}

// eventFromProto maps one SessionEvent; an event of a kind this client does not know
// is ErrProtocol (a newer engine), so a caller never mistakes it for nothing.
func eventFromProto(e *robotav1.SessionEvent) (Event, error) {
	out := Event{SessionID: e.GetSessionId(), Seq: e.GetSequence(), PromptID: e.GetPromptId()}
	if e.GetTimestamp() != nil {
		out.Time = e.GetTimestamp().AsTime()
	}
	switch ev := e.GetEvent().(type) {
	case *robotav1.SessionEvent_TextDelta:
		out.Type, out.Text = EventTextDelta, ev.TextDelta.GetText()
	case *robotav1.SessionEvent_Thinking:
		out.Type, out.Text, out.Thinking = EventThinking, ev.Thinking.GetText(), ev.Thinking.GetIsThinking()
	case *robotav1.SessionEvent_ToolStart:
		out.Type, out.Tool = EventToolStart, toolFromProto(ev.ToolStart.GetTool())
	case *robotav1.SessionEvent_ToolEnd:
		out.Type, out.Tool = EventToolEnd, toolFromProto(ev.ToolEnd.GetTool())
	case *robotav1.SessionEvent_PermissionRequest:
		p := ev.PermissionRequest
		out.Type = EventPermissionRequest
		out.Permission = &PermissionRequest{ID: p.GetRequestId(), ToolName: p.GetToolName(), ToolCallID: p.GetToolCallId(),
			Reason: p.GetReason(), SessionRule: p.GetSessionRule(), TaskID: p.GetTaskId()}
		if p.GetInputJson() != "" {
			out.Permission.Input = json.RawMessage(p.GetInputJson())
		}
		if p.GetDeadline() != nil {
			out.Permission.Deadline = p.GetDeadline().AsTime()
		}
	case *robotav1.SessionEvent_PermissionResolved:
		r := ev.PermissionResolved
		out.Type = EventPermissionResolved
		out.Resolution = &PermissionResolution{RequestID: r.GetRequestId(), Outcome: permOutcomeFromProto(r.GetOutcome()), Answer: answerFromProto(r.GetAnswer())}
	case *robotav1.SessionEvent_ContextUpdate:
		out.Type, out.Context = EventContextUpdate, contextFromProto(ev.ContextUpdate.GetState())
	case *robotav1.SessionEvent_Compact:
		out.Type, out.Compaction = EventCompaction, compactFromProto(ev.Compact)
	case *robotav1.SessionEvent_Complete:
		out.Type, out.Result = EventComplete, resultFromProto(ev.Complete.GetResult())
	case *robotav1.SessionEvent_Error:
		x := ev.Error
		out.Type, out.Result = EventError, resultFromProto(x.GetResult())
		out.Error = &ErrorInfo{Code: x.GetCode(), Category: x.GetCategory(), Message: x.GetMessage(), Recoverable: x.GetRecoverable()}
	case *robotav1.SessionEvent_Interrupted:
		out.Type, out.Result = EventInterrupted, resultFromProto(ev.Interrupted.GetResult())
		out.Result.Interrupted = true
	case *robotav1.SessionEvent_BackgroundTaskEvent:
		out.Type = EventBackgroundTask
		if st := ev.BackgroundTaskEvent.GetStateChanged(); st != nil {
			out.Task = taskFromProto(st)
		}
	case *robotav1.SessionEvent_BackgroundJobGroupEvent:
		out.Type = EventBackgroundJobGroup
		out.GroupEvent = strings.ToLower(strings.TrimPrefix(ev.BackgroundJobGroupEvent.GetType().String(), "BACKGROUND_JOB_GROUP_EVENT_TYPE_"))
		out.Group = groupFromProto(ev.BackgroundJobGroupEvent.GetGroup())
	case *robotav1.SessionEvent_SubagentMessage:
		m := messageFromProto(ev.SubagentMessage.GetMessage())
		out.Type, out.Message, out.ParentToolUseID = EventSubagentMessage, &m, ev.SubagentMessage.GetParentToolUseId()
	default:
		return Event{}, fmt.Errorf("%w: event %d of session %s has no known kind", ErrProtocol, out.Seq, out.SessionID)
	}
	return out, nil
}

func compactFromProto(c *robotav1.CompactEvent) *Compaction {
	out := &Compaction{Trigger: "auto", Summary: c.GetSummary()}
	if c.GetTrigger() == robotav1.CompactTrigger_COMPACT_TRIGGER_MANUAL {
		out.Trigger = "manual"
	}
	if b := contextFromProto(c.GetBefore()); b != nil {
		out.Before = *b
	}
	if a := contextFromProto(c.GetAfter()); a != nil {
		out.After = *a
	}
	return out
}

func roleFromProto(r robotav1.Role) llm.Role {
	switch r {
	case robotav1.Role_ROLE_USER:
		return llm.RoleUser
	case robotav1.Role_ROLE_ASSISTANT:
		return llm.RoleAssistant
	case robotav1.Role_ROLE_SYSTEM:
		return llm.RoleSystem
	case robotav1.Role_ROLE_TOOL:
		return llm.RoleTool
	}
	return ""
}

// messageFromProto is the inverse of the server's messageToProto: the parts in order,
// usage, metadata (JSON numbers come back as float64, as any JSON decode gives them).
func messageFromProto(m *robotav1.Message) llm.Message {
	out := llm.Message{ID: m.GetId(), Role: roleFromProto(m.GetRole()), State: llm.StateComplete}
	if m.GetState() == robotav1.MessageState_MESSAGE_STATE_INTERRUPTED {
		out.State = llm.StateInterrupted
	}
	for _, p := range m.GetParts() {
		switch x := p.GetPart().(type) {
		case *robotav1.ContentPart_Text:
			out.Content = append(out.Content, llm.TextPart(x.Text.GetText()))
		case *robotav1.ContentPart_Thinking:
			out.Content = append(out.Content, llm.ThinkingPart(x.Thinking.GetText(), x.Thinking.GetSignature()))
		case *robotav1.ContentPart_ToolUse:
			var input json.RawMessage
			if s := x.ToolUse.GetInputJson(); s != "" {
				input = json.RawMessage(s)
			}
			out.Content = append(out.Content, llm.ToolUsePart(llm.ToolCall{ID: x.ToolUse.GetId(), Name: x.ToolUse.GetName(), Input: input}))
		case *robotav1.ContentPart_ToolResult:
			r := x.ToolResult
			part := llm.ToolResultPart{ToolCallID: r.GetToolUseId(), Content: r.GetContent(), IsError: r.GetIsError()}
			if part.ToolCallID == m.GetToolCallId() {
				part.ToolName = m.GetName()
			}
			out.Content = append(out.Content, llm.ToolResultContent(part))
		}
	}
	if m.GetUsage() != nil {
		u := usageFromProto(m.GetUsage())
		out.Usage = &u
	}
	if md := m.GetMetadata(); md != nil && len(md.GetFields()) > 0 {
		out.Metadata = md.AsMap()
	}
	if m.GetTimestamp() != nil {
		out.CreatedAt = m.GetTimestamp().AsTime()
	}
	return out
}

func historyFromProto(e *robotav1.HistoryEntry) HistoryEntry {
	out := HistoryEntry{ID: e.GetId(), Type: e.GetType()}
	if e.GetTimestamp() != nil {
		out.Time = e.GetTimestamp().AsTime()
	}
	switch d := e.GetData().(type) {
	case *robotav1.HistoryEntry_Message:
		m := messageFromProto(d.Message)
		out.Message = &m
	case *robotav1.HistoryEntry_EventData:
		out.Data = structMap(d.EventData)
	}
	return out
}

func structMap(s *structpb.Struct) map[string]any {
	if s == nil {
		return nil
	}
	return s.AsMap()
}

func taskFromProto(st *robotav1.BackgroundTaskState) *TaskState {
	out := &TaskState{ID: st.GetTaskId(), Label: st.GetLabel(), CurrentAction: st.GetCurrentAction(),
		Error: st.GetError(), Host: st.GetHost(), Attempt: int(st.GetAttempt()),
		Kind:   strings.ToLower(strings.TrimPrefix(st.GetKind().String(), "BACKGROUND_TASK_KIND_")),
		Status: strings.ToLower(strings.TrimPrefix(st.GetStatus().String(), "BACKGROUND_TASK_STATUS_"))}
	if t := st.GetStartedAt(); t != nil {
		out.StartedAt = t.AsTime()
	}
	if t := st.GetEndedAt(); t != nil {
		out.EndedAt = t.AsTime()
	}
	switch st.GetStatus() {
	case robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED, robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_FAILED,
		robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED:
		out.Terminal = true
	}
	return out
}
