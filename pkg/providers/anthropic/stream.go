package anthropic

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/transport"
)

type blockKind int

const (
	kindOther blockKind = iota
	kindText
	kindThinking
	kindRedacted
	kindToolUse
	kindServerToolUse
	kindServerToolResult
)

// block is one content block being streamed.
type block struct {
	kind      blockKind
	text      strings.Builder // text, thinking, or partial tool-input JSON
	signature string          // thinking signature, or redacted_thinking data
	id, name  string          // tool_use / server_tool_use
	toolUseID string          // server tool result
	result    anthropic.ContentBlockStartEventContentBlockUnionContent
	done      bool
}

// assembler folds stream events into one assistant message.
type assembler struct {
	provider   string
	cb         llm.Callbacks
	onServer   func(ServerToolUse)
	attempt    int
	blocks     map[int64]*block
	serverUses map[string]*ServerToolUse
	serverIDs  []string
	msgID      string
	model      string
	stopReason string
	usage      anthropic.MessageDeltaUsage
	delivered  bool
	stopped    bool
	sequence   *int64 // shared by the attempts of one call, so payload order is total
}

func newAssembler(provider string, cb llm.Callbacks, onServer func(ServerToolUse), sequence *int64) *assembler {
	return &assembler{provider: provider, cb: cb, onServer: onServer, sequence: sequence,
		blocks: map[int64]*block{}, serverUses: map[string]*ServerToolUse{}}
}

func (a *assembler) add(ev anthropic.MessageStreamEventUnion) {
	if a.cb.OnRawPayload != nil {
		*a.sequence++
		a.cb.RawPayload(llm.RawPayloadEvent{Provider: a.provider, APISurface: APISurface,
			PayloadKind: llm.PayloadStreamEvent, Sequence: *a.sequence, Payload: json.RawMessage(ev.RawJSON()),
			Metadata: map[string]any{"event": ev.Type, "attempt": a.attempt}})
	}
	switch ev.Type {
	case "message_start":
		a.msgID, a.model = ev.Message.ID, string(ev.Message.Model)
		u := ev.Message.Usage
		a.usage.InputTokens, a.usage.OutputTokens = u.InputTokens, u.OutputTokens
		a.usage.CacheCreationInputTokens, a.usage.CacheReadInputTokens = u.CacheCreationInputTokens, u.CacheReadInputTokens
	case "content_block_start":
		a.start(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		a.delta(ev.Index, ev.Delta)
	case "content_block_stop":
		if b := a.blocks[ev.Index]; b != nil {
			b.done = true
			a.finishServerBlock(b)
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stopReason = string(ev.Delta.StopReason)
		}
		// Usage in message_delta is cumulative; counts it omits keep their start value.
		u := ev.Usage
		a.usage.OutputTokens = u.OutputTokens
		if u.JSON.InputTokens.Valid() {
			a.usage.InputTokens = u.InputTokens
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			a.usage.CacheCreationInputTokens = u.CacheCreationInputTokens
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			a.usage.CacheReadInputTokens = u.CacheReadInputTokens
		}
		if u.JSON.ServerToolUse.Valid() {
			a.usage.ServerToolUse = u.ServerToolUse
		}
	case "message_stop":
		a.stopped = true
	}
}

func (a *assembler) start(index int64, cb anthropic.ContentBlockStartEventContentBlockUnion) {
	b := &block{}
	a.blocks[index] = b
	switch cb.Type {
	case "text":
		b.kind = kindText
		a.appendText(b, cb.Text)
	case "thinking":
		b.kind = kindThinking
		b.signature = cb.Signature
		a.appendThinking(b, cb.Thinking)
	case "redacted_thinking":
		b.kind, b.signature = kindRedacted, cb.Data
	case "tool_use":
		b.kind, b.id, b.name = kindToolUse, cb.ID, cb.Name
		b.text.WriteString(startInput(cb))
	case "server_tool_use":
		b.kind, b.id, b.name = kindServerToolUse, cb.ID, cb.Name
		b.text.WriteString(startInput(cb))
	case "web_search_tool_result", "web_fetch_tool_result":
		b.kind, b.toolUseID, b.result = kindServerToolResult, cb.ToolUseID, cb.Content
	}
}

// startInput is the input a tool block starts with; "{}" is the usual placeholder that
// input_json_delta events replace.
func startInput(cb anthropic.ContentBlockStartEventContentBlockUnion) string {
	raw := strings.TrimSpace(cb.JSON.Input.Raw())
	if raw == "" || raw == "{}" || raw == "null" {
		return ""
	}
	return raw
}

func (a *assembler) delta(index int64, d anthropic.MessageStreamEventUnionDelta) {
	b := a.blocks[index]
	if b == nil { // a delta without its start: keep going, the API never does this
		return
	}
	switch d.Type {
	case "text_delta":
		a.appendText(b, d.Text)
	case "thinking_delta":
		a.appendThinking(b, d.Thinking)
	case "signature_delta":
		b.signature += d.Signature
	case "input_json_delta":
		b.text.WriteString(d.PartialJSON)
	}
}

func (a *assembler) appendText(b *block, s string) {
	if s == "" {
		return
	}
	b.text.WriteString(s)
	if a.cb.OnTextDelta != nil {
		a.delivered = true
		a.cb.TextDelta(s)
	}
}

func (a *assembler) appendThinking(b *block, s string) {
	if s == "" {
		return
	}
	b.text.WriteString(s)
	if a.cb.OnThinkingDelta != nil {
		a.delivered = true
		a.cb.ThinkingDelta(s)
	}
}

// finishServerBlock records hosted-tool use: the call when its input is complete (the
// per-call callback is told then, as the search starts), the outcome when its result
// block ends (then Options.OnServerToolUse is told, with the results).
func (a *assembler) finishServerBlock(b *block) {
	switch b.kind {
	case kindServerToolUse:
		input := transport.ToolInput(b.text.String())
		use := &ServerToolUse{ID: b.id, Name: b.name, Input: input}
		var args struct {
			Query string `json:"query"`
			URL   string `json:"url"`
		}
		_ = json.Unmarshal(input, &args)
		use.Query, use.Target = args.Query, args.URL
		a.serverUses[b.id] = use
		a.serverIDs = append(a.serverIDs, b.id)
		// The hosted tool runs (and is billed) now; a retried call would run it again and
		// report it twice, so this stream is delivered like one that showed text.
		a.delivered = true
		a.cb.ServerToolUse(llm.ServerToolUse{ID: b.id, Name: b.name, Input: input})
	case kindServerToolResult:
		use := a.serverUses[b.toolUseID]
		if use == nil {
			use = &ServerToolUse{ID: b.toolUseID}
			a.serverUses[b.toolUseID] = use
			a.serverIDs = append(a.serverIDs, b.toolUseID)
		}
		r := b.result
		switch {
		case r.ErrorCode != "":
			use.Error = string(r.ErrorCode)
		case r.URL != "": // web_fetch result
			use.Results, use.URLs = 1, []string{r.URL}
		default:
			for _, item := range r.OfWebSearchResultBlockArray {
				use.Results++
				use.URLs = append(use.URLs, item.URL)
			}
		}
		if a.onServer != nil {
			a.onServer(*use)
		}
	}
}

// parts returns the message content in block order. Unfinished tool calls are dropped
// (their input is incomplete); hosted-tool blocks are not llm parts.
func (a *assembler) parts() []llm.Part {
	idx := make([]int64, 0, len(a.blocks))
	for i := range a.blocks {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	parts := []llm.Part{}
	for _, i := range idx {
		b := a.blocks[i]
		switch b.kind {
		case kindText:
			if b.text.Len() == 0 {
				continue
			}
			if n := len(parts); n > 0 && parts[n-1].Type == llm.PartText {
				parts[n-1].Text += b.text.String() // text split around citations reads as one
				continue
			}
			parts = append(parts, llm.TextPart(b.text.String()))
		case kindThinking:
			if b.text.Len() > 0 || b.signature != "" {
				parts = append(parts, llm.ThinkingPart(b.text.String(), b.signature))
			}
		case kindRedacted:
			parts = append(parts, llm.ThinkingPart("", b.signature))
		case kindToolUse:
			if b.done {
				parts = append(parts, llm.ToolUsePart(llm.ToolCall{ID: b.id, Name: b.name, Input: transport.ToolInput(b.text.String())}))
			}
		}
	}
	return parts
}

func (a *assembler) message(state llm.MessageState) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, State: state, Content: a.parts()}
	u := a.usage
	if u.InputTokens+u.OutputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens > 0 {
		m.Usage = &llm.Usage{
			InputTokens:              int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens:             int(u.OutputTokens),
			CacheCreationInputTokens: int(u.CacheCreationInputTokens),
			CacheReadInputTokens:     int(u.CacheReadInputTokens),
		}
	}
	md := map[string]any{"provider": a.provider}
	if a.model != "" {
		md["model"] = a.model
	}
	if a.msgID != "" {
		md["providerMessageId"] = a.msgID
	}
	if a.stopReason != "" {
		md["stopReason"] = a.stopReason
	}
	if n := u.ServerToolUse.WebSearchRequests; n > 0 {
		md["webSearchRequests"] = int(n)
	}
	if n := u.ServerToolUse.WebFetchRequests; n > 0 {
		md["webFetchRequests"] = int(n)
	}
	if len(a.serverIDs) > 0 {
		uses := make([]ServerToolUse, 0, len(a.serverIDs))
		for _, id := range a.serverIDs {
			uses = append(uses, *a.serverUses[id])
		}
		md["serverToolUse"] = uses
	}
	m.Metadata = md
	return m
}

// response is the message of a completed stream.
func (a *assembler) response() llm.ChatResponse {
	resp := llm.ChatResponse{Message: a.message(llm.StateComplete), StopReason: llm.StopReasonEndTurn}
	switch a.stopReason {
	case "tool_use":
		resp.StopReason = llm.StopReasonToolUse
	case "max_tokens", "model_context_window_exceeded":
		resp.StopReason = llm.StopReasonMaxTokens
	}
	if resp.StopReason == llm.StopReasonEndTurn && len(resp.Message.ToolCalls()) > 0 {
		resp.StopReason = llm.StopReasonToolUse
	}
	return resp
}

// partial is the message of a stream that did not complete.
func (a *assembler) partial() llm.ChatResponse {
	return llm.ChatResponse{Message: a.message(llm.StateInterrupted), StopReason: llm.StopReasonAborted}
}
