package anthropic

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// TestLive talks to the real API. It runs only when ANTHROPIC_API_KEY is set
// (ROBOTA_LIVE_ANTHROPIC_MODEL picks the model, default claude-haiku-4-5).
func TestLive(t *testing.T) {
	if os.Getenv(APIKeyEnv) == "" {
		t.Skip("ANTHROPIC_API_KEY not set; skipping the live Anthropic test")
	}
	model := os.Getenv("ROBOTA_LIVE_ANTHROPIC_MODEL")
	if model == "" {
		model = "claude-haiku-4-5"
	}
	p, err := New(Options{Model: model, IdleTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var streamed strings.Builder
	resp, err := p.Chat(ctx, llm.ChatRequest{MaxTokens: 64, Messages: []llm.Message{
		llm.NewSystemMessage("You answer with one word."),
		llm.NewUserMessage("Reply with the word pong."),
	}}, llm.Callbacks{OnTextDelta: func(d string) { streamed.WriteString(d) }})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() == "" || resp.Message.Text() != streamed.String() {
		t.Fatalf("text %q streamed %q", resp.Message.Text(), streamed.String())
	}
	if u := resp.Message.Usage; u == nil || u.InputTokens == 0 || u.OutputTokens == 0 {
		t.Fatalf("usage %+v", resp.Message.Usage)
	}

	tool := llm.ToolSchema{Name: "get_weather", Description: "Get the weather for a city",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	resp, err = p.Chat(ctx, llm.ChatRequest{MaxTokens: 256, Tools: []llm.ToolSchema{tool}, Messages: []llm.Message{
		llm.NewUserMessage("Use the get_weather tool for Paris."),
	}}, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if resp.StopReason != llm.StopReasonToolUse || len(calls) == 0 || calls[0].Name != "get_weather" || !json.Valid(calls[0].Input) {
		t.Fatalf("stop %s calls %+v", resp.StopReason, calls)
	}
}
