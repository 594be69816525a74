package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Gemma chat-template markers as LM Studio and Ollama stream them inside content.
const (
	gemmaChannelStart = "<|channel>"
	gemmaChannelEnd   = "<channel|>"
	gemmaToolStart    = "<|tool_call>"
	gemmaToolEnd      = "<tool_call|>"
	gemmaQuote        = `<|"|>`
	gemmaThoughtLabel = "thought"
	gemmaCallPrefix   = "call:"
)

// GemmaProjection is the stream projection of Gemma-family models served through an
// OpenAI-compatible endpoint: reasoning-channel blocks (<|channel>thought …<channel|>)
// become thinking, and native tool-call blocks (<|tool_call>call:Name{…}<tool_call|>)
// for tools the request declares become tool calls. Anything else, including malformed
// or undeclared blocks, stays visible text.
type GemmaProjection struct{}

// Start implements Projection.
func (GemmaProjection) Start(tools []string) Projector {
	g := &gemmaProjector{tools: map[string]bool{}}
	for _, t := range tools {
		g.tools[t] = true
	}
	return g
}

type gemmaState int

const (
	gemmaText gemmaState = iota
	gemmaChannel
	gemmaTool
)

type gemmaProjector struct {
	tools   map[string]bool
	buf     string
	state   gemmaState
	label   bool // a "thought" label may start the text at hand
	skipNL  bool // newlines after a stripped label are dropped
	calls   int
	channel int // bytes of reasoning seen in the current channel block
}

func (g *gemmaProjector) Feed(raw string) Projected {
	g.buf += raw
	return g.run(false)
}

func (g *gemmaProjector) Flush() Projected { return g.run(true) }

func (g *gemmaProjector) run(final bool) Projected {
	var out Projected
	for {
		if !g.stripLabel(final) {
			return out
		}
		switch g.state {
		case gemmaText:
			i, marker := firstMarker(g.buf)
			if i < 0 {
				keep := 0
				if !final {
					keep = max(heldPrefix(g.buf, gemmaChannelStart), heldPrefix(g.buf, gemmaToolStart))
				}
				out.Text += g.buf[:len(g.buf)-keep]
				g.buf = g.buf[len(g.buf)-keep:]
				return out
			}
			out.Text += g.buf[:i]
			g.buf = g.buf[i+len(marker):]
			if marker == gemmaChannelStart {
				g.state, g.label, g.channel = gemmaChannel, true, 0
			} else {
				g.state = gemmaTool
			}
		case gemmaChannel:
			j := strings.Index(g.buf, gemmaChannelEnd)
			if j < 0 {
				keep := 0
				if !final {
					keep = heldPrefix(g.buf, gemmaChannelEnd)
				}
				out.Thinking += g.buf[:len(g.buf)-keep]
				g.channel += len(g.buf) - keep
				g.buf = g.buf[len(g.buf)-keep:]
				if final {
					g.state = gemmaText
				}
				return out
			}
			out.Thinking += g.buf[:j]
			g.channel += j
			g.buf = g.buf[j+len(gemmaChannelEnd):]
			g.state = gemmaText
			// An empty channel is followed by its label outside the markers.
			g.label = g.channel == 0
		case gemmaTool:
			j := strings.Index(g.buf, gemmaToolEnd)
			if j < 0 {
				if final { // an unterminated block is shown as it came
					out.Text += gemmaToolStart + g.buf
					g.buf, g.state = "", gemmaText
				}
				return out
			}
			block := g.buf[:j]
			g.buf = g.buf[j+len(gemmaToolEnd):]
			g.state = gemmaText
			if call, ok := g.parseCall(block); ok {
				out.ToolCalls = append(out.ToolCalls, call)
			} else {
				out.Text += gemmaToolStart + block + gemmaToolEnd
			}
		}
	}
}

// stripLabel drops a leading "thought" label and the newlines after it. It reports false
// when more input is needed to decide.
func (g *gemmaProjector) stripLabel(final bool) bool {
	if g.label {
		switch {
		case strings.HasPrefix(g.buf, gemmaThoughtLabel):
			g.buf = g.buf[len(gemmaThoughtLabel):]
			g.label, g.skipNL = false, true
		case !final && strings.HasPrefix(gemmaThoughtLabel, g.buf):
			return false // "" or a prefix of the label: wait
		default:
			g.label = false
		}
	}
	if g.skipNL {
		g.buf = strings.TrimLeft(g.buf, "\r\n")
		if g.buf == "" && !final {
			return false
		}
		g.skipNL = false
	}
	return true
}

func firstMarker(s string) (int, string) {
	i, j := strings.Index(s, gemmaChannelStart), strings.Index(s, gemmaToolStart)
	switch {
	case i < 0 && j < 0:
		return -1, ""
	case j < 0 || (i >= 0 && i < j):
		return i, gemmaChannelStart
	default:
		return j, gemmaToolStart
	}
}

// heldPrefix is the length of the longest suffix of s that could begin marker.
func heldPrefix(s, marker string) int {
	for n := min(len(s), len(marker)-1); n > 0; n-- {
		if strings.HasPrefix(marker, s[len(s)-n:]) {
			return n
		}
	}
	return 0
}

// parseCall reads "call:Name{args}" for a declared tool.
func (g *gemmaProjector) parseCall(block string) (llm.ToolCall, bool) {
	text := strings.TrimSpace(block)
	if !strings.HasPrefix(text, gemmaCallPrefix) {
		return llm.ToolCall{}, false
	}
	text = strings.TrimSpace(text[len(gemmaCallPrefix):])
	open := strings.IndexByte(text, '{')
	if open <= 0 {
		return llm.ToolCall{}, false
	}
	name := strings.TrimSpace(text[:open])
	if !g.tools[name] {
		return llm.ToolCall{}, false
	}
	args, ok := ParseGemmaArguments(text[open:])
	if !ok {
		return llm.ToolCall{}, false
	}
	id := fmt.Sprintf("gemma_call_%d", g.calls)
	g.calls++
	return llm.ToolCall{ID: id, Name: name, Input: args}, true
}

// ParseGemmaArguments converts Gemma's tool-call argument notation — an object with bare
// keys and strings quoted by <|"|> (JSON strings, numbers, booleans, null, nested
// objects and arrays also accepted) — into a JSON object. ok is false for anything else,
// including trailing text after the object.
func ParseGemmaArguments(s string) (json.RawMessage, bool) {
	p := &gemmaArgs{s: s}
	p.space()
	v, ok := p.object(0)
	if !ok {
		return nil, false
	}
	p.space()
	if p.i != len(p.s) {
		return nil, false
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

const gemmaMaxDepth = 64

type gemmaArgs struct {
	s string
	i int
}

func (p *gemmaArgs) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *gemmaArgs) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *gemmaArgs) object(depth int) (map[string]any, bool) {
	if depth > gemmaMaxDepth || !p.eat('{') {
		return nil, false
	}
	obj := map[string]any{}
	if p.eat('}') {
		return obj, true
	}
	for {
		key, ok := p.key()
		if !ok || !p.eat(':') {
			return nil, false
		}
		val, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		obj[key] = val
		if p.eat(',') {
			continue
		}
		return obj, p.eat('}')
	}
}

func (p *gemmaArgs) array(depth int) ([]any, bool) {
	if depth > gemmaMaxDepth || !p.eat('[') {
		return nil, false
	}
	arr := []any{}
	if p.eat(']') {
		return arr, true
	}
	for {
		val, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		arr = append(arr, val)
		if p.eat(',') {
			continue
		}
		return arr, p.eat(']')
	}
}

func (p *gemmaArgs) key() (string, bool) {
	p.space()
	if strings.HasPrefix(p.s[p.i:], gemmaQuote) || strings.HasPrefix(p.s[p.i:], `"`) {
		v, ok := p.str()
		return v, ok
	}
	start := p.i
	for p.i < len(p.s) && isKeyByte(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i], p.i > start
}

func isKeyByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (p *gemmaArgs) str() (string, bool) {
	rest := p.s[p.i:]
	if strings.HasPrefix(rest, gemmaQuote) {
		end := strings.Index(rest[len(gemmaQuote):], gemmaQuote)
		if end < 0 {
			return "", false
		}
		p.i += len(gemmaQuote) + end + len(gemmaQuote)
		return rest[len(gemmaQuote) : len(gemmaQuote)+end], true
	}
	// A JSON string: let the JSON decoder find its end.
	dec := json.NewDecoder(strings.NewReader(rest))
	var v string
	if err := dec.Decode(&v); err != nil {
		return "", false
	}
	p.i += int(dec.InputOffset())
	return v, true
}

func (p *gemmaArgs) value(depth int) (any, bool) {
	p.space()
	if p.i >= len(p.s) {
		return nil, false
	}
	rest := p.s[p.i:]
	switch c := rest[0]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case strings.HasPrefix(rest, gemmaQuote) || c == '"':
		return p.str()
	}
	// A literal: everything up to the next delimiter.
	end := strings.IndexAny(rest, ",}]")
	if end < 0 {
		end = len(rest)
	}
	lit := strings.TrimSpace(rest[:end])
	var v any
	if lit == "" || json.Unmarshal([]byte(lit), &v) != nil {
		return nil, false
	}
	if _, isString := v.(string); isString {
		return nil, false
	}
	p.i += end
	return v, true
}
