package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Issue 10 §5: "Maximum rounds reached" appears only when a round cap was set and reached.
// A run stopped by repeated calls to unregistered tools, whose final summary fails or says
// nothing, says why it stopped instead.
func TestFallbackNamesWhyTheRunStopped(t *testing.T) {
	ghost := llm.ToolCall{ID: "call_0", Name: "Ghost", Input: []byte(`{}`)}
	echo := llm.ToolCall{ID: "call_1", Name: "Echo", Input: []byte(`{}`)}
	tests := []struct {
		name       string
		call       llm.ToolCall
		rounds     *int
		summaryErr bool
		wantStop   agent.StopReason
		want       string
	}{
		{"unknown tools, empty summary, no cap", ghost, agent.Rounds(0), false, agent.StopUnknownTools, agent.UnknownToolsFallbackText},
		{"unknown tools, failed summary, no cap", ghost, agent.Rounds(0), true, agent.StopUnknownTools, agent.UnknownToolsFallbackText},
		{"unknown tools, failed summary, cap not reached", ghost, agent.Rounds(5), true, agent.StopUnknownTools, agent.UnknownToolsFallbackText},
		{"cap reached, empty summary", echo, agent.Rounds(2), false, agent.StopMaxRounds, agent.MaxRoundsFallbackText},
		{"cap reached, failed summary", echo, agent.Rounds(2), true, agent.StopMaxRounds, agent.MaxRoundsFallbackText},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &funcProvider{}
			p.reply = func(_ context.Context, _ int, req llm.ChatRequest, _ llm.Callbacks) (llm.ChatResponse, error) {
				if req.Purpose != llm.PurposeFinalSummary {
					return toolCallsResponse(tc.call), nil
				}
				if tc.summaryErr {
					return llm.ChatResponse{}, errors.New("boom")
				}
				return textResponse(""), nil
			}
			a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{&echoTool{name: "Echo"}}})
			res := mustRun(t, a, context.Background(), "go", agent.RunOptions{MaxRounds: tc.rounds})
			if res.StopReason != tc.wantStop || res.Response != tc.want {
				t.Fatalf("stop %s, response %q; want %s, %q", res.StopReason, res.Response, tc.wantStop, tc.want)
			}
			last := lastAssistant(t, a.History()).Text()
			if tc.wantStop != agent.StopMaxRounds && strings.Contains(last, "Maximum rounds") {
				t.Fatalf("history says %q without a cap reached", last)
			}
		})
	}
}
