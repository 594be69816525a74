package script

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Script is a parsed script file.
type Script struct {
	// Name is informational; Model is reported when the request names no model.
	Name  string `yaml:"name,omitempty" json:"name,omitempty"`
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// ChunkSize and Delay are defaults for every turn.
	ChunkSize int      `yaml:"chunkSize,omitempty" json:"chunkSize,omitempty"`
	Delay     Duration `yaml:"delay,omitempty" json:"delay,omitempty"`
	// Turns is the default turn list; Agents holds named turn lists (subagent sessions).
	Turns  []Turn            `yaml:"turns" json:"turns"`
	Agents map[string][]Turn `yaml:"agents,omitempty" json:"agents,omitempty"`
}

// Turn is one scripted model response.
type Turn struct {
	When       *Condition `yaml:"when,omitempty" json:"when,omitempty"`
	Text       string     `yaml:"text,omitempty" json:"text,omitempty"`
	Chunks     []string   `yaml:"chunks,omitempty" json:"chunks,omitempty"`
	ChunkSize  int        `yaml:"chunkSize,omitempty" json:"chunkSize,omitempty"`
	Delay      *Duration  `yaml:"delay,omitempty" json:"delay,omitempty"`
	Thinking   string     `yaml:"thinking,omitempty" json:"thinking,omitempty"`
	ToolCalls  []ToolCall `yaml:"toolCalls,omitempty" json:"toolCalls,omitempty"`
	Usage      *Usage     `yaml:"usage,omitempty" json:"usage,omitempty"`
	Error      *Error     `yaml:"error,omitempty" json:"error,omitempty"`
	StopReason string     `yaml:"stopReason,omitempty" json:"stopReason,omitempty"`
	// Repeat keeps the turn available after use (e.g. a catch-all compaction summary).
	Repeat bool `yaml:"repeat,omitempty" json:"repeat,omitempty"`
	// Hang keeps the stream open after the text until the request is cancelled.
	Hang bool `yaml:"hang,omitempty" json:"hang,omitempty"`
}

// Condition selects a turn by what the request contains. All set fields must match.
type Condition struct {
	LastUserContains       string `yaml:"lastUserContains,omitempty" json:"lastUserContains,omitempty"`
	LastUserMatches        string `yaml:"lastUserMatches,omitempty" json:"lastUserMatches,omitempty"`
	LastToolResultContains string `yaml:"lastToolResultContains,omitempty" json:"lastToolResultContains,omitempty"`
	SystemContains         string `yaml:"systemContains,omitempty" json:"systemContains,omitempty"`
	Purpose                string `yaml:"purpose,omitempty" json:"purpose,omitempty"`
	Compaction             *bool  `yaml:"compaction,omitempty" json:"compaction,omitempty"`
	HasTools               *bool  `yaml:"hasTools,omitempty" json:"hasTools,omitempty"`
	Agent                  string `yaml:"agent,omitempty" json:"agent,omitempty"`
	Model                  string `yaml:"model,omitempty" json:"model,omitempty"`
}

// ToolCall is a scripted tool call. Input is any YAML value (normally a mapping);
// InputJSON gives the raw argument text instead (to script malformed arguments).
type ToolCall struct {
	ID        string `yaml:"id,omitempty" json:"id,omitempty"`
	Name      string `yaml:"name" json:"name"`
	Input     any    `yaml:"input,omitempty" json:"input,omitempty"`
	InputJSON string `yaml:"inputJson,omitempty" json:"inputJson,omitempty"`
}

// Usage is scripted token usage.
type Usage struct {
	InputTokens              int `yaml:"inputTokens" json:"inputTokens"`
	OutputTokens             int `yaml:"outputTokens" json:"outputTokens"`
	CacheCreationInputTokens int `yaml:"cacheCreationInputTokens,omitempty" json:"cacheCreationInputTokens,omitempty"`
	CacheReadInputTokens     int `yaml:"cacheReadInputTokens,omitempty" json:"cacheReadInputTokens,omitempty"`
}

// Error is a scripted provider failure: Code is an llm.ErrorCode (default PROVIDER_ERROR).
type Error struct {
	Code       string `yaml:"code,omitempty" json:"code,omitempty"`
	Message    string `yaml:"message" json:"message"`
	StatusCode int    `yaml:"statusCode,omitempty" json:"statusCode,omitempty"`
}

// Duration accepts a Go duration string ("250ms", "1s") or a number of milliseconds.
type Duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: duration must be a scalar like \"50ms\"", n.Line)
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// MarshalJSON writes the Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func parseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if ms, err := strconv.ParseFloat(s, 64); err == nil {
		if ms < 0 || ms > float64(time.Hour/time.Millisecond) {
			return 0, fmt.Errorf("duration %q out of range (0..1h)", s)
		}
		return Duration(ms * float64(time.Millisecond)), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	if v < 0 || v > time.Hour {
		return 0, fmt.Errorf("duration %q out of range (0..1h)", s)
	}
	return Duration(v), nil
}
