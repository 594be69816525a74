package server

import (
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

func TestTaskEventsToProto(t *testing.T) {
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	noCtx := func() contextwin.WindowState { return contextwin.WindowState{} }
	tests := []struct {
		name string
		ev   interactive.TaskEvent
		want string
	}{
		{"state", interactive.TaskEvent{TaskID: "t1", State: &interactive.TaskState{TaskID: "t1", Kind: interactive.TaskAgent,
			Status: interactive.TaskWaitingPermission, Label: "Explore: find it", CreatedAt: at, PID: 42}},
			`{"taskId":"t1","stateChanged":{"taskId":"t1","kind":"BACKGROUND_TASK_KIND_AGENT","status":"BACKGROUND_TASK_STATUS_WAITING_PERMISSION","label":"Explore: find it","createdAt":"2026-11-25T12:00:00Z","pid":42}}`},
		{"text", interactive.TaskEvent{TaskID: "t1", Text: "hel"}, `{"taskId":"t1","textDelta":"hel"}`},
		{"tool end", interactive.TaskEvent{TaskID: "t2", ToolEnd: &interactive.ToolState{ToolUseID: "c", ToolName: "Read", Result: "success"}},
			`{"taskId":"t2","toolEnd":{"toolCallId":"c","toolName":"Read","outcome":"TOOL_OUTCOME_SUCCESS"}}`},
	}
	for _, tt := range tests {
		ev := tt.ev
		pe := eventToProto("s1", interactive.Event{Seq: 3, Type: interactive.EventBackgroundTask, Time: at, Task: &ev}, noCtx)
		if pe == nil {
			t.Fatalf("%s: not converted", tt.name)
		}
		got, err := protojson.Marshal(pe.GetBackgroundTaskEvent())
		if err != nil {
			t.Fatal(err)
		}
		if compact(string(got)) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	if eventToProto("s1", interactive.Event{Type: interactive.EventBackgroundTask}, noCtx) != nil {
		t.Error("a task event without its payload was converted")
	}
}

// compact removes the spaces protojson may put between members.
func compact(s string) string {
	out := make([]byte, 0, len(s))
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' && (i == 0 || s[i-1] != '\\') {
			inString = !inString
		}
		if !inString && (c == ' ' || c == '\n') {
			continue
		}
		out = append(out, c)
	}
	return string(out)
}
