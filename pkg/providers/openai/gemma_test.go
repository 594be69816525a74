package openai

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// project feeds deltas through a fresh Gemma projector and flushes it.
func project(tools []string, deltas ...string) Projected {
	p := GemmaProjection{}.Start(tools)
	var all Projected
	add := func(x Projected) {
		all.Text += x.Text
		all.Thinking += x.Thinking
		all.ToolCalls = append(all.ToolCalls, x.ToolCalls...)
	}
	for _, d := range deltas {
		add(p.Feed(d))
	}
	add(p.Flush())
	return all
}

func TestGemmaProjection(t *testing.T) {
	tests := []struct {
		name     string
		deltas   []string
		text     string
		thinking string
		calls    []llm.ToolCall
	}{
		{name: "plain text", deltas: []string{"Hello ", "world"}, text: "Hello world"},
		{name: "thought channel", deltas: []string{"<|channel>thought\nplan it<channel|>Answer"}, text: "Answer", thinking: "plan it"},
		{name: "markers split across deltas", deltas: []string{"A<|cha", "nnel>tho", "ught\n\nx<chan", "nel|>B"}, text: "AB", thinking: "x"},
		{name: "empty channel then label", deltas: []string{"<|channel><channel|>thought\nVisible"}, text: "Visible"},
		{name: "text that merely starts like a marker", deltas: []string{"a <|c", "at|> b"}, text: "a <|cat|> b"},
		{name: "unterminated channel is thinking", deltas: []string{"<|channel>thought\nstill going"}, thinking: "still going"},
		{name: "declared tool call", deltas: []string{"before<|tool_call>call:DeclaredTool{prompt:<|\"|>analyze<|\"|>,background:true}<tool_call|>after"},
			text: "beforeafter", calls: []llm.ToolCall{call("gemma_call_0", "DeclaredTool", `{"prompt":"analyze","background":true}`)}},
		{name: "split tool call", deltas: []string{"<|tool_call>call:Declar", "edTool{prompt:<|\"|>a,b}<|\"|>}<tool_", "call|>visible"},
			text: "visible", calls: []llm.ToolCall{call("gemma_call_0", "DeclaredTool", `{"prompt":"a,b}"}`)}},
		{name: "undeclared tool stays visible", deltas: []string{"<|tool_call>call:Other{x:1}<tool_call|>"}, text: "<|tool_call>call:Other{x:1}<tool_call|>"},
		{name: "malformed block stays visible", deltas: []string{"<|tool_call>call:DeclaredTool prompt<tool_call|>"}, text: "<|tool_call>call:DeclaredTool prompt<tool_call|>"},
		{name: "unterminated block stays visible", deltas: []string{"<|tool_call>call:DeclaredTool{x:"}, text: "<|tool_call>call:DeclaredTool{x:"},
		{name: "two calls numbered", deltas: []string{"<|tool_call>call:DeclaredTool{n:1}<tool_call|><|tool_call>call:DeclaredTool{n:[1,{m:null}]}<tool_call|>"},
			calls: []llm.ToolCall{call("gemma_call_0", "DeclaredTool", `{"n":1}`), call("gemma_call_1", "DeclaredTool", `{"n":[1,{"m":null}]}`)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := project([]string{"DeclaredTool"}, tc.deltas...)
			if got.Text != tc.text || got.Thinking != tc.thinking {
				t.Fatalf("text %q thinking %q, want %q %q", got.Text, got.Thinking, tc.text, tc.thinking)
			}
			assertCalls(t, got.ToolCalls, tc.calls...)
		})
	}
}

func TestParseGemmaArguments(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = rejected
	}{
		{`{}`, `{}`},
		{`{a:<|"|>x<|"|>}`, `{"a":"x"}`},
		{` { a : 1 , b : -2.5e3 , c : false , d : null } `, `{"a":1,"b":-2500,"c":false,"d":null}`},
		{`{"quoted":"json \"s\""}`, `{"quoted":"json \"s\""}`},
		{`{list:[<|"|>a<|"|>,[],{}],obj:{x:{y:true}}}`, `{"list":["a",[],{}],"obj":{"x":{"y":true}}}`},
		{`{a:bare}`, ``},
		{`{a:<|"|>unterminated}`, ``},
		{`{a:1} trailing`, ``},
		{`[1]`, ``},
		{`{a:1,}`, ``},
		{`{:1}`, ``},
	}
	for _, tc := range tests {
		got, ok := ParseGemmaArguments(tc.in)
		if tc.want == "" {
			if ok {
				t.Errorf("%q accepted as %s", tc.in, got)
			}
			continue
		}
		if !ok || string(got) != tc.want {
			t.Errorf("%q = %s %v, want %s", tc.in, got, ok, tc.want)
		}
	}
}

func FuzzParseGemmaArguments(f *testing.F) {
	for _, seed := range []string{`{}`, `{a:<|"|>x<|"|>}`, `{a:[1,{b:null}]}`, `{"k":"v"}`, `{a:`, `{{{{`, `{a:<|"|>`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, ok := ParseGemmaArguments(s)
		if !ok {
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(out, &obj); err != nil {
			t.Fatalf("%q produced invalid JSON object %s: %v", s, out, err)
		}
	})
}

func FuzzGemmaProjector(f *testing.F) {
	f.Add("<|channel>thought\nx<channel|>y<|tool_call>call:T{a:1}<tool_call|>z", uint8(3))
	f.Add("plain", uint8(1))
	f.Add("<|tool_call>call:T{", uint8(2))
	f.Fuzz(func(t *testing.T, s string, step uint8) {
		n := int(step%7) + 1
		var deltas []string
		for i := 0; i < len(s); i += n {
			deltas = append(deltas, s[i:min(i+n, len(s))])
		}
		whole := project([]string{"T"}, s)
		split := project([]string{"T"}, deltas...)
		// Chunking must not change the outcome.
		if whole.Text != split.Text || whole.Thinking != split.Thinking || len(whole.ToolCalls) != len(split.ToolCalls) {
			t.Fatalf("chunking changed the projection of %q:\nwhole %+v\nsplit %+v", s, whole, split)
		}
		// Nothing is invented: every output byte comes from the input.
		if len(whole.Text)+len(whole.Thinking) > len(s) {
			t.Fatalf("projection grew the text of %q", s)
		}
		if utf8.ValidString(s) && !utf8.ValidString(whole.Text) {
			t.Fatalf("valid UTF-8 input produced invalid text %q", whole.Text)
		}
		for _, c := range whole.ToolCalls {
			if !json.Valid(c.Input) || c.Name != "T" {
				t.Fatalf("bad call %+v", c)
			}
		}
	})
}
