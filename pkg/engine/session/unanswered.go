package session

import "github.com/robota-sdk/robota-go/pkg/engine/llm"

// UnansweredCallText is the result a resumed session gives a tool call that was journaled
// but never answered: robota stopped (a crash, kill -9) while it ran.
const UnansweredCallText = "This tool call was started, and robota stopped before it ended: its result is unknown " +
	"(a command may have run in part or in whole; check its effects before running it again)."

// closeUnansweredCalls answers, after the last assistant message, the tool calls that
// have no result (the assistant message is journaled before its tools run): providers
// refuse a history with a tool call left open, and the model must know it did not end.
func (s *Session) closeUnansweredCalls(history []llm.Message) []llm.Message {
	last := -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == llm.RoleAssistant {
			last = i
			break
		}
		if history[i].Role != llm.RoleTool {
			return history // a user message came after: the round was closed
		}
	}
	if last < 0 {
		return history
	}
	answered := map[string]bool{}
	for _, m := range history[last+1:] {
		if r, ok := m.ToolResult(); ok {
			answered[r.ToolCallID] = true
		}
	}
	for _, c := range history[last].ToolCalls() {
		if !answered[c.ID] {
			history = append(history, s.factory.Tool(llm.ToolResultPart{ToolCallID: c.ID, ToolName: c.Name,
				Content: UnansweredCallText, IsError: true}, map[string]any{"errorCode": "unanswered_after_restart"}))
		}
	}
	return history
}
