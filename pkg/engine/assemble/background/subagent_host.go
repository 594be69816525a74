package background

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// SubagentTranscriptPath is where the transcript of subagent agentID of session parentID
// is written: {logsDir}/{parentID}/subagents/{agentID}.jsonl (spec: Subagent Transcript
// Logger).
func SubagentTranscriptPath(logsDir, parentID, agentID string) string {
	return sessionlog.LogPath(subagentLogDir(logsDir, parentID), agentID)
}

func subagentLogDir(logsDir, parentID string) string {
	return filepath.Join(logsDir, parentID, "subagents")
}

// subagentHost is the engine side of one subagent job as its parent session sees it. It
// wraps the Host that makes the job's model calls and permission decisions with the
// subagent's transcript (the source of truth for its high-frequency data: the parent's
// record keeps only the path) and the parent's message events, marked with the Agent
// call that started the subagent.
type subagentHost struct {
	inner runnerapi.Host
	// innerAt makes the inner Host for another working directory: the job's worktree
	// (InWorktree), a copy of origin.
	innerAt         func(cwd, worktree, origin string) runnerapi.Host
	agentID         string
	parentToolUseID string
	log             *sessionlog.FileLogger // nil: no transcript
	// inEngine are the tools whose calls run in the engine, not the job (subagents.inEngine).
	inEngine map[string]llm.Tool
	publish  func(interactive.Event) interactive.Event
	promptID func() string

	mu        sync.Mutex
	lastReply string
	// lastUsage is the usage of the latest model call and toolUses the tool calls the
	// model made: the Agent result's subagent_tokens and tool_uses (Claude Code's
	// totalTokens is the last call's, the context the subagent ended with).
	lastUsage llm.Usage
	toolUses  int
}

// subagentTranscript opens the transcript of agentID and records how the subagent starts.
func subagentTranscript(logsDir, parentID, agentID string, init sessionlog.SessionInitData, prompt string) (*sessionlog.FileLogger, error) {
	l, err := sessionlog.Open(subagentLogDir(logsDir, parentID), agentID, sessionlog.Options{})
	if err != nil {
		return nil, fmt.Errorf("subagent %s transcript: %w", agentID, err)
	}
	l.Log(sessionlog.EventSessionInit, init)
	l.Log(sessionlog.EventPreRun, map[string]any{"prompt": prompt, "agentId": agentID})
	return l, nil
}

var _ tasks.CwdHost = (*subagentHost)(nil)

// InWorktree implements tasks.CwdHost: the job runs in cwd, in the worktree dir (a copy
// of origin), so its calls are decided there, with the worktree as its project. The
// transcript and events are shared with h.
func (h *subagentHost) InWorktree(cwd, dir, origin string) runnerapi.Host {
	if h.innerAt == nil {
		return h
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inner = h.innerAt(cwd, dir, origin)
	return h
}

func (h *subagentHost) logf(event string, data any) {
	if h.log != nil {
		h.log.Log(event, data)
	}
}

// Chat makes the model call through the inner Host, recording the streamed text and
// the reply in the transcript and publishing the reply as the subagent's message.
func (h *subagentHost) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	text := cb.OnTextDelta
	cb.OnTextDelta = func(d string) {
		h.logf(sessionlog.EventTextDelta, map[string]any{"delta": d})
		if text != nil {
			text(d)
		}
	}
	resp, err := h.innerHost().Chat(ctx, req, cb)
	if err != nil {
		h.logf(sessionlog.EventError, sessionlog.NewErrorData("provider", err))
		return resp, err
	}
	reply := resp.Message.Text()
	h.mu.Lock()
	if reply != "" {
		h.lastReply = reply
	}
	if u := resp.Message.Usage; u != nil && !u.IsZero() {
		h.lastUsage = *u
	}
	h.mu.Unlock()
	h.logf(sessionlog.EventAssistant, map[string]any{"content": reply, "stopReason": resp.StopReason, "usage": resp.Message.Usage})
	if u := resp.Message.Usage; u != nil && !u.IsZero() {
		// What the subagent's context holds after the call: the call's whole input and
		// its answer, against the model's window.
		used := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens + u.OutputTokens
		h.logf(sessionlog.EventContextState, contextwin.State(used, contextwin.ModelContextWindow(req.Model)))
	}
	msg := resp.Message
	h.publishMessage(&msg)
	return resp, nil
}

// RunTool runs the call through the inner Host (the parent's permission pipeline),
// recording the call and its result and publishing the result as the subagent's message.
func (h *subagentHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	h.logf(sessionlog.EventToolExecutionRequest, map[string]any{"toolCallId": call.ID, "toolName": call.Name, "input": call.Input})
	h.mu.Lock()
	h.toolUses++
	h.mu.Unlock()
	if t, ok := h.inEngine[call.Name]; ok {
		exec = t.Execute // decided as any call of the job, run where its backend's key is
	}
	res := h.innerHost().RunTool(ctx, call, exec)
	h.logf(sessionlog.EventToolExecutionResult, map[string]any{"toolCallId": call.ID, "toolName": call.Name, "result": res})
	content := res.ModelContent()
	msg := llm.NewToolMessage(llm.ToolResultPart{ToolCallID: call.ID, ToolName: call.Name, Content: content, IsError: !res.Success}, nil)
	h.publishMessage(&msg)
	return res
}

func (h *subagentHost) innerHost() runnerapi.Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inner
}

func (h *subagentHost) publishMessage(m *llm.Message) {
	if h.publish != nil {
		h.publish(interactive.Event{Type: interactive.EventSubagentMessage, PromptID: h.promptID(), Message: m, ParentToolUseID: h.parentToolUseID})
	}
}

// LastReply is the subagent's latest non-empty answer (SubagentStop's
// last_assistant_message).
func (h *subagentHost) LastReply() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastReply
}

// usage is the subagent's token count (its latest model call's input and output) and
// the number of tool calls it made.
func (h *subagentHost) usage() (tokens, toolUses int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastUsage.Total(), h.toolUses
}

// finish records how the subagent ended and closes the transcript.
func (h *subagentHost) finish(ev runnerapi.Event) {
	if h.log == nil {
		return
	}
	switch ev.Kind {
	case runnerapi.EventFailed:
		h.log.Log(sessionlog.EventError, map[string]any{"phase": "subagent", "error": ev.Error, "category": ev.Category})
	case runnerapi.EventCancelled:
		h.log.Log(sessionlog.EventError, map[string]any{"phase": "subagent", "error": "cancelled: " + ev.Reason})
	}
	h.log.Log(sessionlog.EventSessionShutdown, map[string]any{"outcome": ev.Kind.String()})
	_ = h.log.Close()
}
