package interactive_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// blockingTool runs until the test lets it end.
type blockingTool struct{ entered, leave chan struct{} }

func (b *blockingTool) Schema() llm.ToolSchema {
	return llm.ToolSchema{Name: "Block", Description: "test tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (b *blockingTool) Execute(ctx context.Context, _ json.RawMessage) llm.ToolResult {
	close(b.entered)
	<-b.leave
	return llm.ToolSuccess("unblocked")
}

// A client that joins mid-prompt reads the text streamed so far, the running tools and
// the queued prompt without replaying events (getStreamingText, getActiveTools,
// getPendingPrompt).
func TestLiveStateAccessors(t *testing.T) {
	const yaml = `
turns:
  - text: "Let me look."
    toolCalls: [{id: c1, name: Block, input: {}}]
  - text: "Done looking."
  - text: "Second answer."
`
	tool := &blockingTool{entered: make(chan struct{}), leave: make(chan struct{})}
	s := newTestSession(t, scriptProvider(t, yaml), Options{PermissionMode: "bypassPermissions", Tools: []llm.Tool{tool}})
	sub := s.Subscribe()
	if _, ok := s.PendingPrompt(); ok {
		t.Fatal("a queued prompt before any was submitted")
	}
	first, err := s.Submit("look")
	if err != nil {
		t.Fatal(err)
	}
	<-tool.entered
	if got := s.StreamingText(); got != "Let me look." {
		t.Fatalf("streaming text while the tool runs = %q", got)
	}
	active := s.ActiveTools()
	if len(active) != 1 || active[0].ToolName != "Block" || active[0].ToolUseID != "c1" {
		t.Fatalf("active tools = %+v, want the running Block call", active)
	}
	second, err := s.Submit("and then")
	if err != nil || !second.Queued {
		t.Fatalf("second prompt: %+v, %v", second, err)
	}
	if text, ok := s.PendingPrompt(); !ok || text != "and then" {
		t.Fatalf("pending prompt = %q, %v", text, ok)
	}
	close(tool.leave)
	until(t, sub, ends(first.PromptID))
	until(t, sub, ends(second.PromptID))
	if n := len(s.ActiveTools()); n != 0 {
		t.Fatalf("%d tools still active after the prompts ended", n)
	}
	if got := s.StreamingText(); got != "Second answer." {
		t.Fatalf("streaming text after the second prompt = %q, want only its own", got)
	}
	if _, ok := s.PendingPrompt(); ok {
		t.Fatal("a queued prompt after both ran")
	}
}
