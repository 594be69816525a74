package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Spec: Tool Result Context Budget.
func TestToolResultContextBudget_ReplacesLaterResultsAndContinues(t *testing.T) {
	big := strings.Repeat("x", 1500)
	tool := funcTool{name: "Big", fn: func(context.Context, json.RawMessage) llm.ToolResult { return llm.ToolSuccess(big) }}
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: a, name: Big}, {id: b, name: Big}, {id: c, name: Big}, {id: d, name: Big}]
    usage: {inputTokens: 10, outputTokens: 10}
  - text: "answered from a and b"
    usage: {inputTokens: 10, outputTokens: 10}
`)
	// 80% of 2,000 tokens at chars/2 is 3,200 characters: the second result crosses it.
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{tool}, ContextWindow: 2000})
	res := mustRun(t, a, context.Background(), "go", agent.RunOptions{})
	results := toolMessages(a.History())
	if len(results) != 4 {
		t.Fatalf("tool messages = %d", len(results))
	}
	for i, r := range results {
		skipped := r.Content == agent.ContextSkippedToolText
		if wantSkipped := i >= 2; skipped != wantSkipped {
			t.Fatalf("result %d skipped=%v, want %v", i, skipped, wantSkipped)
		}
	}
	if res.StopReason != agent.StopCompleted || res.Response != "answered from a and b" {
		t.Fatalf("loop did not continue to the next provider call: %+v", res)
	}
	if len(res.ToolsExecuted) != 4 {
		t.Fatalf("toolsExecuted = %v", res.ToolsExecuted)
	}
}

// Spec: Pre-Send Context Check — the 95% hard guard and its diagnostic message.
func TestPreSendContextCheck_HardGuardAt95Percent(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		usage     string
		wantBlock bool
	}{
		// Window 1,000 tokens → threshold 950. Serialized ≈ chars/4.
		{"small prompt passes", "hello", "", false},
		{"large metadata-free prompt is blocked", strings.Repeat("y", 4000), "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := scriptProvider(t, "turns:\n  - text: fine\n")
			rec := &recorder{}
			a := newAgent(t, agent.Config{Provider: p, ContextWindow: 1000})
			res := mustRun(t, a, context.Background(), tc.input, rec.opts())
			calls := len(rec.ofType(agent.EventProviderRequest))
			if tc.wantBlock == (calls != 0) {
				t.Fatalf("provider calls = %d, wantBlock %v", calls, tc.wantBlock)
			}
			if !tc.wantBlock {
				return
			}
			msg := lastAssistant(t, a.History())
			if res.StopReason != agent.StopContextLimit || res.Response != msg.Text() {
				t.Fatalf("result = %+v", res)
			}
			for _, want := range []string{"Context window limit reached", "1,000-token context window", "threshold 950", "Serialized estimate", "provider usage floor"} {
				if !strings.Contains(msg.Text(), want) {
					t.Fatalf("diagnostic %q lacks %q", msg.Text(), want)
				}
			}
			for _, key := range []string{"estimatedTokens", "maxTokens", "serializedTokens", "providerUsageFloor", "thresholdTokens"} {
				if _, ok := msg.Metadata[key]; !ok {
					t.Fatalf("metadata lacks %s: %v", key, msg.Metadata)
				}
			}
			if msg.Metadata["maxTokens"] != 1000 || msg.Metadata["thresholdTokens"] != 950 {
				t.Fatalf("metadata = %v", msg.Metadata)
			}
		})
	}
}

// Spec: Pre-Send Context Check — the current round's provider usage is a floor.
func TestPreSendContextCheck_ProviderUsageFloor(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{name: Echo}]
    usage: {inputTokens: 960, outputTokens: 5}
  - text: unreachable
`)
	rec := &recorder{}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{&echoTool{name: "Echo"}}, ContextWindow: 1000})
	res := mustRun(t, a, context.Background(), "hi", rec.opts())
	if res.StopReason != agent.StopContextLimit || len(rec.ofType(agent.EventProviderRequest)) != 1 {
		t.Fatalf("result = %+v", res)
	}
	if got := lastAssistant(t, a.History()).Metadata["providerUsageFloor"]; got != 965 {
		t.Fatalf("providerUsageFloor = %v, want 965", got)
	}
}

// Spec: Pre-Send Context Check — "before each provider.chat() call": the forced final
// summary at the round cap is checked too, and is not sent past the guard.
func TestPreSendContextCheck_GuardsForcedSummary(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{name: Echo}]
    usage: {inputTokens: 960, outputTokens: 5}
  - when: {purpose: final_summary}
    text: unreachable
`)
	rec := &recorder{}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{&echoTool{name: "Echo"}}, ContextWindow: 1000,
		MaxRounds: agent.Rounds(1)})
	res := mustRun(t, a, context.Background(), "hi", rec.opts())
	if calls := len(rec.ofType(agent.EventProviderRequest)); calls != 1 {
		t.Fatalf("provider calls = %d, want 1 (the summary call must be blocked)", calls)
	}
	msg := lastAssistant(t, a.History())
	if res.StopReason != agent.StopContextLimit || res.FinalSummary || res.Rounds != 1 || res.Response != msg.Text() {
		t.Fatalf("result = %+v", res)
	}
	if msg.Metadata["errorCode"] != agent.ErrorCodeContextExceeded || msg.Metadata["providerUsageFloor"] != 965 {
		t.Fatalf("diagnostic metadata = %v", msg.Metadata)
	}
}
