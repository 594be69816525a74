package contextwin

import (
	"encoding/json"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ReadTokenUsage returns the normalized provider usage of m: its Usage field, else usage
// found in its metadata (see NormalizeUsage). ok is false when m carries no usage.
func ReadTokenUsage(m llm.Message) (llm.Usage, bool) {
	if m.Usage != nil && !m.Usage.IsZero() {
		return *m.Usage, true
	}
	return NormalizeUsage(m.Metadata)
}

// NormalizeUsage reads usage from metadata in any of the accepted spellings —
// inputTokens/outputTokens (canonical), promptTokens/completionTokens(/totalTokens), or
// either form nested under "usage" — and returns it as canonical llm.Usage.
func NormalizeUsage(metadata map[string]any) (llm.Usage, bool) {
	if len(metadata) == 0 {
		return llm.Usage{}, false
	}
	if u, ok := usageFrom(metadata); ok {
		return u, true
	}
	if nested, ok := metadata["usage"].(map[string]any); ok {
		return usageFrom(nested)
	}
	return llm.Usage{}, false
}

func usageFrom(m map[string]any) (llm.Usage, bool) {
	in, okIn := number(m["inputTokens"])
	out, okOut := number(m["outputTokens"])
	if !okIn && !okOut {
		in, okIn = number(m["promptTokens"])
		out, okOut = number(m["completionTokens"])
		if total, ok := number(m["totalTokens"]); ok && okIn && !okOut && total >= in {
			out, okOut = total-in, true
		}
	}
	if !okIn && !okOut {
		return llm.Usage{}, false
	}
	u := llm.Usage{InputTokens: in, OutputTokens: out}
	u.CacheCreationInputTokens, _ = number(m["cacheCreationInputTokens"])
	u.CacheReadInputTokens, _ = number(m["cacheReadInputTokens"])
	return u, !u.IsZero()
}

func number(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case int32:
		return int(n), true
	case float64:
		return int(n), true
	case float32:
		return int(n), true
	case json.Number:
		f, err := n.Float64()
		return int(f), err == nil
	}
	return 0, false
}

// NormalizeMessageUsage fills m.Usage from its metadata when the provider left it empty,
// so committed assistant messages always carry canonical usage.
func NormalizeMessageUsage(m *llm.Message) {
	if m.Usage != nil && !m.Usage.IsZero() {
		return
	}
	if u, ok := NormalizeUsage(m.Metadata); ok {
		m.Usage = &u
	}
}

// WindowState is a context-window snapshot for status displays.
type WindowState struct {
	MaxTokens           int     `json:"maxTokens"`
	UsedTokens          int     `json:"usedTokens"`
	UsedPercentage      float64 `json:"usedPercentage"`
	RemainingPercentage float64 `json:"remainingPercentage"`
}

// State builds a WindowState from used and max tokens.
func State(used, maxTokens int) WindowState {
	s := WindowState{MaxTokens: maxTokens, UsedTokens: used}
	if maxTokens > 0 {
		s.UsedPercentage = float64(used) * 100 / float64(maxTokens)
		s.RemainingPercentage = max(0, 100-s.UsedPercentage)
	}
	return s
}
