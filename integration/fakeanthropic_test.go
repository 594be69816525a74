package integration

// fakeMessagesAPI is a loopback stand-in for Anthropic's Messages API (POST /v1/messages,
// stream:true) for tests that run robota with --provider anthropic. It answers with
// Anthropic's SSE event sequence, choosing the reply from a rule table keyed on the
// request, and records every request so tests can assert on what robota sent.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeReply is one streamed assistant message: text (sent as the given chunks when
// Chunks is set, one text_delta each) and/or one tool_use block.
type fakeReply struct {
	Text   string
	Chunks []string
	// Tool is the tool_use block's name; its ID is "toolu_<lower name>_<n>".
	Tool  string
	Input map[string]any
	// Hang keeps the stream open after the text until the client goes away (an interrupt),
	// never sending message_stop.
	Hang bool
}

// fakeRule picks a reply: When sees the parsed request; the first matching rule wins.
type fakeRule struct {
	Name  string
	When  func(r fakeRequest) bool
	Reply fakeReply
}

// fakeRequest is what the server recorded of one request.
type fakeRequest struct {
	APIKey  string // the x-api-key header
	Version string // the anthropic-version header
	Body    fakeBody
	// LastUserText is the text of the last user message (string content or text blocks).
	LastUserText string
	// ToolResult is the last message's tool_result block, when the last message has one.
	ToolResult *fakeBlock
	Rule       string // the rule that answered ("" when none matched)
}

type fakeBody struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []fakeMessage `json:"messages"`
	Tools    []fakeTool    `json:"tools"`
}

type fakeMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type fakeTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type fakeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// blocks returns a message's content as blocks (a string content is one text block).
func (m fakeMessage) blocks() []fakeBlock {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []fakeBlock{{Type: "text", Text: s}}
	}
	var bs []fakeBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

type fakeMessagesAPI struct {
	t     *testing.T
	rules []fakeRule
	// ChunkDelay separates streamed text chunks, so they reach the client as separate reads.
	ChunkDelay time.Duration

	mu       sync.Mutex
	requests []fakeRequest
	toolSeq  int
	// cancelled counts hanging streams whose client went away.
	cancelled int
}

func newFakeMessagesAPI(t *testing.T, rules []fakeRule) *fakeMessagesAPI {
	return &fakeMessagesAPI{t: t, rules: rules, ChunkDelay: 20 * time.Millisecond}
}

// Cancelled is how many hanging streams the client abandoned.
func (f *fakeMessagesAPI) Cancelled() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cancelled
}

// Requests returns a copy of the recorded requests.
func (f *fakeMessagesAPI) Requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

func (f *fakeMessagesAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"fake: only POST /v1/messages"}}`, http.StatusNotFound)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := fakeRequest{APIKey: r.Header.Get("x-api-key"), Version: r.Header.Get("anthropic-version")}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, "fake: "+err.Error())
		return
	}
	if msgs := req.Body.Messages; len(msgs) > 0 {
		last := msgs[len(msgs)-1]
		for _, b := range last.blocks() {
			switch b.Type {
			case "text":
				req.LastUserText += b.Text
			case "tool_result":
				b := b
				req.ToolResult = &b
			}
		}
	}
	reply := fakeReply{Text: "fake: no rule matched"}
	for _, rule := range f.rules {
		if rule.When(req) {
			req.Rule, reply = rule.Name, rule.Reply
			break
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.toolSeq++
	seq := f.toolSeq
	f.mu.Unlock()
	if !req.Body.Stream {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"fake: only stream:true is served"}}`)
		return
	}
	f.stream(w, r, req.Body.Model, reply, seq)
}

// stream writes reply as the Messages API's SSE sequence, flushing after every event.
func (f *fakeMessagesAPI) stream(w http.ResponseWriter, r *http.Request, model string, reply fakeReply, seq int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, err := json.Marshal(data)
		if err != nil {
			f.t.Errorf("fake anthropic: marshal %s: %v", name, err)
			return
		}
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", seq), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 40, "output_tokens": 1},
	}})
	index := 0
	if reply.Text != "" {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""}})
		chunks := reply.Chunks
		if len(chunks) == 0 {
			chunks = []string{reply.Text}
		}
		for i, c := range chunks {
			if i > 0 && f.ChunkDelay > 0 {
				time.Sleep(f.ChunkDelay)
			}
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": c}})
		}
		if reply.Hang {
			// Bounded, so a client that never cancels fails its test instead of hanging it.
			select {
			case <-r.Context().Done():
				f.mu.Lock()
				f.cancelled++
				f.mu.Unlock()
			case <-time.After(runTimeout):
				f.t.Errorf("fake anthropic: a hanging stream was never cancelled")
			}
			return
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	stop := "end_turn"
	if reply.Tool != "" {
		stop = "tool_use"
		input, err := json.Marshal(reply.Input)
		if err != nil {
			f.t.Errorf("fake anthropic: marshal tool input: %v", err)
		}
		event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", strings.ToLower(reply.Tool), seq),
				"name": reply.Tool, "input": map[string]any{}}})
		// The input arrives split in two fragments, as the API streams it.
		half := len(input) / 2
		for _, part := range []string{"", string(input[:half]), string(input[half:])} {
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 15}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// userSays matches a request whose last user message's text contains marker.
func userSays(marker string) func(fakeRequest) bool {
	return func(r fakeRequest) bool { return r.ToolResult == nil && strings.Contains(r.LastUserText, marker) }
}

// resultOf matches a request whose last message carries the result of a tool_use the
// server issued for tool (IDs are "toolu_<lower tool>_<n>").
func resultOf(tool string) func(fakeRequest) bool {
	prefix := "toolu_" + strings.ToLower(tool) + "_"
	return func(r fakeRequest) bool {
		return r.ToolResult != nil && strings.HasPrefix(r.ToolResult.ToolUseID, prefix)
	}
}
