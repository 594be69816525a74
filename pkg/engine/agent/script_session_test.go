package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Acceptance 9: over a scripted 3-round session, the script provider streams exactly the
// text it returns as each round's final message.
func TestScriptProvider_ThreeRoundSessionStreamsFinalText(t *testing.T) {
	p := scriptProvider(t, `
chunkSize: 3
turns:
  - text: "I will read the file first."
    toolCalls: [{id: call_0, name: Echo, input: {path: a}}]
  - text: "Now the second file, ünïcödé included."
    chunks: ["Now the ", "second file, ", "ünïcödé included."]
    toolCalls: [{id: call_0, name: Echo, input: {path: b}}]
  - text: "Both files say hello."
    chunkSize: 0
`)
	rec := &recorder{}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{&echoTool{name: "Echo"}}})
	res := mustRun(t, a, context.Background(), "compare the files", rec.opts())
	if res.Rounds != 3 || res.StopReason != agent.StopCompleted {
		t.Fatalf("result = %+v", res)
	}
	perRound := map[int]*strings.Builder{}
	for _, e := range rec.ofType(agent.EventProviderStreamRawDelta) {
		if perRound[e.Round] == nil {
			perRound[e.Round] = &strings.Builder{}
		}
		perRound[e.Round].WriteString(e.Delta.Delta)
	}
	committed := rec.ofType(agent.EventAssistantMessageCommitted)
	if len(committed) != 3 {
		t.Fatalf("committed assistant messages = %d", len(committed))
	}
	var texts []string
	for _, e := range committed {
		streamed := perRound[e.Round].String()
		if streamed != e.Message.Text() {
			t.Fatalf("round %d streamed %q but committed %q", e.Round, streamed, e.Message.Text())
		}
		texts = append(texts, streamed)
	}
	if got, want := strings.Join(rec.deltas, ""), strings.Join(texts, "\n\n"); got != want {
		t.Fatalf("run text deltas %q, want %q", got, want)
	}
	if res.Response != "Both files say hello." {
		t.Fatalf("response = %q", res.Response)
	}
	if len(rec.ofType(agent.EventProviderStreamRawDelta)) < 10 {
		t.Fatal("text was not streamed in chunks")
	}
}
