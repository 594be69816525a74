package session_test

import (
	"context"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// A run with a tool call logs every event of the spec's Session Logging list that the
// runtime produces (server_tool needs a provider-hosted tool), with replay identifiers.
func TestLogger_RunLogsSpecEvents(t *testing.T) {
	p := newProvider(t, `
turns:
  - chunks: ["Let me ", "look."]
    toolCalls: [{id: call_0, name: Read, input: {file_path: a.go}}]
  - text: "Done."
`)
	lg := &recLogger{t: t}
	s := newSession(t, session.Config{Provider: p, Logger: lg, Evaluator: allowAll(), Model: "claude-haiku-4-5",
		Tools: []llm.Tool{&funcTool{name: "Read"}}})
	mustRun(t, s, "read a.go")
	if err := s.Shutdown(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{
		"session_init", "pre_run", "provider_request", "provider_native_raw_payload", "provider_stream_raw_delta",
		"provider_response_raw", "provider_response_normalized", "tool_batch_started", "tool_execution_request",
		"tool_execution_result", "tool_message_committed", "history_mutation", "text_delta", "assistant", "session_shutdown",
	} {
		if len(lg.of(ev)) == 0 {
			t.Errorf("no %s event logged", ev)
		}
	}
	init := lg.of("session_init")[0].data
	if init["systemPrompt"] != testSystem || init["model"] != "claude-haiku-4-5" || init["provider"] != "script" {
		t.Fatalf("session_init %v", init)
	}
	if tools, _ := init["toolSchemas"].([]any); len(tools) != 1 {
		t.Fatalf("session_init toolSchemas %v", init["toolSchemas"])
	}
	req := lg.of("provider_request")[0].data
	if req["executionId"] == "" || req["round"] != 1.0 || req["conversationId"] != s.ID() {
		t.Fatalf("provider_request identifiers %v", req)
	}
	pre := lg.of("pre_run")[0].data
	if pre["input"] != "read a.go" || pre["provider"] != "script" {
		t.Fatalf("pre_run %v", pre)
	}
	var streamed string
	for _, e := range lg.of("text_delta") {
		streamed += e.data["delta"].(string)
	}
	if streamed != "Let me look.\n\nDone." {
		t.Fatalf("text_delta events spell %q", streamed)
	}
	asst := lg.of("assistant")[0].data
	if asst["content"] != "Done." || len(asst["historyStructure"].([]any)) != 5 {
		t.Fatalf("assistant event %v", asst)
	}
	if sd := lg.of("session_shutdown"); len(sd) != 1 || sd[0].data["reason"] != "other" {
		t.Fatalf("session_shutdown %v", sd)
	}
}
