package session

import (
	"encoding/json"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// reportTool delivers an enforcer event to OnToolExecution and remembers which calls the
// enforcer reported, so the bridge never reports them again.
func (s *Session) reportTool(ev ToolExecutionEvent) {
	s.cbMu.Lock()
	defer s.cbMu.Unlock()
	if ev.Type == ToolStart {
		s.reported[ev.ToolUseID] = true
	}
	if cb := s.cfg.Callbacks.OnToolExecution; cb != nil {
		cb(ev)
	}
}

// onAgentEvent logs a replay event and bridges the tool calls the enforcer never saw
// (unregistered tools, and registered ones skipped because of an abort) to
// OnToolExecution. The agent delivers events one at a time, and a wrapped tool's end is
// reported before its tool_execution_result, so the check below is exact.
func (s *Session) onAgentEvent(ev agent.Event) {
	if ev.Type == agent.EventProviderRequest {
		// Events arrive synchronously from the loop: the rounds completed so far (and the
		// run's prompt) are durable before this request is sent, and before it is logged,
		// so a logged request proves the rounds before it are stored.
		s.persistRound()
	}
	s.log(string(ev.Type), ev)
	switch ev.Type {
	case agent.EventToolBatchStarted:
		// The assistant message that asked for these calls is durable before any of them
		// runs: a session resumed after a crash knows a command was started.
		s.persistRound()
		s.cbMu.Lock()
		clear(s.reported)
		clear(s.requested)
		s.cbMu.Unlock()
	case agent.EventToolExecutionRequest:
		if ev.Tool != nil {
			s.cbMu.Lock()
			s.requested[ev.Tool.ToolCallID] = normalizeArgs(ev.Tool.Parameters)
			s.cbMu.Unlock()
		}
	case agent.EventToolExecutionResult:
		if ev.Tool == nil || ev.Tool.Result == nil {
			return
		}
		s.bridgeUnreported(*ev.Tool, *ev.Tool.Result)
	}
}

func (s *Session) bridgeUnreported(t agent.ToolEventData, res llm.ToolResult) {
	s.cbMu.Lock()
	defer s.cbMu.Unlock()
	if s.reported[t.ToolCallID] {
		return
	}
	s.reported[t.ToolCallID] = true
	cb := s.cfg.Callbacks.OnToolExecution
	if cb == nil {
		return
	}
	args := s.requested[t.ToolCallID]
	if args == nil {
		args = json.RawMessage("{}")
	}
	code, _ := res.Metadata["errorCode"].(string)
	if code == "" && !s.toolNames[t.ToolName] {
		code = agent.ErrorCodeUnknownTool
	}
	data, _ := json.Marshal(res)
	cb(ToolExecutionEvent{Type: ToolStart, ToolName: t.ToolName, ToolUseID: t.ToolCallID, ToolArgs: args})
	cb(ToolExecutionEvent{Type: ToolEnd, ToolName: t.ToolName, ToolUseID: t.ToolCallID, ToolArgs: args,
		Success: false, ErrorCode: code, Reason: res.ModelContent(), ToolResultData: string(data)})
}
