package cli

import (
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

// runRecord is what the result line reads of a session after a prompt.
type runRecord interface {
	LastResult() agent.Result
	ContextWindow() int
	PermissionDenials() []interactive.PermissionDenial
}

// resultOf describes the run. num_turns counts the model/tool rounds that ran, over the
// Stop-hook continuations too; the forced final summary made at the --max-turns cap is not
// a turn (its usage is counted), so --max-turns N reports at most N. Claude Code reports
// N+1 there: it counts the turn it refused to start.
func resultOf(sess runRecord, answer string, runErr error, maxTurns int) output.Result {
	last := sess.LastResult()
	res := output.Result{Subtype: output.SubtypeSuccess, NumTurns: last.Rounds, Text: answer, Usage: last.Usage,
		StopReason: anthropicStopReason(last.StopReason), ContextWindow: sess.ContextWindow()}
	for _, d := range sess.PermissionDenials() {
		res.PermissionDenials = append(res.PermissionDenials, output.PermissionDenial{
			ToolName: d.ToolName, ToolUseID: d.ToolUseID, ToolInput: d.ToolInput})
	}
	switch {
	case runErr != nil:
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		res.Errors = append(res.Errors, runErr.Error())
	case last.StopReason == agent.StopMaxRounds:
		res.Subtype, res.IsError = output.SubtypeErrorMaxTurns, true
		res.Errors = append(res.Errors, fmt.Sprintf("Reached maximum number of turns (%d)", maxTurns))
	case last.StopReason == agent.StopContextLimit:
		// The guard's diagnostic is the answer; the run did not do what was asked.
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		res.Errors = append(res.Errors, last.Response)
	case last.StopReason == agent.StopProviderError:
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		if last.Err != nil {
			res.Errors = append(res.Errors, last.Err.Error())
		}
	}
	return res
}

// anthropicStopReason is the result's stop_reason: end_turn for a run that ended on its
// own, null (empty) otherwise, where Claude Code reports the API's words.
func anthropicStopReason(r agent.StopReason) string {
	if r == agent.StopCompleted {
		return "end_turn"
	}
	return ""
}
