package sessionlog_test

import (
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

func BenchmarkLogTextDelta(b *testing.B) {
	l, err := sessionlog.Open(b.TempDir(), "bench", sessionlog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	d := sessionlog.TextDeltaData{Delta: "a typical streamed chunk of text", ExecutionID: "exec-1"}
	for b.Loop() {
		if err := l.Append(sessionlog.EventTextDelta, d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLogToolResult8KB(b *testing.B) {
	l, err := sessionlog.Open(b.TempDir(), "bench", sessionlog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	out := strings.Repeat("line of tool output with path/to/file.go:123\n", 180)
	d := map[string]any{"executionId": "e", "round": 1, "tool": map[string]any{"toolCallId": "c",
		"result": llm.ToolResult{Success: true, Output: out}}}
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if err := l.Append(sessionlog.EventToolExecutionResult, d); err != nil {
			b.Fatal(err)
		}
	}
}
