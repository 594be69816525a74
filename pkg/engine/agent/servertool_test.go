package agent_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

type forwardedUse struct {
	round int
	use   llm.ServerToolUse
}

// Hosted tool use reported by the provider reaches RunOptions.OnServerToolUse with the
// round of the call, keeps the idle timer alive, and adds nothing to history.
func TestServerToolUseForwardedPerRound(t *testing.T) {
	search := func(id, query string) llm.ServerToolUse {
		return llm.ServerToolUse{ID: id, Name: "web_search", Input: json.RawMessage(`{"query":"` + query + `"}`)}
	}
	timer := &fakeTimer{}
	p := &funcProvider{}
	p.reply = func(_ context.Context, n int, _ llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
		switch n {
		case 1:
			cb.ServerToolUse(search("srv-1", "go 1.26"))
			return llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{
				llm.ToolUsePart(llm.ToolCall{ID: "call-1", Name: "Echo", Input: json.RawMessage(`{}`)})}},
				StopReason: llm.StopReasonToolUse}, nil
		default:
			cb.ServerToolUse(search("srv-2", "go 1.27"))
			cb.ServerToolUse(llm.ServerToolUse{ID: "srv-3", Name: "web_fetch", Input: json.RawMessage(`{"url":"https://go.dev"}`)})
			return textResponse("done"), nil
		}
	}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{&echoTool{name: "Echo"}},
		IdleTimeout: 30 * time.Second, NewTimer: timer.start})
	var got []forwardedUse
	res := mustRun(t, a, context.Background(), "search", agent.RunOptions{
		OnServerToolUse: func(round int, u llm.ServerToolUse) { got = append(got, forwardedUse{round, u}) },
	})
	want := []forwardedUse{
		{1, search("srv-1", "go 1.26")},
		{2, search("srv-2", "go 1.27")},
		{2, llm.ServerToolUse{ID: "srv-3", Name: "web_fetch", Input: json.RawMessage(`{"url":"https://go.dev"}`)}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("forwarded %+v, want %+v", got, want)
	}
	if timer.resets != 3 {
		t.Fatalf("timer resets = %d, want one per hosted tool use (3)", timer.resets)
	}
	if res.Response != "done" || !reflect.DeepEqual(res.ToolsExecuted, []string{"Echo"}) {
		t.Fatalf("result %+v: hosted tools are not executed tools", res)
	}
}

// A run without the option still works when the provider reports hosted tool use.
func TestServerToolUseWithoutObserver(t *testing.T) {
	p := &funcProvider{}
	p.reply = func(_ context.Context, _ int, _ llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
		cb.ServerToolUse(llm.ServerToolUse{ID: "srv-1", Name: "web_search", Input: json.RawMessage(`{"query":"q"}`)})
		return textResponse("ok"), nil
	}
	a := newAgent(t, agent.Config{Provider: p})
	if res := mustRun(t, a, context.Background(), "go", agent.RunOptions{}); res.Response != "ok" || res.StopReason != agent.StopCompleted {
		t.Fatalf("result %+v", res)
	}
}
