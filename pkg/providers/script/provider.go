package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ProviderName is what Name returns.
const ProviderName = "script"

// ErrNoTurnsLeft is wrapped when a request finds no unused turn that matches it.
var ErrNoTurnsLeft = errors.New("script has no turn left")

// Provider replays a script. It is safe for concurrent use.
type Provider struct {
	source string
	script *Script
	lists  map[string][]*compiled
	list   string // fixed turn list (WithTurnList); "" = choose by request

	mu   sync.Mutex
	used map[*compiled]bool
}

// Option configures a Provider.
type Option func(*Provider)

// WithTurnList makes every request use the named turn list (a key of `agents:`).
func WithTurnList(name string) Option { return func(p *Provider) { p.list = name } }

// Load parses the script at path and returns a provider replaying it.
func Load(path string, opts ...Option) (*Provider, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return New(data, path, opts...)
}

// New returns a provider replaying the script in data; source names it in errors.
func New(data []byte, source string, opts ...Option) (*Provider, error) {
	s, lists, err := parseCached(data, source)
	if err != nil {
		return nil, err
	}
	p := &Provider{source: source, script: s, lists: lists, used: map[*compiled]bool{}}
	for _, o := range opts {
		o(p)
	}
	if p.list != "" {
		if _, ok := lists[p.list]; !ok {
			return nil, fmt.Errorf("%w %s: no turn list %q under agents:", ErrInvalidScript, source, p.list)
		}
	}
	return p, nil
}

// Script returns the parsed script.
func (p *Provider) Script() *Script { return p.script }

// Name implements llm.Provider.
func (p *Provider) Name() string { return ProviderName }

// Capabilities implements llm.CapabilityReporter.
func (p *Provider) Capabilities() llm.Capabilities {
	return llm.Capabilities{FunctionCalling: true, Streaming: true}
}

// Remaining returns how many unused turns the named list has ("" = default list).
func (p *Provider) Remaining(list string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.lists[list] {
		if !p.used[c] || c.turn.Repeat {
			n++
		}
	}
	return n
}

// listFor picks the turn list of a request: the fixed list, else the list named after
// req.Agent when there is one, else the default list.
func (p *Provider) listFor(req llm.ChatRequest) string {
	if p.list != "" {
		return p.list
	}
	if _, ok := p.lists[req.Agent]; ok && req.Agent != "" {
		return req.Agent
	}
	return ""
}

// next claims the turn for req: the first unused turn whose condition matches, else the
// first unused unconditional turn.
func (p *Provider) next(req llm.ChatRequest) (*compiled, string, error) {
	list := p.listFor(req)
	view := newRequestView(req)
	p.mu.Lock()
	defer p.mu.Unlock()
	var pick *compiled
	for _, c := range p.lists[list] {
		if (p.used[c] && !c.turn.Repeat) || c.turn.When == nil {
			continue
		}
		if view.matches(c) {
			pick = c
			break
		}
	}
	if pick == nil {
		for _, c := range p.lists[list] {
			if (!p.used[c] || c.turn.Repeat) && c.turn.When == nil {
				pick = c
				break
			}
		}
	}
	if pick == nil {
		name := "turns"
		if list != "" {
			name = "agents." + list
		}
		return nil, list, llm.NewError(llm.CodeConfiguration, fmt.Sprintf(
			"script %s: no turn left in %s for this request (%d turns, all used or not matching; last user message %q)",
			p.source, name, len(p.lists[list]), truncate(view.lastUser, 80)), ErrNoTurnsLeft)
	}
	p.used[pick] = true
	return pick, list, nil
}

// Chat implements llm.Provider: it streams the chosen turn.
func (p *Provider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	if err := llm.CheckNativeWebTools(ProviderName, p.Capabilities(), req.NativeWebTools); err != nil {
		return llm.ChatResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return p.partial("", nil), nil
	}
	c, list, err := p.next(req)
	if err != nil {
		return llm.ChatResponse{}, err
	}
	if cb.OnRawPayload != nil {
		payload, _ := json.Marshal(map[string]any{"turn": c.position, "turnList": list, "model": req.Model})
		cb.RawPayload(llm.RawPayloadEvent{Provider: ProviderName, APISurface: "script", PayloadKind: llm.PayloadRequest, Payload: payload})
	}
	delay := time.Duration(p.script.Delay)
	if c.turn.Delay != nil {
		delay = time.Duration(*c.turn.Delay)
	}
	if c.turn.Thinking != "" {
		cb.ThinkingDelta(c.turn.Thinking)
	}
	// The chunks concatenate to c.text (parse checks it), so what has been streamed is
	// always a prefix of it: no copy of the answer is built while it streams.
	streamed := 0
	for _, chunk := range c.chunks {
		if !wait(ctx, delay) {
			return p.partial(c.text[:streamed], c), nil
		}
		streamed += len(chunk)
		cb.TextDelta(chunk)
	}
	if ctx.Err() != nil {
		return p.partial(c.text[:streamed], c), nil
	}
	if c.turn.Hang {
		<-ctx.Done()
		return p.partial(c.text[:streamed], c), nil
	}
	if e := c.turn.Error; e != nil {
		code := llm.CodeProvider
		if e.Code != "" {
			code = llm.ErrorCode(e.Code)
		}
		se := llm.NewError(code, e.Message, nil)
		se.Provider, se.StatusCode = ProviderName, e.StatusCode
		return p.partial(c.text[:streamed], nil), se
	}
	resp := llm.ChatResponse{Message: p.message(c.text, c, req), StopReason: llm.StopReasonEndTurn}
	if len(c.calls) > 0 {
		resp.StopReason = llm.StopReasonToolUse
	}
	if c.turn.StopReason != "" {
		resp.StopReason = llm.StopReason(c.turn.StopReason)
	}
	if cb.OnRawPayload != nil {
		// The "native" response of a script is the turn it replayed, named, not copied:
		// its text is in the log already (the streamed deltas and the committed answer),
		// and a second copy costs a full encode, redaction and payload file per turn.
		payload, _ := json.Marshal(map[string]any{"turn": c.position, "turnList": list, "stopReason": resp.StopReason,
			"textBytes": len(c.text), "toolCalls": len(c.calls)})
		cb.RawPayload(llm.RawPayloadEvent{Provider: ProviderName, APISurface: "script", PayloadKind: llm.PayloadResponse, Payload: payload})
	}
	return resp, nil
}

// message builds the assistant message of a turn.
func (p *Provider) message(text string, c *compiled, req llm.ChatRequest) llm.Message {
	parts := make([]llm.Part, 0, 2+len(c.calls))
	if c.turn.Thinking != "" {
		parts = append(parts, llm.ThinkingPart(c.turn.Thinking, ""))
	}
	if text != "" {
		parts = append(parts, llm.TextPart(text))
	}
	for _, tc := range c.calls {
		parts = append(parts, llm.ToolUsePart(tc))
	}
	m := llm.Message{Role: llm.RoleAssistant, State: llm.StateComplete, Content: parts}
	m.Metadata = map[string]any{"provider": ProviderName, "model": p.model(req), "scriptTurn": c.position}
	if u := c.turn.Usage; u != nil {
		m.Usage = &llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens}
	} else {
		m.Usage = &llm.Usage{InputTokens: estimateTokens(req.Messages), OutputTokens: (len(text) + len(c.turn.Thinking) + 3) / 4}
	}
	return m
}

func (p *Provider) model(req llm.ChatRequest) string {
	if req.Model != "" {
		return req.Model
	}
	return p.script.Model
}

// partial is the aborted (or failed) response: only what was streamed, no tool calls
// unless the turn had finished streaming (c != nil keeps them).
func (p *Provider) partial(text string, c *compiled) llm.ChatResponse {
	parts := []llm.Part{}
	if text != "" {
		parts = append(parts, llm.TextPart(text))
	}
	if c != nil && text == c.text {
		for _, tc := range c.calls {
			parts = append(parts, llm.ToolUsePart(tc))
		}
	}
	return llm.ChatResponse{
		Message:    llm.Message{Role: llm.RoleAssistant, State: llm.StateInterrupted, Content: parts},
		StopReason: llm.StopReasonAborted,
	}
}

// wait sleeps d unless ctx ends first; it reports whether ctx is still live.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// estimateTokens is the usage reported when a turn scripts none: characters / 4.
func estimateTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		for _, part := range m.Content {
			n += len(part.Text)
			if part.ToolCall != nil {
				n += len(part.ToolCall.Name) + len(part.ToolCall.Input)
			}
			if part.ToolResult != nil {
				n += len(part.ToolResult.Content)
			}
		}
	}
	return (n + 3) / 4
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
