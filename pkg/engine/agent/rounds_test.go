package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

const loopingScript = `
turns:
  - toolCalls: [{name: Echo, input: {}}]
    repeat: true
`

// Spec: Execution Loop Error Handling — forced summary without tools at the round cap.
func TestExecutionLoopErrorHandling_MaxRoundsForcedSummary(t *testing.T) {
	tests := []struct {
		name         string
		summaryTurn  string
		cfgRounds    *int
		runRounds    *int
		wantCalls    int
		wantResponse string
	}{
		{"summary text", `{when: {purpose: final_summary}, text: "Here is what I found."}`, nil, agent.Rounds(2), 3, "Here is what I found."},
		{"empty summary gives fallback", `{when: {purpose: final_summary}, thinking: "nothing"}`, nil, agent.Rounds(2), 3, agent.MaxRoundsFallbackText},
		{"throwing summary gives fallback", `{when: {purpose: final_summary}, error: {message: "boom"}}`, nil, agent.Rounds(2), 3, agent.MaxRoundsFallbackText},
		{"default cap is 10", `{when: {purpose: final_summary}, text: "sum"}`, nil, nil, 11, "sum"},
		{"run option overrides config", `{when: {purpose: final_summary}, text: "sum"}`, agent.Rounds(5), agent.Rounds(1), 2, "sum"},
		{"config cap applies", `{when: {purpose: final_summary}, text: "sum"}`, agent.Rounds(3), nil, 4, "sum"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := scriptProvider(t, loopingScript+"  - "+tc.summaryTurn+"\n")
			rec := &recorder{}
			echo := &echoTool{name: "Echo"}
			a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{echo}, SystemPrompt: "SYS", MaxRounds: tc.cfgRounds})
			opts := rec.opts()
			opts.MaxRounds = tc.runRounds
			res, err := a.Run(context.Background(), "go", opts)
			if err != nil {
				t.Fatalf("Run error: %v", err)
			}
			reqs := rec.ofType(agent.EventProviderRequest)
			if len(reqs) != tc.wantCalls {
				t.Fatalf("provider calls = %d, want %d", len(reqs), tc.wantCalls)
			}
			final := reqs[len(reqs)-1].Request
			if len(final.Tools) != 0 || final.Purpose != llm.PurposeFinalSummary {
				t.Fatalf("final call tools=%d purpose=%q", len(final.Tools), final.Purpose)
			}
			if final.Messages[0].Text() != "SYS" {
				t.Fatal("system message missing from the forced summary call")
			}
			synthetic := final.Messages[len(final.Messages)-1]
			if synthetic.Role != llm.RoleUser || !strings.Contains(synthetic.Text(), "maximum number of tool rounds") {
				t.Fatalf("synthetic message = %q", synthetic.Text())
			}
			for _, m := range a.History() {
				if m.ID == synthetic.ID {
					t.Fatal("synthetic user message kept in history")
				}
			}
			if res.Response != tc.wantResponse || res.StopReason != agent.StopMaxRounds || res.Err != nil {
				t.Fatalf("result = %+v", res)
			}
			if echo.count() != tc.wantCalls-1 {
				t.Fatalf("tool ran %d times, want %d", echo.count(), tc.wantCalls-1)
			}
			// The summary call is no model/tool round: Rounds stops at the cap.
			if res.Rounds != tc.wantCalls-1 || !res.FinalSummary {
				t.Fatalf("rounds = %d, final summary %v; want %d, true", res.Rounds, res.FinalSummary, tc.wantCalls-1)
			}
		})
	}
}

// Spec: Execution Loop Error Handling — 0 means unlimited rounds.
func TestExecutionLoopErrorHandling_ZeroMeansUnlimited(t *testing.T) {
	yaml := "turns:\n"
	for range 14 {
		yaml += "  - toolCalls: [{name: Echo}]\n"
	}
	yaml += "  - text: finally\n"
	p := scriptProvider(t, yaml)
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{&echoTool{name: "Echo"}}, MaxRounds: agent.Rounds(0)})
	res := mustRun(t, a, context.Background(), "go", agent.RunOptions{})
	if res.Rounds != 15 || res.Response != "finally" || res.StopReason != agent.StopCompleted {
		t.Fatalf("result = %+v", res)
	}
}

// Spec: Provider Error Recovery.
func TestProviderErrorRecovery_ReadableAssistantMessage(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - text: "Starting "
    error: {code: RATE_LIMIT_ERROR, message: "too many requests", statusCode: 429}
`)
	a := newAgent(t, agent.Config{Provider: p})
	res, err := a.Run(context.Background(), "go", agent.RunOptions{})
	if err != nil {
		t.Fatalf("Run error: %v", err)
	}
	if res.StopReason != agent.StopProviderError || !errors.Is(res.Err, llm.ErrRateLimit) {
		t.Fatalf("result = %+v", res)
	}
	msg := lastAssistant(t, a.History())
	if !strings.HasPrefix(msg.Text(), "Starting \n\nError: the model request failed:") || !strings.Contains(msg.Text(), "too many requests") {
		t.Fatalf("assistant text = %q", msg.Text())
	}
	if msg.Metadata["errorCode"] != agent.ErrorCodeProvider || msg.Metadata["providerErrorCode"] != string(llm.CodeRateLimit) {
		t.Fatalf("metadata = %v", msg.Metadata)
	}
}

// Spec: Abort Execution Support — provider idle timeout, reset by each text delta.
func TestAbortExecutionSupport_IdleTimeoutResetByTextDelta(t *testing.T) {
	timer := &fakeTimer{}
	p := &funcProvider{}
	p.reply = func(ctx context.Context, _ int, _ llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
		cb.TextDelta("a")
		cb.TextDelta("b")
		timer.fire() // no activity afterwards: the idle timer expires
		<-ctx.Done()
		return llm.ChatResponse{StopReason: llm.StopReasonAborted}, ctx.Err()
	}
	a := newAgent(t, agent.Config{Provider: p, IdleTimeout: 30 * time.Second, NewTimer: timer.start})
	res := mustRun(t, a, context.Background(), "go", agent.RunOptions{})
	if timer.resets != 2 {
		t.Fatalf("timer resets = %d, want one per text delta (2)", timer.resets)
	}
	if res.StopReason != agent.StopProviderError || !errors.Is(res.Err, agent.ErrIdleTimeout) || res.Interrupted {
		t.Fatalf("result = %+v", res)
	}
	msg := lastAssistant(t, a.History())
	if !strings.HasPrefix(msg.Text(), "ab\n\nError: the model request failed:") || !strings.Contains(msg.Text(), "no response activity for 30s") {
		t.Fatalf("assistant text = %q", msg.Text())
	}
}

// A streaming tool-call input carries no text; its stream events are activity all the same.
func TestAbortExecutionSupport_IdleTimeoutResetByStreamEvents(t *testing.T) {
	timer := &fakeTimer{}
	p := &funcProvider{}
	p.reply = func(ctx context.Context, _ int, _ llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
		cb.RawPayload(llm.RawPayloadEvent{Provider: "fake", PayloadKind: llm.PayloadRequest, Payload: []byte(`{}`)})
		for range 3 {
			cb.RawPayload(llm.RawPayloadEvent{Provider: "fake", PayloadKind: llm.PayloadStreamEvent,
				Payload: []byte(`{"type":"content_block_delta","delta":{"type":"input_json_delta"}}`)})
		}
		return llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("ok")}},
			StopReason: llm.StopReasonEndTurn}, nil
	}
	a := newAgent(t, agent.Config{Provider: p, IdleTimeout: 30 * time.Second, NewTimer: timer.start})
	mustRun(t, a, context.Background(), "go", agent.RunOptions{})
	if timer.resets != 3 {
		t.Fatalf("timer resets = %d, want one per stream event (3), none for the request payload", timer.resets)
	}
}

type fakeTimer struct {
	fn      func()
	resets  int
	stopped bool
}

func (f *fakeTimer) start(_ time.Duration, fn func()) agent.Timer { f.fn = fn; return f }
func (f *fakeTimer) Reset(time.Duration) bool                     { f.resets++; return true }
func (f *fakeTimer) Stop() bool                                   { f.stopped = true; return true }
func (f *fakeTimer) fire()                                        { f.fn() }

// Spec: Streaming Round Separator.
func TestStreamingRoundSeparator_BeforeRoundTwoAndLater(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - {text: "r1", toolCalls: [{name: Echo}]}
  - {text: "r2", toolCalls: [{name: Echo}]}
  - {text: "r3"}
`)
	rec := &recorder{}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{&echoTool{name: "Echo"}}})
	mustRun(t, a, context.Background(), "go", rec.opts())
	if got := strings.Join(rec.deltas, "|"); got != "r1|\n\n|r2|\n\n|r3" {
		t.Fatalf("deltas = %q", got)
	}
	for _, ev := range rec.ofType(agent.EventProviderStreamRawDelta) {
		if ev.Delta.Delta == "\n\n" {
			t.Fatal("the separator is not a provider delta")
		}
	}
}
