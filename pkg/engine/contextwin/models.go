package contextwin

import (
	"strconv"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// ModelDefinition describes one model's limits.
type ModelDefinition struct {
	Name          string `json:"name"`
	ID            string `json:"id"`
	ContextWindow int    `json:"contextWindow"`
	MaxOutput     int    `json:"maxOutput"`
}

const (
	DefaultContextWindow = 200_000
	DefaultMaxOutput     = 16_384
)

// ClaudeModels is the catalogue of known Claude models (4.5 and later), keyed by API id.
// Dated snapshot ids resolve to their alias through prefix matching (see Lookup). It is
// built on first use, not in a package init: robota pays every init on every command
// (issue 29).
func ClaudeModels() map[string]ModelDefinition { return claudeModelsTable.Get() }

// claudeModelsTable is built on first use (internal/lazy).
var claudeModelsTable = &lazy.Value[map[string]ModelDefinition]{Build: func() map[string]ModelDefinition {
	return map[string]ModelDefinition{
		"claude-opus-4-6":   {Name: "Claude Opus 4.6", ID: "claude-opus-4-6", ContextWindow: 1_000_000, MaxOutput: 128_000},
		"claude-sonnet-4-6": {Name: "Claude Sonnet 4.6", ID: "claude-sonnet-4-6", ContextWindow: 1_000_000, MaxOutput: 64_000},
		"claude-opus-4-5":   {Name: "Claude Opus 4.5", ID: "claude-opus-4-5", ContextWindow: 200_000, MaxOutput: 64_000},
		"claude-sonnet-4-5": {Name: "Claude Sonnet 4.5", ID: "claude-sonnet-4-5", ContextWindow: 200_000, MaxOutput: 64_000},
		"claude-haiku-4-5":  {Name: "Claude Haiku 4.5", ID: "claude-haiku-4-5", ContextWindow: 200_000, MaxOutput: 64_000},
	}
}}

// Lookup finds id in the catalogue: an exact match, else the longest catalogue id that id
// starts with followed by "-" (so "claude-haiku-4-5-20251001" finds "claude-haiku-4-5").
func Lookup(id string) (ModelDefinition, bool) {
	models := ClaudeModels()
	if m, ok := models[id]; ok {
		return m, true
	}
	var best ModelDefinition
	found := false
	for key, m := range models {
		if strings.HasPrefix(id, key+"-") && len(key) > len(best.ID) {
			best, found = m, true
		}
	}
	return best, found
}

// ModelContextWindow returns the context window of id, or DefaultContextWindow.
func ModelContextWindow(id string) int {
	if m, ok := Lookup(id); ok {
		return m.ContextWindow
	}
	return DefaultContextWindow
}

// ModelMaxOutput returns the max output tokens of id, or DefaultMaxOutput.
func ModelMaxOutput(id string) int {
	if m, ok := Lookup(id); ok {
		return m.MaxOutput
	}
	return DefaultMaxOutput
}

// ModelName returns the human-readable name of id, or id itself when unknown.
func ModelName(id string) string {
	if m, ok := Lookup(id); ok {
		return m.Name
	}
	return id
}

// FormatTokenCount renders tokens compactly: 950 → "950", 16384 → "16.4K",
// 200000 → "200K", 1000000 → "1M", 1500000 → "1.5M".
func FormatTokenCount(tokens int) string {
	switch {
	case tokens >= 1_000_000 || tokens <= -1_000_000:
		return scaled(tokens, 1_000_000) + "M"
	case tokens >= 1_000 || tokens <= -1_000:
		if s := scaled(tokens, 1_000); s != "1000" {
			return s + "K"
		}
		return "1M" // 999,950..999,999 would round to "1000K"
	default:
		return strconv.Itoa(tokens)
	}
}

func scaled(tokens, unit int) string {
	s := strconv.FormatFloat(float64(tokens)/float64(unit), 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}
