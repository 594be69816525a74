package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Spec: Provider Tool Call ID Ownership.
func TestProviderToolCallIDOwnership_ReusedIDsAcrossRounds(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: call_0, name: Echo, input: {n: 1}}]
  - toolCalls: [{id: call_0, name: Echo, input: {n: 2}}]
  - text: done
`)
	echo := &echoTool{name: "Echo"}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{echo}})
	res := mustRun(t, a, context.Background(), "go", agent.RunOptions{})
	if res.StopReason != agent.StopCompleted || res.Response != "done" || res.Err != nil {
		t.Fatalf("result = %+v", res)
	}
	var assistantIDs []string
	for _, m := range a.History() {
		for _, c := range m.ToolCalls() {
			assistantIDs = append(assistantIDs, c.ID)
		}
	}
	var toolIDs, contents []string
	for _, r := range toolMessages(a.History()) {
		toolIDs = append(toolIDs, r.ToolCallID)
		contents = append(contents, r.Content)
	}
	want := []string{"call_0", "call_0"}
	if !slices.Equal(assistantIDs, want) || !slices.Equal(toolIDs, want) {
		t.Fatalf("assistant ids %v, tool ids %v; want both %v", assistantIDs, toolIDs, want)
	}
	if !slices.Equal(contents, []string{`Echo:{"n":1}`, `Echo:{"n":2}`}) {
		t.Fatalf("tool contents = %v", contents)
	}
	if echo.count() != 2 || !slices.Equal(res.ToolsExecuted, []string{"Echo", "Echo"}) {
		t.Fatalf("executions = %d, toolsExecuted = %v", echo.count(), res.ToolsExecuted)
	}
}

// Spec: Unavailable Tool Call Handling (single round: not executed, not counted, explained).
func TestUnavailableToolCallHandling_NotExecutedNotCounted(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: a, name: Nope, input: {}}, {id: b, name: Echo, input: {}}]
  - text: ok
`)
	echo := &echoTool{name: "Echo"}
	other := &echoTool{name: "Alpha"}
	rec := &recorder{}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{echo, other}})
	res := mustRun(t, a, context.Background(), "go", rec.opts())
	if !slices.Equal(res.ToolsExecuted, []string{"Echo"}) {
		t.Fatalf("toolsExecuted = %v, want [Echo]", res.ToolsExecuted)
	}
	if echo.count() != 1 || other.count() != 0 {
		t.Fatalf("Echo ran %d, Alpha ran %d", echo.count(), other.count())
	}
	results := toolMessages(a.History())
	if len(results) != 2 || !results[0].IsError || !strings.Contains(results[0].Content, "not executed because it is not registered") {
		t.Fatalf("unknown tool message = %+v", results)
	}
	var unknownMeta map[string]any
	for _, m := range a.History() {
		if r, ok := m.ToolResult(); ok && r.ToolCallID == "a" {
			unknownMeta = m.Metadata
		}
	}
	checkUnknownMeta := func(where string, meta map[string]any) {
		t.Helper()
		if meta["errorCode"] != agent.ErrorCodeUnknownTool || meta["requestedTool"] != "Nope" {
			t.Fatalf("%s metadata = %v", where, meta)
		}
		if avail, _ := meta["availableTools"].([]string); !slices.Equal(avail, []string{"Alpha", "Echo"}) {
			t.Fatalf("%s availableTools = %v", where, meta["availableTools"])
		}
	}
	checkUnknownMeta("tool message", unknownMeta)
	for _, ev := range rec.ofType(agent.EventToolExecutionResult) {
		if ev.Tool.ToolCallID == "a" {
			checkUnknownMeta("tool_execution_result", ev.Tool.Result.Metadata)
			if ev.Tool.Result.Success {
				t.Fatal("unknown tool result reported success")
			}
		}
	}
	if res.StopReason != agent.StopCompleted {
		t.Fatalf("one round of unknown tools must not trigger the guard: %s", res.StopReason)
	}
}

// Spec: Unavailable Tool Call Handling (repeated rounds → one final call without tools).
func TestUnavailableToolCallHandling_ConsecutiveRoundsForceFinalCall(t *testing.T) {
	p := &funcProvider{}
	p.reply = func(_ context.Context, n int, req llm.ChatRequest, _ llm.Callbacks) (llm.ChatResponse, error) {
		if n <= 2 {
			call := llm.ToolCall{ID: "call_0", Name: "Ghost", Input: []byte(`{}`)}
			return llm.ChatResponse{Message: llm.Message{Content: []llm.Part{llm.ToolUsePart(call)}}, StopReason: llm.StopReasonToolUse}, nil
		}
		return textResponse("I could not use Ghost."), nil
	}
	echo := &echoTool{name: "Echo"}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{echo}, SystemPrompt: "SYS"})
	res := mustRun(t, a, context.Background(), "go", agent.RunOptions{})
	reqs := p.requests()
	if len(reqs) != 3 {
		t.Fatalf("provider calls = %d, want 3", len(reqs))
	}
	final := reqs[2]
	if len(final.Tools) != 0 || final.Purpose != llm.PurposeFinalSummary {
		t.Fatalf("final call tools=%d purpose=%q; want no tools, final_summary", len(final.Tools), final.Purpose)
	}
	instruction := final.Messages[len(final.Messages)-1]
	if instruction.Role != llm.RoleUser || !strings.Contains(instruction.Text(), "Ghost") || !strings.Contains(instruction.Text(), "not registered") {
		t.Fatalf("forced instruction = %q", instruction.Text())
	}
	if final.Messages[0].Role != llm.RoleSystem || final.Messages[0].Text() != "SYS" {
		t.Fatal("system prompt missing from the final call")
	}
	for _, m := range a.History() {
		if m.ID == instruction.ID || strings.Contains(m.Text(), "not registered. Do not call") {
			t.Fatal("synthetic instruction leaked into history")
		}
	}
	if res.StopReason != agent.StopUnknownTools || res.Response != "I could not use Ghost." || len(res.ToolsExecuted) != 0 {
		t.Fatalf("result = %+v", res)
	}
}

// Spec: Tool Batch Concurrency.
func TestToolBatchConcurrency_MaxConcurrencyAndRequestOrder(t *testing.T) {
	const n = 6
	tests := []struct {
		name       string
		mode       agent.BatchMode
		maxConc    int
		wantActive int
	}{
		{"maxConcurrency 2 over 6 tools", agent.BatchParallel, 2, 2},
		{"omitted maxConcurrency runs all", agent.BatchParallel, 0, n},
		{"maxConcurrency below 1 is clamped to 1", agent.BatchParallel, -3, 1},
		{"sequential mode", agent.BatchSequential, 4, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				gate := newGate()
				tool := safeTool{funcTool{name: "Slow", fn: gate.run}}
				calls := ""
				for i := range n {
					calls += `{id: c` + string(rune('0'+i)) + `, name: Slow, input: {i: ` + string(rune('0'+i)) + `}},`
				}
				p := scriptProvider(t, "turns:\n  - toolCalls: ["+calls+"]\n  - text: fin\n")
				a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{tool}, BatchMode: tc.mode, MaxConcurrency: tc.maxConc})
				done := make(chan agent.Result)
				go func() { res, _ := a.Run(context.Background(), "go", agent.RunOptions{}); done <- res }()
				gate.drive(t, n, tc.wantActive)
				res := <-done
				if gate.maxActive() != tc.wantActive {
					t.Fatalf("max active = %d, want %d", gate.maxActive(), tc.wantActive)
				}
				checkRequestOrder(t, a, res, n)
			})
		})
	}
}

func checkRequestOrder(t *testing.T, a *agent.Agent, res agent.Result, n int) {
	t.Helper()
	results := toolMessages(a.History())
	if len(results) != n {
		t.Fatalf("tool messages = %d", len(results))
	}
	for i, r := range results {
		wantID := "c" + string(rune('0'+i))
		if r.ToolCallID != wantID || r.Content != `ran {"i":`+string(rune('0'+i))+`}` {
			t.Fatalf("result %d = %+v; want request order", i, r)
		}
	}
	if len(res.ToolsExecuted) != n {
		t.Fatalf("toolsExecuted = %v", res.ToolsExecuted)
	}
}
