package llm

import (
	"context"
	"encoding/json"
)

// ToolSchema is what a model is told about a tool. InputSchema is a JSON Schema object
// (draft 2020-12); a root "additionalProperties": true marks a tool that tolerates
// unknown parameters.
type ToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Tool is the contract every executable tool meets (built-ins, MCP tools, the Agent tool).
//
// Execute receives the raw JSON arguments exactly as the model sent them and must validate
// them itself (pkg/tools.New does this from a Go struct). It reports every failure —
// invalid arguments, a failed command, a cancelled ctx — as a ToolResult with
// Success false; it never panics and has no error return, because whatever happens becomes
// a tool message the model reads.
type Tool interface {
	Schema() ToolSchema
	Execute(ctx context.Context, args json.RawMessage) ToolResult
}

// ToolResult is the outcome of one tool execution. Output is what the model sees on
// success, Error on failure; Metadata holds structured, JSON-serializable details
// (e.g. errorCode, exit status) for hooks, logs and transports.
type ToolResult struct {
	Success  bool           `json:"success"`
	Output   string         `json:"output,omitempty"`
	Error    string         `json:"error,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// ToolSuccess and ToolFailure build results.
func ToolSuccess(output string) ToolResult { return ToolResult{Success: true, Output: output} }

func ToolFailure(message string) ToolResult { return ToolResult{Success: false, Error: message} }

// ModelContent is the text a tool message carries for this result.
func (r ToolResult) ModelContent() string {
	if r.Success {
		return r.Output
	}
	if r.Error == "" {
		return "Error: tool failed"
	}
	if r.Output != "" {
		return r.Error + "\n" + r.Output
	}
	return r.Error
}

type toolCallKey struct{}

// ToolCallInfo identifies the call a tool is executing for. Tools that start background
// work or subagents use it to link their output to the call.
type ToolCallInfo struct {
	ID   string
	Name string
}

// WithToolCall returns ctx carrying info; the loop sets it before Execute.
func WithToolCall(ctx context.Context, info ToolCallInfo) context.Context {
	return context.WithValue(ctx, toolCallKey{}, info)
}

// ToolCallFrom returns the ToolCallInfo stored in ctx, if any.
func ToolCallFrom(ctx context.Context) (ToolCallInfo, bool) {
	info, ok := ctx.Value(toolCallKey{}).(ToolCallInfo)
	return info, ok
}
