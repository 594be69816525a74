package runnerapi

import (
	"context"
	"encoding/json"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Host is the engine side of an agent job. Workers hold no secrets (DESIGN.md decision
// 4), so a job's model calls and every decision about its tool calls are made by the
// engine: the provider, keys, rules, approvals, hooks and usage accounting never leave it.
// An in-process runner calls it directly; the go-plugin runner serves it to the worker on
// the plugin broker.
type Host interface {
	// Chat makes one model call of the job with the engine's provider, streaming its
	// deltas through cb.
	Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error)
	// RunTool runs the engine's permission pipeline (rules, PreToolUse hooks, the parent
	// session's permission asks, PostToolUse hooks) around one tool call of the job. exec
	// runs the tool where the job runs, with the input the pipeline settled on (a hook
	// may rewrite it); RunTool calls it at most once, and not at all when the call is
	// denied. The returned result is what the model sees.
	RunTool(ctx context.Context, call ToolCall, exec ToolExec) llm.ToolResult
}

// ToolExec runs a tool of an agent job with the given input.
type ToolExec func(ctx context.Context, input json.RawMessage) llm.ToolResult

// ToolCall is one tool call an agent job's model made.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// sandboxKey is the context key of WithSandbox.
type sandboxKey struct{}

// WithSandbox is ctx carrying sb, the command sandbox of the one tool call a ToolExec
// runs: the engine walks its rules again for each command of a job it lets run, so a
// path an earlier command of the job made (a denied file an archive brought in) is
// covered for the next, and sends that policy with the execute step. nil carries
// nothing.
func WithSandbox(ctx context.Context, sb *Sandbox) context.Context {
	if sb == nil {
		return ctx
	}
	return context.WithValue(ctx, sandboxKey{}, sb)
}

// SandboxFrom is the sandbox WithSandbox put in ctx; ok is false when there is none
// (an engine that sends none: the job's own Sandbox holds).
func SandboxFrom(ctx context.Context) (sb *Sandbox, ok bool) {
	sb, ok = ctx.Value(sandboxKey{}).(*Sandbox)
	return sb, ok && sb != nil
}

// searchExcludeKey is the context key of WithSearchExclude.
type searchExcludeKey struct{}

// WithSearchExclude is ctx carrying paths, what the one Grep or Glob call a ToolExec runs
// leaves out besides the job's AgentJob.SearchExclude: the engine walks the deny rules
// again for each search call of a job, so a denied file an earlier command of the job
// made (in the project or in its worktree) is left out too. An empty list carries nothing.
func WithSearchExclude(ctx context.Context, paths []string) context.Context {
	if len(paths) == 0 {
		return ctx
	}
	return context.WithValue(ctx, searchExcludeKey{}, paths)
}

// SearchExcludeFrom is the list WithSearchExclude put in ctx (nil: none).
func SearchExcludeFrom(ctx context.Context) []string {
	paths, _ := ctx.Value(searchExcludeKey{}).([]string)
	return paths
}
