package contextwin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

func user(text string) llm.Message { return llm.NewUserMessage(text) }

func assistant(text string, usage *llm.Usage, meta map[string]any) llm.Message {
	m := llm.NewAssistantMessage([]llm.Part{llm.TextPart(text)}, llm.StateComplete)
	m.Usage, m.Metadata = usage, meta
	return m
}

// Spec: Context Window Tracking — max(serialized, latest provider usage, floor); no summing.
func TestEstimateContextTokensFromMessages_MaxRule(t *testing.T) {
	big := strings.Repeat("z", 40_000) // ≈10,000 serialized tokens
	tests := []struct {
		name       string
		msgs       []llm.Message
		floor      int
		wantTokens int // -1: the serialized estimate of msgs
		wantSource EstimateSource
		terminal   bool
	}{
		{
			name:       "no provider usage falls back to serialized estimate",
			msgs:       []llm.Message{user("hello"), assistant("hi", nil, nil)},
			wantTokens: -1, wantSource: SourceSerialized,
		},
		{
			name:       "terminal provider usage is the exact post-response state",
			msgs:       []llm.Message{user(big), assistant("ok", &llm.Usage{InputTokens: 3000, OutputTokens: 50}, nil)},
			wantTokens: 3050, wantSource: SourceProvider, terminal: true,
		},
		{
			name:       "metadata-free prompt after usage: serialized wins when larger",
			msgs:       []llm.Message{user("a"), assistant("ok", &llm.Usage{InputTokens: 100, OutputTokens: 10}, nil), user(big)},
			wantTokens: -1, wantSource: SourceSerialized,
		},
		{
			name:       "metadata-free prompt after usage: provider wins when larger",
			msgs:       []llm.Message{user("a"), assistant("ok", &llm.Usage{InputTokens: 50_000, OutputTokens: 10}, nil), user("more")},
			wantTokens: 50_010, wantSource: SourceProvider,
		},
		{
			name: "historical provider usage is not summed",
			msgs: []llm.Message{
				user("a"), assistant("one", &llm.Usage{InputTokens: 20_000, OutputTokens: 100}, nil),
				user("b"), assistant("two", &llm.Usage{InputTokens: 21_000, OutputTokens: 100}, nil),
				user("c"),
			},
			wantTokens: 21_100, wantSource: SourceProvider,
		},
		{
			name:       "caller floor wins when larger",
			msgs:       []llm.Message{user("a"), assistant("ok", &llm.Usage{InputTokens: 10, OutputTokens: 1}, nil), user("b")},
			floor:      70_000,
			wantTokens: 70_000, wantSource: SourceFloor,
		},
		{
			name:       "promptTokens/completionTokens metadata is normalized",
			msgs:       []llm.Message{user("a"), assistant("ok", nil, map[string]any{"promptTokens": 40_000, "completionTokens": 7}), user("b")},
			wantTokens: 40_007, wantSource: SourceProvider,
		},
		{
			name:       "nested usage payload from JSON is normalized",
			msgs:       []llm.Message{user("a"), assistant("ok", nil, map[string]any{"usage": map[string]any{"promptTokens": 30_000.0, "totalTokens": 30_020.0}})},
			wantTokens: 30_020, wantSource: SourceProvider, terminal: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EstimateContextTokens(tc.msgs, tc.floor)
			want := tc.wantTokens
			if want == -1 {
				want = EstimateSerializedTokens(tc.msgs)
			}
			if got.Tokens != want || got.Source != tc.wantSource || got.TerminalUsage != tc.terminal {
				t.Fatalf("estimate = %+v, want tokens %d source %s terminal %v", got, want, tc.wantSource, tc.terminal)
			}
			// The history without its last message, plus that message, estimates the same.
			n := len(tc.msgs)
			if with := EstimateWithNext(tc.msgs[:n-1:n-1], tc.msgs[n-1], tc.floor); with != got {
				t.Fatalf("EstimateWithNext = %+v, want %+v", with, got)
			}
		})
	}
}

func TestEstimateSerializedContextTokens_Deterministic(t *testing.T) {
	msgs := []llm.Message{
		user(strings.Repeat("a", 400)),
		llm.NewAssistantMessage([]llm.Part{llm.ToolUsePart(llm.ToolCall{ID: "c", Name: "Read", Input: json.RawMessage(`{"file_path":"/x"}`)})}, ""),
		llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "c", Content: strings.Repeat("b", 800)}, nil),
	}
	a, b := EstimateSerializedTokens(msgs), EstimateSerializedTokens(msgs)
	if a != b || a < 300 || a > 400 {
		t.Fatalf("estimate = %d / %d; want ≈ (1200 chars + overhead) / 4", a, b)
	}
	if EstimateSerializedTokens(nil) != 0 {
		t.Fatal("empty history must estimate 0")
	}
}

func TestNormalizeMessageUsage(t *testing.T) {
	m := assistant("x", nil, map[string]any{"inputTokens": 5, "outputTokens": 6})
	NormalizeMessageUsage(&m)
	if m.Usage == nil || *m.Usage != (llm.Usage{InputTokens: 5, OutputTokens: 6}) {
		t.Fatalf("usage = %+v", m.Usage)
	}
	empty := assistant("x", nil, map[string]any{"model": "m"})
	NormalizeMessageUsage(&empty)
	if empty.Usage != nil {
		t.Fatalf("usage invented: %+v", empty.Usage)
	}
}

// Spec: Model Definitions.
func TestModelDefinitions(t *testing.T) {
	tests := []struct {
		id             string
		window, output int
		name           string
	}{
		{"claude-sonnet-4-6", 1_000_000, 64_000, "Claude Sonnet 4.6"},
		{"claude-opus-4-6", 1_000_000, 128_000, "Claude Opus 4.6"},
		{"claude-haiku-4-5", 200_000, 64_000, "Claude Haiku 4.5"},
		{"claude-haiku-4-5-20251001", 200_000, 64_000, "Claude Haiku 4.5"},
		{"some-local-model", DefaultContextWindow, DefaultMaxOutput, "some-local-model"},
		{"", 200_000, 16_384, ""},
	}
	for _, tc := range tests {
		if w, o, n := ModelContextWindow(tc.id), ModelMaxOutput(tc.id), ModelName(tc.id); w != tc.window || o != tc.output || n != tc.name {
			t.Fatalf("%q: window %d output %d name %q", tc.id, w, o, n)
		}
	}
}

func TestFormatTokenCount(t *testing.T) {
	tests := map[int]string{
		0: "0", 999: "999", 1000: "1K", 1500: "1.5K", 16_384: "16.4K", 200_000: "200K",
		999_999: "1M", 1_000_000: "1M", 1_500_000: "1.5M", 2_000_000: "2M",
	}
	for in, want := range tests {
		if got := FormatTokenCount(in); got != want {
			t.Fatalf("FormatTokenCount(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestWindowState(t *testing.T) {
	s := State(85_000, 200_000)
	if s.UsedPercentage != 42.5 || s.RemainingPercentage != 57.5 {
		t.Fatalf("state = %+v", s)
	}
}
