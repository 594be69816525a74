package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// returnBound is how long a Chat may take to return after its context ends, and hangBound
// how long any Chat may take at all, before the suite declares it hung. They are failure
// detectors, not speed requirements.
const (
	returnBound = 10 * time.Second
	hangBound   = 60 * time.Second
)

// Run runs the conformance suite against h.
func Run(t *testing.T, h Harness) {
	t.Helper()
	t.Run("StreamingText", func(t *testing.T) { testStreamingText(t, h) })
	t.Run("Thinking", func(t *testing.T) { testThinking(t, h) })
	t.Run("OneToolCall", func(t *testing.T) { testOneToolCall(t, h) })
	t.Run("ParallelToolCalls", func(t *testing.T) { testParallelToolCalls(t, h) })
	t.Run("ToolCallIDsReusedAcrossCalls", func(t *testing.T) { testReusedIDs(t, h) })
	t.Run("Usage", func(t *testing.T) { testUsage(t, h) })
	t.Run("AbortMidStream", func(t *testing.T) { testAbort(t, h) })
	t.Run("IdleTimeout", func(t *testing.T) { testIdleTimeout(t, h) })
	t.Run("ErrorMidStream", func(t *testing.T) { testErrorMidStream(t, h) })
	t.Run("ErrorMapping", func(t *testing.T) { testErrorMapping(t, h) })
}

// Request is the request the suite sends: a system prompt, a user turn and two tools.
func Request() llm.ChatRequest {
	schema := func(prop string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{"` + prop + `":{"type":"string"}},"required":["` + prop + `"]}`)
	}
	return llm.ChatRequest{
		Model: "conformance-model",
		Messages: []llm.Message{
			llm.NewSystemMessage("You are a test."),
			llm.NewUserMessage("hi"),
		},
		Tools: []llm.ToolSchema{
			{Name: "Read", Description: "Read a file", InputSchema: schema("file_path")},
			{Name: "Glob", Description: "Find files", InputSchema: schema("pattern")},
		},
		MaxTokens: 1024,
	}
}

// recorder collects what a call streamed.
type recorder struct {
	mu       sync.Mutex
	deltas   []string
	thinking strings.Builder
	onDelta  func(n int)
}

func (r *recorder) callbacks() llm.Callbacks {
	return llm.Callbacks{
		OnTextDelta: func(d string) {
			r.mu.Lock()
			r.deltas = append(r.deltas, d)
			n := len(r.deltas)
			hook := r.onDelta
			r.mu.Unlock()
			if hook != nil {
				hook(n)
			}
		},
		OnThinkingDelta: func(d string) {
			r.mu.Lock()
			r.thinking.WriteString(d)
			r.mu.Unlock()
		},
	}
}

func (r *recorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.deltas, "")
}

type result struct {
	resp llm.ChatResponse
	err  error
}

// chat calls p and fails the test if it does not return within returnBound of ctx ending.
func chat(t *testing.T, ctx context.Context, p llm.Provider, rec *recorder) (llm.ChatResponse, error) {
	t.Helper()
	done := make(chan result, 1)
	go func() {
		resp, err := p.Chat(ctx, Request(), rec.callbacks())
		done <- result{resp, err}
	}()
	var timeout <-chan time.Time
	ended := ctx.Done()
	hang := time.NewTimer(hangBound)
	defer hang.Stop()
	for {
		select {
		case r := <-done:
			return r.resp, r.err
		case <-ended:
			ended, timeout = nil, time.After(returnBound)
		case <-timeout:
			t.Fatalf("Chat did not return within %s after its context ended", returnBound)
		case <-hang.C:
			t.Fatalf("Chat did not return within %s", hangBound)
		}
	}
}

func testStreamingText(t *testing.T, h Harness) {
	chunks := []string{"Hello", ", wor", "ld!"}
	p := h.New(t, Scenario{Text: chunks, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 3}})
	rec := &recorder{}
	resp, err := chat(t, context.Background(), p, rec)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if strings.Join(rec.deltas, "|") != strings.Join(chunks, "|") {
		t.Fatalf("text deltas = %q, want %q", rec.deltas, chunks)
	}
	m := resp.Message
	if m.Role != llm.RoleAssistant || m.State != llm.StateComplete || resp.StopReason != llm.StopReasonEndTurn {
		t.Fatalf("role/state/stop = %s/%s/%s", m.Role, m.State, resp.StopReason)
	}
	if m.Text() != "Hello, world!" || len(m.ToolCalls()) != 0 {
		t.Fatalf("message text %q, tool calls %v", m.Text(), m.ToolCalls())
	}
}

func testThinking(t *testing.T, h Harness) {
	p := h.New(t, Scenario{Thinking: "Let me think.", Text: []string{"Done."}, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 5}})
	rec := &recorder{}
	resp, err := chat(t, context.Background(), p, rec)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if rec.thinking.String() != "Let me think." {
		t.Fatalf("thinking deltas = %q", rec.thinking.String())
	}
	m := resp.Message
	if m.Thinking() != "Let me think." || m.Text() != "Done." {
		t.Fatalf("thinking %q text %q", m.Thinking(), m.Text())
	}
	if len(m.Content) < 2 || m.Content[0].Type != llm.PartThinking {
		t.Fatalf("thinking must precede the text: %+v", m.Content)
	}
}

func testOneToolCall(t *testing.T, h Harness) {
	call := llm.ToolCall{ID: "call_read_1", Name: "Read", Input: json.RawMessage(`{"file_path":"/tmp/a.txt"}`)}
	p := h.New(t, Scenario{Text: []string{"I'll read it."}, ToolCalls: []llm.ToolCall{call},
		Usage: &llm.Usage{InputTokens: 50, OutputTokens: 20}})
	resp, err := chat(t, context.Background(), p, &recorder{})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if resp.StopReason != llm.StopReasonToolUse {
		t.Fatalf("stop reason %s, want tool_use", resp.StopReason)
	}
	if resp.Message.Text() != "I'll read it." {
		t.Fatalf("text %q", resp.Message.Text())
	}
	assertCalls(t, resp.Message.ToolCalls(), []llm.ToolCall{call})
}

func testParallelToolCalls(t *testing.T, h Harness) {
	calls := []llm.ToolCall{
		{ID: "call_a", Name: "Read", Input: json.RawMessage(`{"file_path":"/a.go"}`)},
		{ID: "call_b", Name: "Glob", Input: json.RawMessage(`{"pattern":"**/*.go"}`)},
	}
	p := h.New(t, Scenario{ToolCalls: calls, Usage: &llm.Usage{InputTokens: 50, OutputTokens: 30}})
	resp, err := chat(t, context.Background(), p, &recorder{})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if resp.StopReason != llm.StopReasonToolUse {
		t.Fatalf("stop reason %s", resp.StopReason)
	}
	assertCalls(t, resp.Message.ToolCalls(), calls)
}

func testReusedIDs(t *testing.T, h Harness) {
	first := llm.ToolCall{ID: "call_0", Name: "Read", Input: json.RawMessage(`{"file_path":"/a"}`)}
	second := llm.ToolCall{ID: "call_0", Name: "Glob", Input: json.RawMessage(`{"pattern":"*"}`)}
	usage := &llm.Usage{InputTokens: 5, OutputTokens: 5}
	p := h.New(t, Scenario{ToolCalls: []llm.ToolCall{first}, Usage: usage}, Scenario{ToolCalls: []llm.ToolCall{second}, Usage: usage})
	for _, want := range []llm.ToolCall{first, second} {
		resp, err := chat(t, context.Background(), p, &recorder{})
		if err != nil {
			t.Fatalf("Chat: %v", err)
		}
		assertCalls(t, resp.Message.ToolCalls(), []llm.ToolCall{want})
	}
}

func testUsage(t *testing.T, h Harness) {
	want := llm.Usage{InputTokens: 1200, OutputTokens: 45, CacheReadInputTokens: 1000}
	p := h.New(t, Scenario{Text: []string{"ok"}, Usage: &want})
	resp, err := chat(t, context.Background(), p, &recorder{})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if resp.Message.Usage == nil || *resp.Message.Usage != want {
		t.Fatalf("usage = %+v, want %+v", resp.Message.Usage, want)
	}
}

func testAbort(t *testing.T, h Harness) {
	chunks := []string{"Hello", " there", " friend"}
	p := h.New(t, Scenario{Text: chunks, Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{onDelta: func(n int) {
		if n == len(chunks) {
			cancel() // the user presses Esc while the model is mid-answer
		}
	}}
	resp, err := chat(t, ctx, p, rec)
	assertAborted(t, resp, err, rec)
	if resp.Message.Text() != "Hello there friend" {
		t.Fatalf("partial text %q, want everything streamed before the abort", resp.Message.Text())
	}
}

// errIdle is the cause the suite's idle timer cancels with, as the execution loop does.
var errIdle = errors.New("conformance: provider idle timeout")

func testIdleTimeout(t *testing.T, h Harness) {
	const idle = 150 * time.Millisecond
	p := h.New(t, Scenario{Text: []string{"Partial", " answer"}, Stall: true})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var mu sync.Mutex
	var timer *time.Timer
	rec := &recorder{onDelta: func(int) {
		mu.Lock()
		defer mu.Unlock()
		if timer == nil {
			timer = time.AfterFunc(idle, func() { cancel(errIdle) })
			return
		}
		timer.Reset(idle)
	}}
	resp, err := chat(t, ctx, p, rec)
	if !errors.Is(context.Cause(ctx), errIdle) {
		t.Fatalf("call ended by %v, not by the idle timer", context.Cause(ctx))
	}
	assertAborted(t, resp, err, rec)
}

func assertAborted(t *testing.T, resp llm.ChatResponse, err error, rec *recorder) {
	t.Helper()
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("aborted Chat returned error %v; want nil or context.Canceled", err)
	}
	if resp.StopReason != llm.StopReasonAborted {
		t.Fatalf("stop reason %q, want aborted", resp.StopReason)
	}
	streamed := rec.text()
	if streamed == "" {
		t.Fatal("nothing was streamed before the abort")
	}
	if resp.Message.Text() != streamed {
		t.Fatalf("partial message %q differs from the streamed text %q", resp.Message.Text(), streamed)
	}
	if resp.Message.Role != llm.RoleAssistant {
		t.Fatalf("partial message role %q", resp.Message.Role)
	}
}

func testErrorMidStream(t *testing.T, h Harness) {
	p := h.New(t, Scenario{Text: []string{"Partial ", "answer"}, Fail: &Failure{Message: "Overloaded"}})
	rec := &recorder{}
	resp, err := chat(t, context.Background(), p, rec)
	le := assertError(t, h, err, llm.ErrProvider, true)
	if le.Provider != h.Name {
		t.Fatalf("error provider %q, want %q", le.Provider, h.Name)
	}
	if rec.text() != "Partial answer" || resp.Message.Text() != "Partial answer" {
		t.Fatalf("partial text: streamed %q, returned %q", rec.text(), resp.Message.Text())
	}
}

func testErrorMapping(t *testing.T, h Harness) {
	tests := []struct {
		status      int
		want        error
		recoverable bool
	}{
		{http.StatusUnauthorized, llm.ErrAuthentication, false},
		{http.StatusForbidden, llm.ErrAuthentication, false},
		{http.StatusTooManyRequests, llm.ErrRateLimit, true},
		{http.StatusBadRequest, llm.ErrValidation, false},
		{http.StatusNotFound, llm.ErrModelNotAvailable, false},
		{http.StatusInternalServerError, llm.ErrProvider, true},
		{http.StatusServiceUnavailable, llm.ErrProvider, true},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			p := h.New(t, Scenario{Fail: &Failure{Status: tc.status, Message: "scripted failure", RetryAfter: time.Second}})
			rec := &recorder{}
			resp, err := chat(t, context.Background(), p, rec)
			le := assertError(t, h, err, tc.want, tc.recoverable)
			if le.StatusCode != tc.status {
				t.Fatalf("status code %d, want %d", le.StatusCode, tc.status)
			}
			if rec.text() != "" || resp.Message.Text() != "" || len(resp.Message.ToolCalls()) != 0 {
				t.Fatalf("failed request produced content: %+v", resp.Message)
			}
		})
	}
}

func assertError(t *testing.T, h Harness, err error, want error, recoverable bool) *llm.Error {
	t.Helper()
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	if !errors.Is(err, want) {
		t.Fatalf("error code %s, want %s (%v)", le.Code, llm.CodeOf(want), err)
	}
	if llm.IsRecoverable(err) != recoverable {
		t.Fatalf("recoverable = %v, want %v (%v)", llm.IsRecoverable(err), recoverable, err)
	}
	if le.Provider != h.Name {
		t.Fatalf("error provider %q, want %q", le.Provider, h.Name)
	}
	return le
}

func assertCalls(t *testing.T, got, want []llm.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("tool calls = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Name != want[i].Name || !JSONEqual(got[i].Input, want[i].Input) {
			t.Fatalf("tool call %d = {%s %s %s}, want {%s %s %s}", i,
				got[i].ID, got[i].Name, got[i].Input, want[i].ID, want[i].Name, want[i].Input)
		}
	}
}

// JSONEqual reports whether a and b hold the same JSON value.
func JSONEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}
