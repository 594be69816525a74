package contextwin

import (
	"math"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// CharsPerToken is the deterministic fallback ratio of the serialized-history estimate.
const CharsPerToken = 4

// messageOverheadChars approximates the per-message envelope of a serialized request
// (role, ids, JSON punctuation).
const messageOverheadChars = 24

// EstimateSource names the candidate that decided an Estimate.
type EstimateSource string

const (
	SourceProvider   EstimateSource = "provider"   // latest provider usage
	SourceSerialized EstimateSource = "serialized" // character-based estimate
	SourceFloor      EstimateSource = "floor"      // caller-supplied floor
)

// Estimate is the effective context size of a history and the candidates it came from.
type Estimate struct {
	Tokens           int            `json:"tokens"`
	SerializedTokens int            `json:"serializedTokens"`
	ProviderTokens   int            `json:"providerTokens"`
	FloorTokens      int            `json:"floorTokens"`
	Source           EstimateSource `json:"source"`
	// TerminalUsage is true when the latest provider usage belongs to the last message, so
	// it is the exact post-response state and the serialized estimate is not consulted.
	TerminalUsage bool `json:"terminalUsage"`
}

// EstimateContextTokens returns the effective context estimate of msgs (see package doc).
// floor is an optional caller lower bound (e.g. the current round's provider usage).
func EstimateContextTokens(msgs []llm.Message, floor int) Estimate {
	return estimate(msgs, nil, floor)
}

// EstimateWithNext is EstimateContextTokens(append(msgs, next), floor) without building
// that slice: the estimate of a history about to get one more message.
func EstimateWithNext(msgs []llm.Message, next llm.Message, floor int) Estimate {
	return estimate(msgs, &next, floor)
}

// estimate estimates msgs followed by next (when not nil).
func estimate(msgs []llm.Message, next *llm.Message, floor int) Estimate {
	n := len(msgs)
	if next != nil {
		n++
	}
	at := func(i int) *llm.Message {
		if i == len(msgs) {
			return next
		}
		return &msgs[i]
	}
	e := Estimate{FloorTokens: max(floor, 0)}
	latest := -1
	for i := n - 1; i >= 0; i-- {
		if u, ok := ReadTokenUsage(*at(i)); ok {
			e.ProviderTokens = u.InputTokens + u.OutputTokens
			latest = i
			break
		}
	}
	if latest >= 0 && latest == n-1 {
		e.TerminalUsage = true
		e.Tokens, e.Source = e.ProviderTokens, SourceProvider
		if e.FloorTokens > e.Tokens {
			e.Tokens, e.Source = e.FloorTokens, SourceFloor
		}
		return e
	}
	chars := 0
	for i := range n {
		chars += SerializedChars(at(i))
	}
	e.SerializedTokens = int(math.Ceil(float64(chars) / CharsPerToken))
	e.Tokens, e.Source = e.SerializedTokens, SourceSerialized
	if e.ProviderTokens > e.Tokens {
		e.Tokens, e.Source = e.ProviderTokens, SourceProvider
	}
	if e.FloorTokens > e.Tokens {
		e.Tokens, e.Source = e.FloorTokens, SourceFloor
	}
	return e
}

// EstimateSerializedTokens is the deterministic character-based estimate of msgs:
// ceil(serialized characters / CharsPerToken).
func EstimateSerializedTokens(msgs []llm.Message) int {
	chars := 0
	for i := range msgs {
		chars += SerializedChars(&msgs[i])
	}
	return int(math.Ceil(float64(chars) / CharsPerToken))
}

// SerializedChars counts the characters of m that a provider request would carry.
func SerializedChars(m *llm.Message) int {
	n := messageOverheadChars + len(m.Role)
	for i := range m.Content {
		p := &m.Content[i]
		n += len(p.Type) + len(p.Text) + len(p.Signature)
		if p.ToolCall != nil {
			n += len(p.ToolCall.ID) + len(p.ToolCall.Name) + len(p.ToolCall.Input)
		}
		if p.ToolResult != nil {
			n += len(p.ToolResult.ToolCallID) + len(p.ToolResult.Content)
		}
	}
	return n
}
