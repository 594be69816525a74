package sessionlog

import (
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// A request whose messages extend the last one's in the same (append-only) array
// shares the copies already made of them and copies only its new messages; any other
// request is copied whole, and the caller's later changes never reach a copy.
func TestOwnSharesTheLastRequestsCopies(t *testing.T) {
	msg := func(text string) llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart(text)}, Metadata: map[string]any{"k": text}}
	}
	history := make([]llm.Message, 0, 8)
	history = append(history, msg("one"), msg("two"))
	tools := []llm.ToolSchema{{Name: "Read", InputSchema: []byte(`{"type":"object"}`)}}
	request := func(msgs []llm.Message, tools []llm.ToolSchema) agent.Event {
		return agent.Event{Type: agent.EventProviderRequest, Request: &agent.ProviderRequestData{Messages: msgs, Tools: tools}}
	}
	var memo ownMemo
	owned := func(ev agent.Event) *agent.ProviderRequestData {
		t.Helper()
		out, err := own(ev, &memo)
		if err != nil {
			t.Fatal(err)
		}
		return out.(agent.Event).Request
	}
	first := owned(request(history[:2:2], tools))
	history = append(history, msg("three"))
	second := owned(request(history[:3:3], tools))
	for i := range 2 {
		if &second.Messages[i].Content[0] != &first.Messages[i].Content[0] {
			t.Errorf("message %d was copied again", i)
		}
	}
	if &second.Messages[2].Content[0] == &history[2].Content[0] {
		t.Error("the new message was not copied")
	}
	if &second.Tools[0] != &first.Tools[0] || &first.Tools[0] == &tools[0] {
		t.Error("the same schemas were copied again, or not copied the first time")
	}
	// The caller changes what it logged last: the copies keep what was logged.
	history[2].Content[0].Text = "changed"
	history[2].Metadata["k"] = "changed"
	if got := second.Messages[2]; got.Content[0].Text != "three" || got.Metadata["k"] != "three" {
		t.Errorf("the copy changed with the caller's message: %+v", got)
	}
	// Another array (a request with an extra message, say) is copied whole.
	other := append([]llm.Message{msg("system")}, history[:3]...)
	third := owned(request(other, tools))
	for i := range third.Messages {
		if &third.Messages[i].Content[0] == &other[i].Content[0] {
			t.Errorf("message %d of another array is the caller's", i)
		}
	}
	if &third.Messages[1].Content[0] == &second.Messages[0].Content[0] {
		t.Error("another array's messages were taken from the last request's copies")
	}
	// A shorter request in the same array is not a continuation: copied whole.
	fourth := owned(request(other[:2:2], tools))
	if &fourth.Messages[0].Content[0] == &third.Messages[0].Content[0] {
		t.Error("a shorter request shared the last one's copies")
	}
}

// A resumed conversation (ContinueHistory) is the committed history: it is kept as given,
// not copied, and the agent's first request, whose messages are copies of the same values
// in the agent's own array, shares them too; a message of that request that is not one of
// the resumed conversation's (a new prompt) is copied.
func TestOwnKeepsTheResumedHistory(t *testing.T) {
	msg := func(text string) llm.Message {
		return llm.Message{ID: text, Role: llm.RoleUser, Content: []llm.Part{llm.TextPart(text)}, Metadata: map[string]any{"k": text}}
	}
	resumed := []llm.Message{msg("system"), msg("one"), msg("two")}
	var memo ownMemo
	out, err := own(ContinueHistory(resumed, nil), &memo)
	if err != nil {
		t.Fatal(err)
	}
	kept := out.(HistoryMutationData).Messages
	for i := range resumed {
		if &kept[i].Content[0] != &resumed[i].Content[0] {
			t.Errorf("resumed message %d was copied", i)
		}
	}
	// The agent holds its own array of the same message values, and adds the prompt.
	agentHistory := append(append([]llm.Message(nil), resumed...), msg("prompt"))
	ev, err := own(agent.Event{Type: agent.EventProviderRequest, Request: &agent.ProviderRequestData{Messages: agentHistory}}, &memo)
	if err != nil {
		t.Fatal(err)
	}
	req := ev.(agent.Event).Request
	for i := range resumed {
		if &req.Messages[i].Content[0] != &resumed[i].Content[0] {
			t.Errorf("request message %d, the resumed conversation's, was copied", i)
		}
	}
	if &req.Messages[3].Content[0] == &agentHistory[3].Content[0] {
		t.Error("the new prompt was not copied")
	}
	// A plain reset (a cleared or compacted history) is still copied.
	out, err = own(ResetHistory(resumed), &memo)
	if err != nil {
		t.Fatal(err)
	}
	if &out.(HistoryMutationData).Messages[0].Content[0] == &resumed[0].Content[0] {
		t.Error("a reset's messages were not copied")
	}
}
