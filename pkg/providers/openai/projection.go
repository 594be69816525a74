package openai

import "github.com/robota-sdk/robota-go/pkg/engine/llm"

// Projection rewrites the content stream of a model family that encodes reasoning or tool
// calls inside assistant text. A profile selects one through Options.Projection.
type Projection interface {
	// Start returns the projector of one call; tools are the names the request declares
	// (only those may become tool calls).
	Start(tools []string) Projector
}

// Projector is the per-call state of a Projection. Feed is given raw content deltas in
// order; Flush is called once when the stream ends.
type Projector interface {
	Feed(raw string) Projected
	Flush() Projected
}

// Projected is what a projector made of the content seen so far.
type Projected struct {
	Text      string         // visible text to stream
	Thinking  string         // reasoning to stream as thinking
	ToolCalls []llm.ToolCall // completed tool calls
}
