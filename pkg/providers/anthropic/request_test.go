package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// historyRequest exercises every translation rule: system prompt, tool schemas, signed,
// unsigned and redacted thinking, tool calls with good and malformed input, tool results
// (merged into one user message), an empty result, and a follow-up user turn.
func historyRequest() llm.ChatRequest {
	temp := 0.2
	return llm.ChatRequest{
		Model:       "claude-haiku-4-5",
		MaxTokens:   2048,
		Temperature: &temp,
		Messages: []llm.Message{
			llm.NewSystemMessage("You are robota."),
			llm.NewUserMessage("List the Go files and read main.go"),
			llm.NewAssistantMessage([]llm.Part{
				llm.ThinkingPart("I should look around.", "sig-1"),
				llm.ThinkingPart("from another provider", ""),
				llm.ThinkingPart("", "redacted-data"),
				llm.TextPart("Looking."),
				llm.ToolUsePart(llm.ToolCall{ID: "toolu_1", Name: "Glob", Input: json.RawMessage(`{"pattern":"*.go"}`)}),
				llm.ToolUsePart(llm.ToolCall{ID: "toolu_2", Name: "Read", Input: json.RawMessage(`"main.go`)}),
			}, llm.StateComplete),
			llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "toolu_1", ToolName: "Glob", Content: "main.go\nutil.go"}, nil),
			llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "toolu_2", ToolName: "Read", Content: "", IsError: true}, nil),
			llm.NewSystemMessage("Keep answers short."),
			llm.NewUserMessage("Thanks, now summarise."),
		},
		Tools: []llm.ToolSchema{
			{Name: "Glob", Description: "Find files", InputSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"],"additionalProperties":false}`)},
			{Name: "Read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`)},
		},
	}
}

func TestRequestTranslationGolden(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, nil)
	if _, err := p.Chat(context.Background(), historyRequest(), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, srv.Requests()[0].Body, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteString("\n")
	golden := filepath.Join("testdata", "request.golden.json")
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Fatalf("request differs from %s (run with -update after checking):\n%s", golden, pretty.String())
	}
}

func TestPromptCachingCanBeDisabled(t *testing.T) {
	srv := ssetest.NewServer(t, replay(t, "text.sse"))
	p, _ := newTestProvider(t, srv, func(o *Options) { o.DisablePromptCaching = true })
	if _, err := p.Chat(context.Background(), historyRequest(), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(srv.Requests()[0].Body, []byte("cache_control")) {
		t.Fatalf("cache_control sent although disabled: %s", srv.Requests()[0].Body)
	}
}

func TestInvalidToolSchemaIsAValidationError(t *testing.T) {
	p, _ := newTestProvider(t, ssetest.NewServer(t), nil)
	req := userRequest("hi")
	req.Tools = []llm.ToolSchema{{Name: "Bad", InputSchema: json.RawMessage(`[1,2]`)}}
	if _, err := p.Chat(context.Background(), req, llm.Callbacks{}); llm.CodeOf(err) != llm.CodeValidation {
		t.Fatalf("err %v", err)
	}
}
