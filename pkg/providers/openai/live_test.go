package openai

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// TestLive talks to the real API (or OPENAI_BASE_URL). It runs only when OPENAI_API_KEY is
// set (ROBOTA_LIVE_OPENAI_MODEL picks the model, default gpt-4.1-mini).
func TestLive(t *testing.T) {
	if os.Getenv(APIKeyEnv) == "" {
		t.Skip("OPENAI_API_KEY not set; skipping the live OpenAI test")
	}
	model := os.Getenv("ROBOTA_LIVE_OPENAI_MODEL")
	if model == "" {
		model = "gpt-4.1-mini"
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
		t.Fatalf("usage %+v (include_usage chunk missing?)", resp.Message.Usage)
	}

	tool := llm.ToolSchema{Name: "get_weather", Description: "Get the weather for a city",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	resp, err = p.Chat(ctx, llm.ChatRequest{MaxTokens: 256, Tools: []llm.ToolSchema{tool}, Messages: []llm.Message{
		llm.NewUserMessage("Use the get_weather tool for Paris and for Tokyo."),
	}}, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if resp.StopReason != llm.StopReasonToolUse || len(calls) == 0 {
		t.Fatalf("stop %s calls %+v", resp.StopReason, calls)
	}
	for _, c := range calls {
		if c.Name != "get_weather" || c.ID == "" || !json.Valid(c.Input) {
			t.Fatalf("call %+v", c)
		}
	}
}
