package openai

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// feed runs raw chunk JSON through an assembler.
func feed(t *testing.T, chunks ...string) *assembler {
	t.Helper()
	var seq int64
	a := newAssembler("openai", llm.Callbacks{}, 1, &seq)
	for _, raw := range chunks {
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatal(err)
		}
		a.add(c)
	}
	return a
}

func TestToolCallAssembly(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []llm.ToolCall
	}{
		{
			name: "index reused for a new complete call",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_b","function":{"name":"Read","arguments":"{\"file_path\":\"b\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []llm.ToolCall{call("call_a", "Read", `{"file_path":"a"}`), call("call_b", "Read", `{"file_path":"b"}`)},
		},
		{
			name: "no index and no id: one call, id generated",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"name":"Glob","arguments":"{\"pat"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"tern\":\"*\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []llm.ToolCall{call("call_0", "Glob", `{"pattern":"*"}`)},
		},
		{
			name: "ids repeated on every delta, name repeated",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"x1","function":{"name":"Read","arguments":"{\"file_path\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"x1","function":{"name":"Read","arguments":"\"z\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []llm.ToolCall{call("x1", "Read", `{"file_path":"z"}`)},
		},
		{
			name: "interleaved indexes",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"Read","arguments":"{\"file_path\":"}},{"index":1,"id":"b","function":{"name":"Glob","arguments":"{\"pattern\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"*\"}"}},{"index":0,"function":{"arguments":"\"r\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []llm.ToolCall{call("a", "Read", `{"file_path":"r"}`), call("b", "Glob", `{"pattern":"*"}`)},
		},
		{
			name: "malformed arguments kept as a JSON string",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"Read","arguments":"{file_path: a"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []llm.ToolCall{call("a", "Read", `"{file_path: a"`)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := feed(t, tc.chunks...).response()
			assertCalls(t, resp.Message.ToolCalls(), tc.want...)
			if resp.StopReason != llm.StopReasonToolUse {
				t.Fatalf("stop %s", resp.StopReason)
			}
		})
	}
}

// The SDK's own accumulator merges index-less calls into one; this is why the package
// assembles calls itself. If the SDK ever fixes it, this test tells us.
func TestAssemblerKeepsIndexlessCallsApart(t *testing.T) {
	chunks := []string{
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_g1","type":"function","function":{"name":"Read","arguments":"{}"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_g2","type":"function","function":{"name":"Glob","arguments":"{}"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	}
	var acc openai.ChatCompletionAccumulator
	for _, raw := range chunks {
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatal(err)
		}
		acc.AddChunk(c)
	}
	sdk := 0
	if len(acc.Choices) > 0 {
		sdk = len(acc.Choices[0].Message.ToolCalls)
	}
	ours := len(feed(t, chunks...).response().Message.ToolCalls())
	if ours != 2 {
		t.Fatalf("assembler found %d calls, want 2", ours)
	}
	if sdk == 2 {
		t.Logf("the SDK accumulator now keeps index-less calls apart")
	} else {
		t.Logf("SDK accumulator found %d calls where the stream has 2", sdk)
	}
}
