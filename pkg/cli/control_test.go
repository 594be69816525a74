package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

func seqIDs() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("%d", n) }
}

// waitFor yields until buf holds s (the request was written).
func waitFor(buf *syncBuffer, s string) {
	for !strings.Contains(buf.String(), s) {
		runtime.Gosched()
	}
}

// A request still waiting when stdin ends fails (nobody can answer it), as do later ones;
// a cancelled request is withdrawn with control_cancel_request.
func TestControllerCloseAndCancel(t *testing.T) {
	var buf syncBuffer
	c := newController(output.New(&buf, output.FormatStreamJSON, seqIDs()), seqIDs())
	errs := make(chan error, 1)
	go func() {
		_, err := c.request(context.Background(), map[string]string{"subtype": "can_use_tool"})
		errs <- err
	}()
	waitFor(&buf, `"request_id":"req_1"`)
	c.close()
	if err := <-errs; !errors.Is(err, errInputClosed) {
		t.Fatalf("pending request: %v", err)
	}
	if _, err := c.request(context.Background(), map[string]string{"subtype": "x"}); !errors.Is(err, errInputClosed) {
		t.Fatalf("request after close: %v", err)
	}

	buf = syncBuffer{}
	c = newController(output.New(&buf, output.FormatStreamJSON, seqIDs()), seqIDs())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, err := c.request(ctx, map[string]string{"subtype": "hook_callback"})
		errs <- err
	}()
	waitFor(&buf, `"request_id":"req_1"`)
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	if !strings.Contains(buf.String(), `{"type":"control_cancel_request","request_id":"req_1"}`) {
		t.Fatalf("no cancel line: %s", buf.String())
	}
	if c.deliver(controlResponse{Subtype: "success", RequestID: "req_1"}) {
		t.Fatal("a late response was delivered to a withdrawn request")
	}
}

// The hook callback's answer is the hook's stdout (exit 0); an error answer is a failed
// hook, named by its callback id.
func TestHookCallbackExecutor(t *testing.T) {
	tests := []struct {
		name    string
		answer  controlResponse
		stdout  string
		errText string
	}{
		{"json output", controlResponse{Subtype: "success", Response: json.RawMessage(`{"decision":"block","reason":"r"}`)}, `{"decision":"block","reason":"r"}`, ""},
		{"no output", controlResponse{Subtype: "success"}, `{}`, ""},
		{"error", controlResponse{Subtype: "error", Error: "callback threw"}, "", "hook callback hook_7: the client answered with an error: callback threw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf syncBuffer
			c := newController(output.New(&buf, output.FormatStreamJSON, seqIDs()), seqIDs())
			go func() {
				waitFor(&buf, `"request_id":"req_1"`)
				tt.answer.RequestID = "req_1"
				c.deliver(tt.answer)
			}()
			cfg, err := sdkHooks(map[string][]sdkHookMatcher{"PreToolUse": {{Matcher: "Bash", HookCallbackIDs: []string{"hook_7"}}}})
			if err != nil {
				t.Fatal(err)
			}
			def := cfg[hook.PreToolUse][0].Hooks[0]
			resp, err := hookCallbackExecutor{c: c}.Execute(context.Background(), def,
				[]byte(`{"hook_event_name":"PreToolUse","tool_use_id":"toolu_1"}`))
			if tt.errText != "" {
				if err == nil || err.Error() != tt.errText {
					t.Fatalf("err %v, want %q", err, tt.errText)
				}
				return
			}
			if err != nil || resp.ExitCode != 0 || resp.Stdout != tt.stdout {
				t.Fatalf("response %+v, %v", resp, err)
			}
			var line struct {
				Request hookCallbackRequest `json:"request"`
			}
			if err := json.Unmarshal([]byte(strings.SplitN(buf.String(), "\n", 2)[0]), &line); err != nil {
				t.Fatal(err)
			}
			if line.Request.CallbackID != "hook_7" || line.Request.ToolUseID == nil || *line.Request.ToolUseID != "toolu_1" {
				t.Fatalf("request %+v", line.Request)
			}
		})
	}
	if _, err := sdkHooks(map[string][]sdkHookMatcher{"NoSuchEvent": {{HookCallbackIDs: []string{"h"}}}}); err == nil {
		t.Fatal("an unknown hook event was accepted")
	}
}

// Partial messages rebuilt from deltas: text and thinking blocks, then the committed
// message's tool_use blocks, in Anthropic's event order.
func TestPartialStreamEvents(t *testing.T) {
	var buf bytes.Buffer
	out := output.New(&buf, output.FormatStreamJSON, seqIDs())
	p := &partialStream{out: out, model: "m", newID: seqIDs()}
	p.delta("thinking", "hmm")
	p.delta("text", "a")
	p.delta("text", "b")
	p.message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("ab"),
		llm.ToolUsePart(llm.ToolCall{ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"/x"}`)})}})
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m struct {
			Type  string `json:"type"`
			Event struct {
				Type  string `json:"type"`
				Index *int   `json:"index"`
				Delta struct {
					Type, Text, Thinking, PartialJSON, StopReason string
				} `json:"delta"`
			} `json:"event"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		s := m.Event.Type
		if m.Type == "assistant" {
			s = "assistant"
		}
		if m.Event.Index != nil {
			s += fmt.Sprintf("#%d", *m.Event.Index)
		}
		got = append(got, s)
	}
	// Each block's assistant line comes before its content_block_stop, as Claude Code
	// writes them; a block closed before the message was committed gets it first.
	want := "message_start content_block_start#0 content_block_delta#0 content_block_stop#0 content_block_start#1 " +
		"content_block_delta#1 content_block_delta#1 assistant content_block_stop#1 content_block_start#2 content_block_delta#2 " +
		"assistant content_block_stop#2 message_delta message_stop"
	if strings.Join(got, " ") != want {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if !strings.Contains(buf.String(), `"partial_json":"{\"file_path\":\"/x\"}"`) || !strings.Contains(buf.String(), `"stop_reason":"tool_use"`) {
		t.Fatalf("tool_use block or stop reason missing: %s", buf.String())
	}
	// A message with neither deltas nor tool calls adds its assistant line only.
	buf.Reset()
	p.message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("x")}})
	if out := strings.TrimSpace(buf.String()); strings.Count(out, "\n") != 0 || !strings.HasPrefix(out, `{"type":"assistant"`) {
		t.Fatalf("unexpected lines: %s", buf.String())
	}
}
