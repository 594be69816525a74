package server

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
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
		RequestID: "r", Approval: interactive.ApprovalAllowSession, Outcome: "answered"}}, nil)
	if r := res.GetPermissionResolved(); r.GetAnswer() != robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW_FOR_SESSION ||
		r.GetOutcome() != robotav1.PermissionOutcome_PERMISSION_OUTCOME_ANSWERED {
		t.Errorf("resolution %v", r)
	}
}

// Every message stays under gRPC's default 4 MiB receive limit: a long delta is split
// on rune boundaries under one sequence number, a long response is cut and flagged.
func TestLongTextIsSplitAndCut(t *testing.T) {
	long := strings.Repeat("é", MaxEventTextBytes) // 2 bytes a rune: 2 MiB
	parts := splitText(eventToProto("s", interactive.Event{Seq: 9, Type: interactive.EventTextDelta, Text: long}, nil))
	var joined strings.Builder
	for _, p := range parts {
		if p.GetSequence() != 9 || len(p.GetTextDelta().GetText()) > MaxEventTextBytes || !utf8.ValidString(p.GetTextDelta().GetText()) {
			t.Fatalf("part seq %d, %d bytes", p.GetSequence(), len(p.GetTextDelta().GetText()))
		}
		joined.WriteString(p.GetTextDelta().GetText())
	}
	if len(parts) != 2 || joined.String() != long {
		t.Fatalf("%d parts, joined equal: %v", len(parts), joined.String() == long)
	}
	if short := splitText(eventToProto("s", interactive.Event{Type: interactive.EventTextDelta, Text: "hi"}, nil)); len(short) != 1 {
		t.Fatalf("short delta split into %d", len(short))
	}
	res := resultToProto(&interactive.Result{Response: "x" + long}, nil)
	if !res.GetResponseTruncated() || len(res.GetResponse()) > MaxEventTextBytes || !utf8.ValidString(res.GetResponse()) ||
		!strings.HasPrefix("x"+long, res.GetResponse()) {
		t.Fatalf("response of %d bytes, truncated %v", len(res.GetResponse()), res.GetResponseTruncated())
	}
	if r := resultToProto(&interactive.Result{Response: "ok"}, nil); r.GetResponseTruncated() || r.GetResponse() != "ok" {
		t.Fatalf("short response %v", r)
	}
}

// The one-allocation text and end events are the messages the general mapping makes.
func TestQuickEventsMatchTheGeneralMapping(t *testing.T) {
	at := time.Date(2026, 11, 28, 6, 30, 1, 123456789, time.UTC)
	state := contextwin.WindowState{MaxTokens: 200000, UsedTokens: 11, UsedPercentage: 0.0055, RemainingPercentage: 99.9945}
	long := strings.Repeat("é", MaxEventTextBytes) // cut on a rune boundary
	for _, tc := range []struct {
		name string
		ev   interactive.Event
		want *robotav1.SessionEvent
	}{
		{"text delta", interactive.Event{Seq: 6, Type: interactive.EventTextDelta, Time: at, PromptID: "p1", Text: "ok"},
			&robotav1.SessionEvent{SessionId: "s", Sequence: 6, Timestamp: timestamppb.New(at), PromptId: "p1",
				Event: &robotav1.SessionEvent_TextDelta{TextDelta: &robotav1.TextDeltaEvent{Text: "ok"}}}},
		{"complete", interactive.Event{Seq: 7, Type: interactive.EventComplete, Time: at, PromptID: "p1",
			Result: &interactive.Result{Response: "ok", StopReason: "end_turn", Rounds: 2, Reason: "r",
				Usage: llm.Usage{InputTokens: 10, OutputTokens: 1, CacheCreationInputTokens: 3, CacheReadInputTokens: 4}}},
			&robotav1.SessionEvent{SessionId: "s", Sequence: 7, Timestamp: timestamppb.New(at), PromptId: "p1",
				Event: &robotav1.SessionEvent_Complete{Complete: &robotav1.CompleteEvent{Result: &robotav1.ExecutionResult{
					Response: "ok", StopReason: "end_turn", Rounds: 2, Reason: "r",
					Usage:        &robotav1.Usage{InputTokens: 10, OutputTokens: 1, CacheCreationInputTokens: 3, CacheReadInputTokens: 4},
					ContextState: &robotav1.ContextState{MaxTokens: 200000, UsedTokens: 11, UsedPercentage: 0.0055, RemainingPercentage: 99.9945}}}}}},
		// The state the result took when the prompt ended wins over the session's now.
		{"complete, state at its end", interactive.Event{Seq: 9, Type: interactive.EventComplete, Time: at, PromptID: "p2",
			Result: &interactive.Result{Response: "ok", ContextState: contextwin.WindowState{MaxTokens: 1000, UsedTokens: 250, UsedPercentage: 25, RemainingPercentage: 75}}},
			&robotav1.SessionEvent{SessionId: "s", Sequence: 9, Timestamp: timestamppb.New(at), PromptId: "p2",
				Event: &robotav1.SessionEvent_Complete{Complete: &robotav1.CompleteEvent{Result: &robotav1.ExecutionResult{
					Response: "ok", Usage: &robotav1.Usage{},
					ContextState: &robotav1.ContextState{MaxTokens: 1000, UsedTokens: 250, UsedPercentage: 25, RemainingPercentage: 75}}}}}},
		{"complete, long answer", interactive.Event{Seq: 8, Type: interactive.EventComplete, Time: at, PromptID: "p1",
			Result: &interactive.Result{Response: long}},
			&robotav1.SessionEvent{SessionId: "s", Sequence: 8, Timestamp: timestamppb.New(at), PromptId: "p1",
				Event: &robotav1.SessionEvent_Complete{Complete: &robotav1.CompleteEvent{Result: &robotav1.ExecutionResult{
					Response: cutUTF8(long, MaxEventTextBytes), ResponseTruncated: true, Usage: &robotav1.Usage{},
					ContextState: &robotav1.ContextState{MaxTokens: 200000, UsedTokens: 11, UsedPercentage: 0.0055, RemainingPercentage: 99.9945}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := eventToProto("s", tc.ev, func() contextwin.WindowState { return state })
			if !proto.Equal(got, tc.want) {
				t.Fatalf("got %v\nwant %v", got, tc.want)
			}
			if r := got.GetComplete().GetResult(); r != nil && !proto.Equal(r, resultToProto(tc.ev.Result, new(endContext(tc.ev.Result, func() contextwin.WindowState { return state })))) {
				t.Fatalf("the end event's result differs from resultToProto's: %v", r)
			}
		})
	}
}
