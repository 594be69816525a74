package providertest

import (
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Scenario is one provider response, described independently of any wire format.
type Scenario struct {
	// Thinking is streamed first, as reasoning.
	Thinking string
	// Text is streamed chunk by chunk, in order; each chunk is one text delta.
	Text []string
	// ToolCalls follow the text; their IDs are the provider's and must come back unchanged.
	ToolCalls []llm.ToolCall
	// Usage is the normalized usage the provider must report (InputTokens includes
	// CacheReadInputTokens). The suite uses no cache-creation tokens: not every wire
	// format can express them.
	Usage *llm.Usage
	// Stall keeps the response open after the content until the caller gives up.
	Stall bool
	// Fail makes the response fail.
	Fail *Failure
}

// Failure is a failed response.
type Failure struct {
	// Status > 0 fails the request before any content with this HTTP status (the error
	// document carries Message). Status 0 fails the stream after Text with an error event.
	Status int
	// RetryAfter is sent as the Retry-After header (whole seconds) when > 0.
	RetryAfter time.Duration
	Message    string
}

// Harness adapts one provider to the suite.
type Harness struct {
	// Name is the provider name errors must carry (llm.Error.Provider).
	Name string
	// New returns a provider whose successive Chat calls are answered by scenarios, in
	// order. It must not retry failed calls (the suite checks one response at a time).
	New func(t *testing.T, scenarios ...Scenario) llm.Provider
}
