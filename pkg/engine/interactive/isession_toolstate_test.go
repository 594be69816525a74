package interactive

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// Tool state for clients: the identifying argument, Edit's diff from its arguments and
// the result's startLine, and a bounded preview of a command's output.
func TestToolState(t *testing.T) {
	long := strings.Repeat("line\n", 50)
	for _, tc := range []struct {
		name  string
		ev    session.ToolExecutionEvent
		check func(*ToolState) string
	}{
		{name: "start is running with its first argument",
			ev: session.ToolExecutionEvent{Type: session.ToolStart, ToolName: "Bash", ToolArgs: json.RawMessage(`{"description":"x","command":"go   test\n./..."}`)},
			check: func(st *ToolState) string {
				if !st.IsRunning || st.FirstArg != "go test ./..." || st.Result != "" {
					return fmt.Sprintf("%+v", st)
				}
				return ""
			}},
		{name: "unknown tools show their first string argument",
			ev: session.ToolExecutionEvent{Type: session.ToolStart, ToolName: "mcp__x__y", ToolArgs: json.RawMessage(`{"n":1,"b":"second","a":"third"}`)},
			check: func(st *ToolState) string {
				if st.FirstArg != "second" {
					return st.FirstArg
				}
				return ""
			}},
		{name: "edit diff numbered from startLine",
			ev: session.ToolExecutionEvent{Type: session.ToolEnd, ToolName: "Edit", Success: true,
				ToolArgs:       json.RawMessage(`{"file_path":"/p/a.go","old_string":"a\nb","new_string":"c"}`),
				ToolResultData: `{"success":true,"output":"ok","metadata":{"startLine":7}}`},
			check: func(st *ToolState) string {
				// No readable file: no context lines, the hunk header still says where.
				want := []DiffLine{{"hunk", 7, "@@ -7,2 +7,1 @@"}, {"remove", 7, "a"}, {"remove", 8, "b"}, {"add", 7, "c"}}
				if st.Result != "success" || st.DiffFile != "/p/a.go" || !slices.Equal(st.DiffLines, want) {
					return fmt.Sprintf("%+v", st)
				}
				return ""
			}},
		{name: "failed edit has no diff",
			ev: session.ToolExecutionEvent{Type: session.ToolEnd, ToolName: "Edit", ErrorCode: "tool_failed",
				ToolArgs: json.RawMessage(`{"file_path":"/p/a.go","old_string":"a","new_string":"c"}`)},
			check: func(st *ToolState) string {
				if st.Result != "error" || st.DiffLines != nil || st.ErrorCode != "tool_failed" {
					return fmt.Sprintf("%+v", st)
				}
				return ""
			}},
		{name: "command output preview is bounded",
			ev: session.ToolExecutionEvent{Type: session.ToolEnd, ToolName: "Bash", Success: true,
				ToolArgs: json.RawMessage(`{"command":"seq 50"}`), ToolResultData: fmt.Sprintf(`{"success":true,"output":%q}`, long)},
			check: func(st *ToolState) string {
				if strings.Count(st.ToolResultData, "line\n") != maxPreviewLines || !strings.HasSuffix(st.ToolResultData, "… 30 more lines") {
					return st.ToolResultData
				}
				return ""
			}},
		{name: "denied",
			ev: session.ToolExecutionEvent{Type: session.ToolEnd, ToolName: "Bash", Denied: true, Reason: "Permission denied"},
			check: func(st *ToolState) string {
				if st.Result != "denied" || st.IsRunning {
					return fmt.Sprintf("%+v", st)
				}
				return ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := tc.check(toolState(tc.ev)); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}
