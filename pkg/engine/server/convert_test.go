package server

import (
	"errors"
	"fmt"
	"testing"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

func TestToolStateOutcomes(t *testing.T) {
	cases := []struct {
		st   interactive.ToolState
		want robotav1.ToolOutcome
		err  string
	}{
		{interactive.ToolState{IsRunning: true}, robotav1.ToolOutcome_TOOL_OUTCOME_UNSPECIFIED, ""},
		{interactive.ToolState{Result: "success", Reason: "ignored"}, robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS, ""},
		{interactive.ToolState{Result: "denied", Reason: "denied by user"}, robotav1.ToolOutcome_TOOL_OUTCOME_DENIED, "denied by user"},
		{interactive.ToolState{Result: "error", ErrorCode: "interrupted", Reason: "aborted"}, robotav1.ToolOutcome_TOOL_OUTCOME_INTERRUPTED, "aborted"},
		{interactive.ToolState{Result: "error", ErrorCode: "unknown_tool"}, robotav1.ToolOutcome_TOOL_OUTCOME_UNKNOWN_TOOL, ""},
		{interactive.ToolState{Result: "error", ErrorCode: "tool_failed", Reason: "exit 1"}, robotav1.ToolOutcome_TOOL_OUTCOME_ERROR, "exit 1"},
	}
	for _, c := range cases {
		got := toolToProto(&c.st)
		if got.GetOutcome() != c.want || got.GetError() != c.err {
			t.Errorf("%+v → %v %q, want %v %q", c.st, got.GetOutcome(), got.GetError(), c.want, c.err)
		}
	}
	edit := toolToProto(&interactive.ToolState{Result: "success", DiffFile: "/p/a.go", DiffLines: []interactive.DiffLine{
		{Kind: "remove", Line: 7, Text: "old"}, {Kind: "add", Line: 7, Text: "new"}}})
	if fmt.Sprint(edit.GetDiffLines()) != "[-old +new]" || edit.GetStartLine() != 7 || edit.GetDiffFile() != "/p/a.go" {
		t.Errorf("edit diff %v from line %d", edit.GetDiffLines(), edit.GetStartLine())
	}
}

func TestErrorEventCarriesTheTaxonomy(t *testing.T) {
	le := llm.NewError(llm.CodeRateLimit, "slow down", nil)
	ev := errorToProto(&interactive.Result{Error: "slow down", Err: fmt.Errorf("run: %w", le)}, nil)
	if ev.GetCode() != "RATE_LIMIT_ERROR" || ev.GetCategory() == "" || !ev.GetRecoverable() || ev.GetMessage() != "slow down" {
		t.Errorf("provider error → %v", ev)
	}
	ev = errorToProto(&interactive.Result{Error: "blocked", Err: errors.New("blocked")}, nil)
	if ev.GetCode() != "error" || ev.GetRecoverable() {
		t.Errorf("other error → %v", ev)
	}
}

func TestMalformedEventsAreNotSent(t *testing.T) {
	for _, typ := range []interactive.EventType{interactive.EventToolEnd, interactive.EventPermissionRequest,
		interactive.EventComplete, interactive.EventContextUpdate, interactive.EventBackgroundTask} {
		if pe := eventToProto("s", interactive.Event{Type: typ}, nil); pe != nil {
			t.Errorf("%s without payload became %v", typ, pe)
		}
	}
	res := eventToProto("s", interactive.Event{Type: interactive.EventPermissionResolved, Resolution: &interactive.PermissionResolution{
		RequestID: "r", Approval: session.ApprovalAllowSession, Outcome: "answered"}}, nil)
	if r := res.GetPermissionResolved(); r.GetAnswer() != robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW_FOR_SESSION ||
		r.GetOutcome() != robotav1.PermissionOutcome_PERMISSION_OUTCOME_ANSWERED {
		t.Errorf("resolution %v", r)
	}
}
