package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Spec: Replay Boundary Events — every event, in order, for a 2-round run with tools.
func TestReplayBoundaryEvents_TwoRoundRunWithTools(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - text: "Let me look."
    toolCalls: [{id: call_0, name: Echo, input: {q: 1}}, {id: call_1, name: Echo, input: {q: 2}}]
    usage: {inputTokens: 100, outputTokens: 20}
  - text: "Found it."
    usage: {inputTokens: 180, outputTokens: 5}
`)
	rec := &recorder{}
	a := newAgent(t, agent.Config{
		Provider: p, Model: "script-model", SystemPrompt: "You are a test.",
		Tools: []llm.Tool{&echoTool{name: "Echo"}}, MaxConcurrency: 1,
	})
	res := mustRun(t, a, context.Background(), "find it", rec.opts())
	if res.Response != "Found it." {
		t.Fatalf("response = %q", res.Response)
	}

	want := []string{
		"0 history_mutation",
		"1 provider_request",
		"1 provider_native_raw_payload",
		"1 provider_stream_raw_delta", "1 provider_stream_raw_delta", "1 provider_stream_raw_delta",
		"1 provider_native_raw_payload",
		"1 provider_response_raw",
		"1 provider_response_normalized",
		"1 history_mutation",
		"1 assistant_message_committed",
		"1 tool_batch_started",
		"1 tool_execution_request", "1 tool_execution_request",
		"1 tool_execution_result", "1 tool_execution_result",
		"1 history_mutation", "1 tool_message_committed",
		"1 history_mutation", "1 tool_message_committed",
		"2 provider_request",
		"2 provider_native_raw_payload",
		"2 provider_stream_raw_delta", "2 provider_stream_raw_delta",
		"2 provider_native_raw_payload",
		"2 provider_response_raw",
		"2 provider_response_normalized",
		"2 history_mutation",
		"2 assistant_message_committed",
	}
	var got []string
	for i, e := range rec.events {
		got = append(got, fmt.Sprintf("%d %s", e.Round, e.Type))
		if e.ExecutionID != res.ExecutionID || e.ExecutionID == "" || e.ConversationID != "conv-1" {
			t.Fatalf("event %d ids: execution %q conversation %q", i, e.ExecutionID, e.ConversationID)
		}
		if e.Sequence != int64(i+1) {
			t.Fatalf("event %d sequence = %d", i, e.Sequence)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("event order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Required data per event family.
	for _, e := range rec.events {
		ok := true
		switch e.Type {
		case agent.EventProviderRequest:
			ok = e.Request != nil && e.Request.Provider == "script" && e.Request.Model == "script-model" && len(e.Request.Messages) > 0 && len(e.Request.Tools) == 1
		case agent.EventProviderStreamRawDelta:
			ok = e.Delta != nil && e.Delta.Sequence > 0 && e.Delta.Delta != ""
		case agent.EventProviderResponseRaw:
			ok = e.Response != nil && e.Response.ResponseKind == agent.ResponseKindNormalized
		case agent.EventProviderResponseNormalized:
			ok = e.Response != nil && e.Response.ToolCallsCount == map[int]int{1: 2, 2: 0}[e.Round]
		case agent.EventAssistantMessageCommitted, agent.EventHistoryMutation:
			ok = e.Message != nil && (e.Type != agent.EventHistoryMutation || e.Mutation != nil)
		case agent.EventToolBatchStarted:
			ok = e.Batch != nil && e.Batch.BatchID != "" && e.Batch.Mode == "parallel" && e.Batch.MaxConcurrency == 1 && e.Batch.RequestCount == 2
		case agent.EventToolExecutionRequest:
			ok = e.Tool != nil && e.Tool.ToolName == "Echo" && len(e.Tool.Parameters) > 0 && len(e.Tool.OwnerPath) == 3 && e.Tool.Result == nil
		case agent.EventToolExecutionResult:
			ok = e.Tool != nil && e.Tool.Result != nil && e.Tool.Result.Success
		case agent.EventToolMessageCommitted:
			ok = e.Tool != nil && e.Message != nil && e.Message.Role == llm.RoleTool
		case agent.EventProviderNativeRawPayload:
			ok = e.RawPayload != nil && e.RawPayload.Sequence > 0
		}
		if !ok {
			t.Fatalf("event %d (%s) lacks required data: %+v", e.Sequence, e.Type, e)
		}
	}

	// The whole stream is plain JSON and stable: compare with the golden file.
	var buf bytes.Buffer
	for _, e := range rec.events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("event %d does not serialize: %v", e.Sequence, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	golden := filepath.Join("testdata", "replay_two_rounds.jsonl")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantBytes, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(buf.Bytes(), wantBytes) {
		t.Fatalf("replay events differ from %s (run with -update after checking the diff):\n%s", golden, buf.String())
	}
}

// Events round-trip through JSON (they cross process boundaries to workers and clients).
func TestReplayBoundaryEvents_JSONRoundTrip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "replay_two_rounds.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var e agent.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		again, _ := json.Marshal(e)
		if !bytes.Equal(again, line) {
			t.Fatalf("line %d changed on round trip:\n%s\n%s", i+1, line, again)
		}
	}
}
