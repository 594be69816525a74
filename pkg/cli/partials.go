package cli

import (
	"encoding/json"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// partialStream renders --include-partial-messages: the session's text and thinking
// deltas as Anthropic's raw streaming events (message_start, content_block_start,
// content_block_delta, content_block_stop, message_delta, message_stop), in stream_event
// lines. The provider layer hands the session deltas, not its raw events, so the events
// are rebuilt from them; the committed assistant message closes the stream and adds its
// tool_use blocks, whose arguments arrive whole (one input_json_delta). Not safe for
// concurrent use: one turn's event loop feeds it.
type partialStream struct {
	out   *output.Writer
	model string
	newID func() string

	open      bool   // message_start sent
	index     int    // index of the open block (or of the next one when kind is "")
	kind      string // "text", "thinking" or "" (no block open)
	messageID string
	messages  int // messages ended so far in this turn
}

// roundSeparator is the text delta the agent loop streams between two rounds' answers.
const roundSeparator = "\n\n"

// newPartialStream is the partial stream of a stream-json run with
// --include-partial-messages, nil otherwise.
func newPartialStream(o Options, out *output.Writer, model string, newID func() string) *partialStream {
	if !o.IncludePartialMessages || o.OutputFormat != "stream-json" {
		return nil
	}
	return &partialStream{out: out, model: model, newID: newID}
}

func (p *partialStream) emit(ev map[string]any) { p.out.StreamEvent(ev, "") }

func (p *partialStream) start() {
	if p.open {
		return
	}
	p.open, p.index, p.kind, p.messageID = true, 0, "", "msg_"+p.newID()
	p.emit(map[string]any{"type": "message_start", "message": map[string]any{
		"id": p.messageID, "type": "message", "role": "assistant", "model": p.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 0, "output_tokens": 0},
	}})
}

// delta adds a chunk of text or thinking, opening the block it belongs to. The agent
// loop's separator between rounds (a "\n\n" text delta before a later round's request)
// is not the provider's: it is left out, so each message streams what its provider sent.
func (p *partialStream) delta(kind, text string) {
	if !p.open && p.messages > 0 && kind == "text" && text == roundSeparator {
		return
	}
	p.start()
	if p.kind != kind {
		p.closeBlock()
		p.kind = kind
		block := map[string]any{"type": "text", "text": ""}
		if kind == "thinking" {
			block = map[string]any{"type": "thinking", "thinking": ""}
		}
		p.emit(map[string]any{"type": "content_block_start", "index": p.index, "content_block": block})
	}
	d := map[string]any{"type": "text_delta", "text": text}
	if kind == "thinking" {
		d = map[string]any{"type": "thinking_delta", "thinking": text}
	}
	p.emit(map[string]any{"type": "content_block_delta", "index": p.index, "delta": d})
}

func (p *partialStream) closeBlock() {
	if p.kind == "" {
		return
	}
	p.emit(map[string]any{"type": "content_block_stop", "index": p.index})
	p.index++
	p.kind = ""
}

// message ends the stream of the committed assistant message m and writes m's assistant
// lines, one per content block, each before its block's content_block_stop as Claude
// Code orders them (a block closed before m was committed, a thinking block followed by
// text, gets its line first).
func (p *partialStream) message(m llm.Message) {
	var calls []*llm.ToolCall
	for _, part := range m.Content {
		if part.Type == llm.PartToolUse && part.ToolCall != nil {
			calls = append(calls, part.ToolCall)
		}
	}
	lines, next := output.AssistantBlocks(m), 0
	line := func(upTo int) { // writes the lines of blocks before upTo
		for ; next < min(upTo, lines); next++ {
			p.out.AssistantBlock(m, next)
		}
	}
	p.messages++
	if !p.open && len(calls) == 0 {
		line(lines)
		return
	}
	p.start()
	streamed := lines - len(calls) // the tool_use blocks come last
	line(streamed)                 // the blocks streamed so far, the open one included
	p.closeBlock()
	for i, c := range calls {
		input := string(c.Input)
		if input == "" {
			input = "{}"
		}
		p.emit(map[string]any{"type": "content_block_start", "index": p.index,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(`{}`)}})
		p.emit(map[string]any{"type": "content_block_delta", "index": p.index,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": input}})
		line(streamed + i + 1)
		p.emit(map[string]any{"type": "content_block_stop", "index": p.index})
		p.index++
	}
	line(lines)
	stop := "end_turn"
	if len(calls) > 0 {
		stop = "tool_use"
	}
	outTokens := 0
	if m.Usage != nil {
		outTokens = m.Usage.OutputTokens
	}
	p.emit(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": outTokens}})
	p.emit(map[string]any{"type": "message_stop"})
	p.open = false
}
