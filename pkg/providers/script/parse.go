package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ErrInvalidScript is wrapped by every Parse failure.
var ErrInvalidScript = errors.New("invalid script")

// compiled is the validated, ready-to-replay form of a turn.
type compiled struct {
	turn     Turn
	text     string
	chunks   []string
	calls    []llm.ToolCall
	pattern  *regexp.Regexp
	position string // "turns[2]" or "agents.explorer[0]"
}

// ParseFile reads and parses a script file.
func ParseFile(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return Parse(data, path)
}

// Parse parses a YAML or JSON script; source names it in errors.
func Parse(data []byte, source string) (*Script, error) {
	s, _, err := parse(data, source)
	return s, err
}

func parse(data []byte, source string) (*Script, map[string][]*compiled, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w %s: %s", ErrInvalidScript, source, fmt.Sprintf(format, args...))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Script
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fail("the script is empty")
		}
		return nil, nil, fail("%v", err)
	}
	if s.ChunkSize < 0 {
		return nil, nil, fail("chunkSize must not be negative")
	}
	lists := map[string][]*compiled{}
	if len(s.Turns) > 0 {
		c, err := compileList(s, "turns", s.Turns)
		if err != nil {
			return nil, nil, fail("%v", err)
		}
		lists[""] = c
	}
	names := make([]string, 0, len(s.Agents))
	for name := range s.Agents {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "" {
			return nil, nil, fail("agents: a turn list needs a name")
		}
		if len(s.Agents[name]) == 0 {
			return nil, nil, fail("agents.%s has no turns", name)
		}
		c, err := compileList(s, "agents."+name, s.Agents[name])
		if err != nil {
			return nil, nil, fail("%v", err)
		}
		lists[name] = c
	}
	if len(lists) == 0 {
		return nil, nil, fail("no turns: add a `turns:` list")
	}
	return &s, lists, nil
}

func compileList(s Script, where string, turns []Turn) ([]*compiled, error) {
	out := make([]*compiled, 0, len(turns))
	for i, t := range turns {
		c, err := compileTurn(s, t)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", where, i, err)
		}
		c.position = fmt.Sprintf("%s[%d]", where, i)
		out = append(out, c)
	}
	return out, nil
}

func compileTurn(s Script, t Turn) (*compiled, error) {
	c := &compiled{turn: t, text: t.Text}
	if t.Text == "" && len(t.Chunks) == 0 && t.Thinking == "" && len(t.ToolCalls) == 0 && t.Error == nil && !t.Hang {
		return nil, errors.New("empty turn: give text, chunks, thinking, toolCalls, error or hang")
	}
	if t.ChunkSize < 0 {
		return nil, errors.New("chunkSize must not be negative")
	}
	if len(t.Chunks) > 0 {
		joined := strings.Join(t.Chunks, "")
		if t.Text != "" && t.Text != joined {
			return nil, errors.New("chunks do not add up to text")
		}
		c.text = joined
		c.chunks = t.Chunks
	} else {
		size := t.ChunkSize
		if size == 0 {
			size = s.ChunkSize
		}
		c.chunks = splitChunks(c.text, size)
	}
	if err := compileCondition(c, t.When); err != nil {
		return nil, err
	}
	for j, tc := range t.ToolCalls {
		if strings.TrimSpace(tc.Name) == "" {
			return nil, fmt.Errorf("toolCalls[%d]: name is required", j)
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", j)
		}
		input, err := toolInput(tc)
		if err != nil {
			return nil, fmt.Errorf("toolCalls[%d] (%s): %w", j, tc.Name, err)
		}
		c.calls = append(c.calls, llm.ToolCall{ID: id, Name: tc.Name, Input: input})
	}
	if t.Error != nil {
		if t.Error.Message == "" {
			return nil, errors.New("error.message is required")
		}
		if t.Error.Code != "" && !knownCode(llm.ErrorCode(t.Error.Code)) {
			return nil, fmt.Errorf("error.code %q is not an error code (e.g. PROVIDER_ERROR, RATE_LIMIT_ERROR)", t.Error.Code)
		}
	}
	switch llm.StopReason(t.StopReason) {
	case "", llm.StopReasonEndTurn, llm.StopReasonToolUse, llm.StopReasonMaxTokens:
	default:
		return nil, fmt.Errorf("stopReason %q is not one of end_turn, tool_use, max_tokens", t.StopReason)
	}
	return c, nil
}

func compileCondition(c *compiled, w *Condition) error {
	if w == nil {
		return nil
	}
	if *w == (Condition{}) {
		return errors.New("when: give at least one condition")
	}
	switch llm.Purpose(w.Purpose) {
	case "", llm.PurposeFinalSummary, llm.PurposeCompaction, llm.PurposeHook, "chat":
	default:
		return fmt.Errorf("when.purpose %q is not one of chat, final_summary, compaction, hook", w.Purpose)
	}
	if w.LastUserMatches != "" {
		re, err := regexp.Compile(w.LastUserMatches)
		if err != nil {
			return fmt.Errorf("when.lastUserMatches: %w", err)
		}
		c.pattern = re
	}
	return nil
}

func toolInput(tc ToolCall) (json.RawMessage, error) {
	if tc.InputJSON != "" {
		if tc.Input != nil {
			return nil, errors.New("give input or inputJson, not both")
		}
		if !json.Valid([]byte(tc.InputJSON)) {
			return nil, errors.New("inputJson is not valid JSON")
		}
		return json.RawMessage(tc.InputJSON), nil
	}
	if tc.Input == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(tc.Input)
	if err != nil {
		return nil, fmt.Errorf("input cannot be expressed as JSON (mapping keys must be strings): %w", err)
	}
	return b, nil
}

func knownCode(c llm.ErrorCode) bool {
	switch c {
	case llm.CodeConfiguration, llm.CodeValidation, llm.CodeProvider, llm.CodeAuthentication,
		llm.CodeRateLimit, llm.CodeNetwork, llm.CodeToolExecution, llm.CodeModelNotAvailable,
		llm.CodeCircuitBreakerOpen, llm.CodePlugin, llm.CodeStorage:
		return true
	}
	return false
}

// splitChunks splits text into chunks of size runes, or into words (each keeping its
// trailing whitespace) when size is 0.
func splitChunks(text string, size int) []string {
	if text == "" {
		return nil
	}
	var chunks []string
	if size > 0 {
		// Chunks of size runes, sliced from text: a long scripted answer is not copied
		// (as runes and back) for every session that loads it.
		start, runes := 0, 0
		for i := range text {
			if runes == size {
				chunks = append(chunks, text[start:i])
				start, runes = i, 0
			}
			runes++
		}
		return append(chunks, text[start:])
	}
	start := 0
	inSpace := false
	for i, ch := range text {
		space := ch == ' ' || ch == '\n' || ch == '\t'
		if inSpace && !space {
			chunks = append(chunks, text[start:i])
			start = i
		}
		inSpace = space
	}
	return append(chunks, text[start:])
}
