package contextwin

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// history10k is a realistic 10,000-message history: user prompts, assistant text with tool
// calls, tool results, and provider usage on assistant messages.
func history10k() []llm.Message {
	msgs := make([]llm.Message, 0, 10_000)
	body := strings.Repeat("lorem ipsum dolor sit amet ", 8)
	for i := 0; len(msgs) < 10_000; i++ {
		switch i % 3 {
		case 0:
			msgs = append(msgs, llm.NewUserMessage(fmt.Sprintf("question %d: %s", i, body)))
		case 1:
			m := llm.NewAssistantMessage([]llm.Part{
				llm.TextPart("let me check " + body),
				llm.ToolUsePart(llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "Read", Input: json.RawMessage(`{"file_path":"/src/main.go"}`)}),
			}, llm.StateComplete)
			m.Usage = &llm.Usage{InputTokens: 1000 + i, OutputTokens: 50}
			msgs = append(msgs, m)
		default:
			msgs = append(msgs, llm.NewToolMessage(llm.ToolResultPart{ToolCallID: fmt.Sprintf("call_%d", i-1), Content: body + body}, nil))
		}
	}
	return msgs
}

// BenchmarkContextEstimate10k measures EstimateContextTokens on a 10,000-message history
// (estimate) against encoding/json serializing the same history (json_marshal_baseline):
// the cost a naive "serialize and count" estimate would pay, measured in the same run.
func BenchmarkContextEstimate10k(b *testing.B) {
	msgs := history10k()
	msgs = append(msgs, llm.NewUserMessage("latest prompt without usage"))
	b.Run("estimate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if EstimateContextTokens(msgs, 0).Tokens == 0 {
				b.Fatal("zero estimate")
			}
		}
	})
	b.Run("json_marshal_baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := json.Marshal(msgs)
			if err != nil || len(data) == 0 {
				b.Fatal(err)
			}
		}
	})
}
