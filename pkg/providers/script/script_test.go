package script

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

func chat(t *testing.T, p *Provider, req llm.ChatRequest) (llm.ChatResponse, string, error) {
	t.Helper()
	var streamed strings.Builder
	resp, err := p.Chat(context.Background(), req, llm.Callbacks{OnTextDelta: func(d string) { streamed.WriteString(d) }})
	return resp, streamed.String(), err
}

func userReq(text string) llm.ChatRequest {
	return llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage(text)}}
}

func newProvider(t *testing.T, yaml string, opts ...Option) *Provider {
	t.Helper()
	p, err := New([]byte(yaml), "test.yaml", opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func TestScriptTurnFields(t *testing.T) {
	p := newProvider(t, `
model: m1
turns:
  - text: "hello there world"
    thinking: "pondering"
    toolCalls:
      - {id: toolu_1, name: Read, input: {file_path: /a, limit: 3, nested: {x: [1, 2]}}}
      - {name: Bash, inputJson: '{"command": 5}'}
    usage: {inputTokens: 11, outputTokens: 7, cacheReadInputTokens: 2}
`)
	var thinking string
	var deltas []string
	resp, err := p.Chat(context.Background(), userReq("hi"), llm.Callbacks{
		OnTextDelta:     func(d string) { deltas = append(deltas, d) },
		OnThinkingDelta: func(d string) { thinking += d },
	})
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message
	if strings.Join(deltas, "|") != "hello |there |world" || m.Text() != "hello there world" {
		t.Fatalf("deltas %q text %q", deltas, m.Text())
	}
	if thinking != "pondering" || m.Thinking() != "pondering" {
		t.Fatalf("thinking %q / %q", thinking, m.Thinking())
	}
	calls := m.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "toolu_1" || string(calls[0].Input) != `{"file_path":"/a","limit":3,"nested":{"x":[1,2]}}` {
		t.Fatalf("call 0 = %+v %s", calls, calls[0].Input)
	}
	if calls[1].ID != "call_1" || string(calls[1].Input) != `{"command": 5}` {
		t.Fatalf("call 1 = %+v %s", calls[1], calls[1].Input)
	}
	if *m.Usage != (llm.Usage{InputTokens: 11, OutputTokens: 7, CacheReadInputTokens: 2}) {
		t.Fatalf("usage = %+v", m.Usage)
	}
	if resp.StopReason != llm.StopReasonToolUse || m.Metadata["model"] != "m1" {
		t.Fatalf("stop %s metadata %v", resp.StopReason, m.Metadata)
	}
}

func TestScriptWhenConditions(t *testing.T) {
	p := newProvider(t, `
turns:
  - text: first
  - when: {compaction: true}
    text: "[Context Summary] summary"
    repeat: true
  - when: {lastUserContains: weather}
    text: sunny
  - when: {lastUserMatches: "^deploy (prod|staging)$", hasTools: true}
    text: deploying
  - when: {lastToolResultContains: "exit 1"}
    text: the command failed
  - when: {purpose: final_summary}
    text: final summary
  - text: second
`)
	tool := llm.ToolSchema{Name: "Bash"}
	toolResult := llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "c", Content: "exit 1"}, nil)
	tests := []struct {
		name string
		req  llm.ChatRequest
		want string
	}{
		{"unconditional turns in order", userReq("hello"), "first"},
		{"compaction request picks the compaction turn", llm.ChatRequest{Purpose: llm.PurposeCompaction, Messages: userReq("x").Messages}, "[Context Summary] summary"},
		{"repeat keeps it available", llm.ChatRequest{Purpose: llm.PurposeCompaction}, "[Context Summary] summary"},
		{"last user message contains", userReq("what is the weather?"), "sunny"},
		{"regexp without tools does not match", userReq("deploy prod"), "second"},
		{"regexp with tools matches", llm.ChatRequest{Messages: userReq("deploy prod").Messages, Tools: []llm.ToolSchema{tool}}, "deploying"},
		{"last tool result", llm.ChatRequest{Messages: append(userReq("run").Messages, toolResult)}, "the command failed"},
		{"final summary purpose", llm.ChatRequest{Purpose: llm.PurposeFinalSummary, Messages: userReq("x").Messages}, "final summary"},
	}
	for _, tc := range tests {
		resp, _, err := chat(t, p, tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if resp.Message.Text() != tc.want {
			t.Fatalf("%s: got %q, want %q", tc.name, resp.Message.Text(), tc.want)
		}
	}
	_, _, err := chat(t, p, userReq("hello"))
	if !errors.Is(err, ErrNoTurnsLeft) || !errors.Is(err, llm.ErrConfiguration) || !strings.Contains(err.Error(), "test.yaml") {
		t.Fatalf("out of turns error = %v", err)
	}
}

func TestScriptNamedTurnListsForSubagents(t *testing.T) {
	yaml := `
turns:
  - text: main
agents:
  explorer:
    - text: explored
`
	p := newProvider(t, yaml)
	resp, _, _ := chat(t, p, llm.ChatRequest{Agent: "explorer"})
	if resp.Message.Text() != "explored" {
		t.Fatalf("agent list: %q", resp.Message.Text())
	}
	resp, _, _ = chat(t, p, llm.ChatRequest{Agent: "unknown-agent"})
	if resp.Message.Text() != "main" {
		t.Fatalf("fallback to default list: %q", resp.Message.Text())
	}
	_, _, err := chat(t, p, llm.ChatRequest{Agent: "explorer"})
	if err == nil || !strings.Contains(err.Error(), "agents.explorer") {
		t.Fatalf("exhausted agent list error = %v", err)
	}
	pinned := newProvider(t, yaml, WithTurnList("explorer"))
	resp, _, _ = chat(t, pinned, userReq("x"))
	if resp.Message.Text() != "explored" {
		t.Fatalf("pinned list: %q", resp.Message.Text())
	}
	if _, err := New([]byte(yaml), "test.yaml", WithTurnList("nope")); !errors.Is(err, ErrInvalidScript) {
		t.Fatalf("unknown pinned list: %v", err)
	}
}

func TestScriptErrorTurn(t *testing.T) {
	p := newProvider(t, `
turns:
  - text: "partial "
    error: {code: AUTHENTICATION_ERROR, message: "bad key", statusCode: 401}
`)
	_, streamed, err := chat(t, p, userReq("x"))
	var e *llm.Error
	if !errors.As(err, &e) || e.Code != llm.CodeAuthentication || e.StatusCode != 401 || e.Provider != "script" {
		t.Fatalf("error = %#v", err)
	}
	if streamed != "partial " {
		t.Fatalf("streamed %q before the error", streamed)
	}
}

func TestScriptAbortReturnsPartial(t *testing.T) {
	p := newProvider(t, `
turns:
  - text: "a b c d"
    toolCalls: [{name: X}]
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	resp, err := p.Chat(ctx, userReq("x"), llm.Callbacks{OnTextDelta: func(string) {
		if n++; n == 2 {
			cancel()
		}
	}})
	if err != nil || resp.StopReason != llm.StopReasonAborted || resp.Message.Text() != "a b " || len(resp.Message.ToolCalls()) != 0 {
		t.Fatalf("resp = %+v err = %v", resp, err)
	}
}

func TestScriptLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(path, []byte(`{"turns": [{"text": "from json"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	resp, _, _ := chat(t, p, userReq("x"))
	if resp.Message.Text() != "from json" {
		t.Fatalf("text = %q", resp.Message.Text())
	}
	_, _, err = chat(t, p, userReq("x"))
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("out-of-turns error does not name %s: %v", path, err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, llm.ErrConfiguration) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestScriptParseRejects(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"empty", "", "empty"},
		{"no turns", "name: x\n", "no turns"},
		{"unknown field", "turns:\n  - txt: hi\n", "txt"},
		{"empty turn", "turns:\n  - {}\n", "turns[0]: empty turn"},
		{"unnamed tool", "turns:\n  - toolCalls: [{id: a}]\n", "name is required"},
		{"bad error code", "turns:\n  - error: {code: NOPE, message: x}\n", "NOPE"},
		{"error without message", "turns:\n  - error: {code: PROVIDER_ERROR}\n", "message is required"},
		{"bad regexp", "turns:\n  - {text: a, when: {lastUserMatches: '('}}\n", "lastUserMatches"},
		{"empty condition", "turns:\n  - {text: a, when: {}}\n", "at least one condition"},
		{"bad purpose", "turns:\n  - {text: a, when: {purpose: nap}}\n", "nap"},
		{"chunks mismatch", "turns:\n  - {text: ab, chunks: [a, c]}\n", "add up"},
		{"bad delay", "turns:\n  - {text: a, delay: soon}\n", "invalid duration"},
		{"negative delay", "turns:\n  - {text: a, delay: -5}\n", "out of range"},
		{"invalid inputJson", "turns:\n  - toolCalls: [{name: A, inputJson: '{'}]\n", "not valid JSON"},
		{"non-string keys", "turns:\n  - toolCalls: [{name: A, input: {1: x}}]\n", "mapping keys must be strings"},
		{"bad stop reason", "turns:\n  - {text: a, stopReason: nap}\n", "stopReason"},
		{"empty agent list", "agents:\n  x: []\n", "agents.x has no turns"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "bad.yaml")
			if !errors.Is(err, ErrInvalidScript) || !strings.Contains(err.Error(), "bad.yaml") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want ErrInvalidScript naming bad.yaml and %q", err, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"turns:\n  - text: hi\n",
		"turns:\n  - {text: a b, chunkSize: 1, delay: 0}\n  - when: {compaction: true}\n    text: s\n    repeat: true\n",
		"turns:\n  - toolCalls: [{id: c, name: R, input: {a: [1, {b: null}]}}]\n    usage: {inputTokens: 1, outputTokens: 2}\n",
		"agents:\n  x:\n    - error: {code: RATE_LIMIT_ERROR, message: m}\n",
		`{"turns":[{"text":"j","chunks":["j"]}]}`,
		"turns:\n  - {hang: true, when: {lastUserMatches: 'a+'}}\n",
		"a: &a [*a]\n",
		"turns: [",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := New(data, "fuzz.yaml")
		if err != nil {
			if !errors.Is(err, ErrInvalidScript) {
				t.Fatalf("parse error does not wrap ErrInvalidScript: %v", err)
			}
			return
		}
		// A parsed script replays without panicking and streams what it returns.
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // never wait on scripted delays or hangs
		for list := range p.lists {
			for _, c := range p.lists[list] {
				if strings.Join(c.chunks, "") != c.text {
					t.Fatalf("%s: chunks %q do not add up to %q", c.position, c.chunks, c.text)
				}
				for _, tc := range c.calls {
					if tc.Name == "" || tc.ID == "" {
						t.Fatalf("%s: tool call without name or id", c.position)
					}
				}
			}
		}
		_, _ = p.Chat(ctx, userReq("x"), llm.Callbacks{})
	})
}
