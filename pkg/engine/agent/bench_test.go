package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

const benchScript = `
turns:
  - text: "Reading the next file."
    toolCalls: [{id: call_0, name: Noop, input: {file_path: /src/main.go}}]
    usage: {inputTokens: 1000, outputTokens: 20}
    repeat: true
  - when: {purpose: final_summary}
    text: "Summary of what was read."
    usage: {inputTokens: 1200, outputTokens: 10}
    repeat: true
`

const benchRounds = 10 // tool rounds; +1 forced summary call = 11 provider calls per run

var noop = funcTool{name: "Noop", fn: func(context.Context, json.RawMessage) llm.ToolResult { return llm.ToolSuccess("ok") }}

// BenchmarkLoopRoundOverhead measures one Run of 10 tool rounds plus the forced summary
// with the script provider at zero delay (loop), against the same 11 provider calls made
// directly (provider_only_baseline). ns/round is ns/op divided by the 11 provider calls.
func BenchmarkLoopRoundOverhead(b *testing.B) {
	p, err := script.New([]byte(benchScript), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("loop", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a, err := agent.New(agent.Config{Provider: p, Tools: []llm.Tool{noop}, MaxRounds: agent.Rounds(benchRounds), SystemPrompt: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			res, _ := a.Run(context.Background(), "read everything", agent.RunOptions{
				OnTextDelta: func(string) {}, OnEvent: func(agent.Event) {},
			})
			if res.Rounds != benchRounds || !res.FinalSummary {
				b.Fatalf("rounds = %d", res.Rounds)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchRounds+1)), "ns/round")
	})
	b.Run("provider_only_baseline", func(b *testing.B) {
		req := llm.ChatRequest{Messages: []llm.Message{llm.NewSystemMessage("bench"), llm.NewUserMessage("read everything")}, Tools: []llm.ToolSchema{noop.Schema()}}
		final := req
		final.Tools, final.Purpose = nil, llm.PurposeFinalSummary
		cb := llm.Callbacks{OnTextDelta: func(string) {}}
		b.ReportAllocs()
		for b.Loop() {
			for range benchRounds {
				if _, err := p.Chat(context.Background(), req, cb); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := p.Chat(context.Background(), final, cb); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchRounds+1)), "ns/round")
	})
}
