package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/transport"
)

// toolCall is one tool call being assembled from deltas.
type toolCall struct {
	id, name string
	args     strings.Builder
	extra    json.RawMessage
}

// assembler folds chat.completion.chunk deltas into one assistant message.
type assembler struct {
	provider  string
	cb        llm.Callbacks
	attempt   int
	projector Projector

	calls     []*toolCall
	byIndex   map[int64]*toolCall
	byID      map[string]*toolCall
	last      *toolCall
	projected []llm.ToolCall

	text, thinking strings.Builder
	finish         string
	usage          *openai.CompletionUsage
	model, id      string
	delivered      bool
	sequence       *int64 // shared by the attempts of one call, so payload order is total
}

func newAssembler(provider string, cb llm.Callbacks, attempt int, sequence *int64) *assembler {
	return &assembler{provider: provider, cb: cb, attempt: attempt, sequence: sequence,
		byIndex: map[int64]*toolCall{}, byID: map[string]*toolCall{}}
}

func (a *assembler) add(chunk openai.ChatCompletionChunk) {
	if a.cb.OnRawPayload != nil {
		*a.sequence++
		a.cb.RawPayload(llm.RawPayloadEvent{Provider: a.provider, APISurface: APISurface,
			PayloadKind: llm.PayloadStreamEvent, Sequence: *a.sequence, Payload: json.RawMessage(chunk.RawJSON()),
			Metadata: map[string]any{"attempt": a.attempt}})
	}
	if chunk.ID != "" {
		a.id = chunk.ID
	}
	if chunk.Model != "" {
		a.model = chunk.Model
	}
	if chunk.JSON.Usage.Valid() {
		u := chunk.Usage
		a.usage = &u
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 { // only n=1 is requested
			continue
		}
		d := choice.Delta
		a.addThinking(reasoning(d))
		a.addContent(d.Content)
		a.addToolDeltas(d.ToolCalls)
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
			a.flush()
		}
	}
}

// reasoning reads the reasoning text servers put beside content: reasoning_content
// (vLLM, DeepSeek, LM Studio) or reasoning (Ollama, OpenRouter).
func reasoning(d openai.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		var s string
		if raw := extraField(d.JSON.ExtraFields, key); raw != "" && json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// extraField returns the raw JSON of a field the SDK does not model, or "" when it is
// absent or null. (The SDK marks undeclared fields invalid, so Valid cannot be used.)
func extraField(fields map[string]respjson.Field, key string) string {
	f, ok := fields[key]
	if !ok {
		return ""
	}
	if raw := f.Raw(); raw != "null" {
		return raw
	}
	return ""
}

func (a *assembler) addContent(s string) {
	if s == "" {
		return
	}
	if a.projector == nil {
		a.addText(s)
		return
	}
	a.apply(a.projector.Feed(s))
}

func (a *assembler) flush() {
	if a.projector != nil {
		a.apply(a.projector.Flush())
		a.projector = nil
	}
}

func (a *assembler) apply(p Projected) {
	a.addThinking(p.Thinking)
	a.addText(p.Text)
	a.projected = append(a.projected, p.ToolCalls...)
}

func (a *assembler) addText(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	if a.cb.OnTextDelta != nil {
		a.delivered = true
		a.cb.TextDelta(s)
	}
}

func (a *assembler) addThinking(s string) {
	if s == "" {
		return
	}
	a.thinking.WriteString(s)
	if a.cb.OnThinkingDelta != nil {
		a.delivered = true
		a.cb.ThinkingDelta(s)
	}
}

func (a *assembler) addToolDeltas(deltas []openai.ChatCompletionChunkChoiceDeltaToolCall) {
	for _, d := range deltas {
		c := a.route(d)
		if c.id == "" && d.ID != "" {
			c.id = d.ID
			a.byID[d.ID] = c
		}
		if c.name == "" { // some servers repeat the name on every delta
			c.name = d.Function.Name
		}
		c.args.WriteString(d.Function.Arguments)
		if raw := extraField(d.JSON.ExtraFields, "extra_content"); raw != "" {
			c.extra = json.RawMessage(raw)
		}
		a.last = c
	}
}

// route finds the call a delta belongs to (see the package guarantees).
func (a *assembler) route(d openai.ChatCompletionChunkChoiceDeltaToolCall) *toolCall {
	if d.JSON.Index.Valid() {
		c := a.byIndex[d.Index]
		if c != nil && d.ID != "" && c.id != "" && d.ID != c.id {
			c = nil // a server that numbers every complete call 0: a new id is a new call
		}
		if c == nil {
			c = a.newCall(d.ID)
			a.byIndex[d.Index] = c
		}
		return c
	}
	if d.ID != "" {
		if c := a.byID[d.ID]; c != nil {
			return c
		}
		return a.newCall(d.ID)
	}
	if a.last != nil {
		return a.last
	}
	return a.newCall("")
}

func (a *assembler) newCall(id string) *toolCall {
	c := &toolCall{id: id}
	if id != "" {
		a.byID[id] = c
	}
	a.calls = append(a.calls, c)
	return c
}

// toolCalls returns the assembled calls followed by the projected ones.
func (a *assembler) toolCalls() []llm.ToolCall {
	out := make([]llm.ToolCall, 0, len(a.calls)+len(a.projected))
	for i, c := range a.calls {
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		out = append(out, llm.ToolCall{ID: id, Name: c.name, Input: transport.ToolInput(c.args.String())})
	}
	return append(out, a.projected...)
}

func (a *assembler) message(state llm.MessageState, withCalls bool) llm.Message {
	parts := []llm.Part{}
	if a.thinking.Len() > 0 {
		parts = append(parts, llm.ThinkingPart(a.thinking.String(), ""))
	}
	if a.text.Len() > 0 {
		parts = append(parts, llm.TextPart(a.text.String()))
	}
	md := map[string]any{"provider": a.provider}
	if withCalls {
		extras := map[string]json.RawMessage{}
		for i, tc := range a.toolCalls() {
			parts = append(parts, llm.ToolUsePart(tc))
			if i < len(a.calls) && a.calls[i].extra != nil {
				extras[tc.ID] = a.calls[i].extra
			}
		}
		if len(extras) > 0 {
			md[ExtraContentKey] = extras
		}
	}
	m := llm.Message{Role: llm.RoleAssistant, State: state, Content: parts, Metadata: md}
	if a.model != "" {
		md["model"] = a.model
	}
	if a.id != "" {
		md["providerMessageId"] = a.id
	}
	if a.finish != "" {
		md["finishReason"] = a.finish
	}
	if u := a.usage; u != nil {
		m.Usage = &llm.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
			CacheReadInputTokens: int(u.PromptTokensDetails.CachedTokens)}
	}
	return m
}

func (a *assembler) response() llm.ChatResponse {
	resp := llm.ChatResponse{Message: a.message(llm.StateComplete, true), StopReason: llm.StopReasonEndTurn}
	switch {
	case a.finish == "length":
		resp.StopReason = llm.StopReasonMaxTokens
	case len(resp.Message.ToolCalls()) > 0:
		// Some servers finish a tool-call turn with "stop"; the calls decide.
		resp.StopReason = llm.StopReasonToolUse
	}
	return resp
}

// partial is the message of a stream that did not finish: its tool calls may be cut, so
// they are dropped.
func (a *assembler) partial() llm.ChatResponse {
	return llm.ChatResponse{Message: a.message(llm.StateInterrupted, false), StopReason: llm.StopReasonAborted}
}
