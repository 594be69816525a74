package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Spec: Partial Content Preservation on Abort + getMessagesForAPI.
func TestPartialContentPreservationOnAbort_StreamingCommitsInterrupted(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - text: "one two three four five"
  - when: {lastUserContains: again}
    text: "second answer"
`)
	a := newAgent(t, agent.Config{Provider: p})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []string
	res, err := a.Run(ctx, "start", agent.RunOptions{OnTextDelta: func(d string) {
		seen = append(seen, d)
		if len(seen) == 2 {
			cancel() // abort while the provider is streaming
		}
	}})
	if err != nil {
		t.Fatalf("Run returned an error on abort: %v", err)
	}
	if !res.Interrupted || res.StopReason != agent.StopInterrupted {
		t.Fatalf("result = %+v, want interrupted", res)
	}
	h := a.History()
	last := lastAssistant(t, h)
	if last.State != llm.StateInterrupted || last.Text() != "one two " {
		t.Fatalf("committed %q state %s; want partial %q interrupted", last.Text(), last.State, "one two ")
	}
	if res.Response != "one two " {
		t.Fatalf("response = %q", res.Response)
	}

	// getMessagesForAPI annotates the interrupted message for the next call.
	api := a.Store().MessagesForAPI()
	if got := api[len(api)-1].Text(); got != "one two \n\n"+llm.InterruptedSuffix {
		t.Fatalf("API text = %q", got)
	}
	if h[len(h)-1].Text() != "one two " {
		t.Fatal("MessagesForAPI changed the stored history")
	}
	rec := &recorder{}
	res = mustRun(t, a, context.Background(), "again", rec.opts())
	if res.Response != "second answer" {
		t.Fatalf("second run response = %q", res.Response)
	}
	req := rec.ofType(agent.EventProviderRequest)[0].Request
	found := false
	for _, m := range req.Messages {
		if strings.HasSuffix(m.Text(), llm.InterruptedSuffix) {
			found = true
		}
	}
	if !found {
		t.Fatal("next provider request does not carry the interruption suffix")
	}
}

// Spec: Partial Content Preservation on Abort — abort during a tool batch.
func TestPartialContentPreservationOnAbort_BatchSkipsQueuedTools(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran []string
	first := funcTool{name: "First", fn: func(context.Context, json.RawMessage) llm.ToolResult {
		ran = append(ran, "First")
		cancel() // the user aborts while the first tool runs
		return llm.ToolSuccess("first done")
	}}
	later := funcTool{name: "Later", fn: func(context.Context, json.RawMessage) llm.ToolResult {
		ran = append(ran, "Later")
		return llm.ToolSuccess("should not run")
	}}
	p := scriptProvider(t, `
turns:
  - text: working
    toolCalls: [{id: t1, name: First}, {id: t2, name: Later}, {id: t3, name: Later}]
  - text: never reached
`)
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{first, later}, MaxConcurrency: 1})
	res := mustRun(t, a, ctx, "go", agent.RunOptions{})
	if !res.Interrupted || !slices.Equal(ran, []string{"First"}) || !slices.Equal(res.ToolsExecuted, []string{"First"}) {
		t.Fatalf("interrupted=%v ran=%v toolsExecuted=%v", res.Interrupted, ran, res.ToolsExecuted)
	}
	results := toolMessages(a.History())
	want := []string{"first done", agent.InterruptedToolText, agent.InterruptedToolText}
	if len(results) != 3 {
		t.Fatalf("tool messages = %+v", results)
	}
	for i, r := range results {
		if r.Content != want[i] {
			t.Fatalf("tool %d content %q, want %q", i, r.Content, want[i])
		}
	}
	if p.Remaining("") != 1 {
		t.Fatal("the loop called the provider again after the abort")
	}
}

// Spec: Partial Content Preservation on Abort — abort while tool calls are streaming.
func TestPartialContentPreservationOnAbort_ToolCallsStreamingSkipsAll(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - text: "calling"
    toolCalls: [{id: x, name: Echo}, {id: y, name: Echo}]
    hang: true
`)
	echo := &echoTool{name: "Echo"}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{echo}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := mustRun(t, a, ctx, "go", agent.RunOptions{OnTextDelta: func(string) { cancel() }})
	if !res.Interrupted || echo.count() != 0 {
		t.Fatalf("interrupted=%v echo ran %d", res.Interrupted, echo.count())
	}
	h := a.History()
	msg := h[1]
	if msg.State != llm.StateInterrupted || len(msg.ToolCalls()) != 2 {
		t.Fatalf("assistant = %+v", msg)
	}
	for _, r := range toolMessages(h) {
		if r.Content != agent.InterruptedToolText || !r.IsError {
			t.Fatalf("tool result = %+v", r)
		}
	}
}

// Spec: Abort Execution Support — an abort before the run starts commits nothing from the
// provider and still returns normally.
func TestAbortExecutionSupport_CancelledBeforeRun(t *testing.T) {
	p := scriptProvider(t, "turns:\n  - text: hi\n")
	a := newAgent(t, agent.Config{Provider: p})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := mustRun(t, a, ctx, "go", agent.RunOptions{})
	if !res.Interrupted || res.Rounds != 0 || p.Remaining("") != 1 {
		t.Fatalf("result = %+v, remaining turns %d", res, p.Remaining(""))
	}
	if h := a.History(); len(h) != 1 || h[0].Role != llm.RoleUser {
		t.Fatalf("history = %+v", h)
	}
}
