package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/tools/builtin"
	"github.com/robota-sdk/robota-go/pkg/tools/search"
)

// subagentToolNames are tools a subagent never gets, whatever its job asks: subagents
// cannot start subagents (agent-sdk createSubagentSession; Task is the Agent tool's
// older name).
var subagentToolNames = []string{"Agent", "Task"}

// maxToolErrorRunes bounds the error a tool_end event carries; the model sees it whole.
const maxToolErrorRunes = 200

// agentTools builds the built-in tools over cwd and dirs, keeps those named in allow
// (all when allow is empty) and wraps each so its calls go through host.RunTool.
func agentTools(cwd string, dirs, allow []string, host runnerapi.Host, events *jobEvents, sb *runnerapi.Sandbox, searchExclude []string) ([]llm.Tool, error) {
	all, _, err := builtin.New(builtin.Config{Cwd: cwd, AdditionalDirectories: dirs, Env: processEnv(os.Environ()),
		Isolate: isolateFor(sb), Exclude: excludeWithin(searchExclude)})
	if err != nil {
		return nil, err
	}
	var out []llm.Tool
	for _, t := range all {
		name := t.Schema().Name
		if slices.Contains(subagentToolNames, name) || (len(allow) > 0 && !slices.Contains(allow, name)) {
			continue
		}
		out = append(out, &hostTool{inner: t, schema: t.Schema(), host: host, events: events})
	}
	return out, nil
}

// hostTool is a built-in tool of an agent job. The engine decides each call (rules,
// hooks, the parent's permission asks) and the tool runs here, in the job's cwd, only
// when and with the input the engine says.
type hostTool struct {
	inner  llm.Tool
	schema llm.ToolSchema
	host   runnerapi.Host
	events *jobEvents
}

func (t *hostTool) Schema() llm.ToolSchema { return t.schema }

// ConcurrencySafe forwards the built-in tool's answer (agent.ConcurrencySafe).
func (t *hostTool) ConcurrencySafe(args json.RawMessage) bool {
	cs, ok := t.inner.(agent.ConcurrencySafe)
	return ok && cs.ConcurrencySafe(args)
}

func (t *hostTool) Execute(ctx context.Context, args json.RawMessage) llm.ToolResult {
	info, _ := llm.ToolCallFrom(ctx)
	progress := runnerapi.ToolProgress{CallID: info.ID, Name: t.schema.Name}
	if rec, ok := builtin.Describe(t.inner, args); ok {
		progress.FirstArg = rec.FirstArg
	}
	start := progress
	_ = t.events.send(runnerapi.Event{Kind: runnerapi.EventToolStart, Tool: &start})
	res := t.host.RunTool(ctx, runnerapi.ToolCall{ID: info.ID, Name: t.schema.Name, Input: args},
		func(ctx context.Context, input json.RawMessage) llm.ToolResult {
			// The host may call with its own context (the wire's): the tool still
			// needs to know its call (Bash names its saved output after it).
			if _, ok := llm.ToolCallFrom(ctx); !ok {
				ctx = llm.WithToolCall(ctx, info)
			}
			// What the engine's walk as the call runs leaves out, besides the job's list
			// (a Grep or Glob call's; runnerapi.WithSearchExclude).
			if paths := runnerapi.SearchExcludeFrom(ctx); len(paths) > 0 {
				ctx = search.WithCallExclude(ctx, within(paths))
			}
			return runLocal(ctx, t.inner, input)
		})
	end := progress
	if !res.Success {
		end.Error = firstLine(res.ModelContent(), maxToolErrorRunes)
	}
	_ = t.events.send(runnerapi.Event{Kind: runnerapi.EventToolEnd, Tool: &end})
	return res
}

// runLocal executes the tool; a panic becomes a failed result.
func runLocal(ctx context.Context, tool llm.Tool, input json.RawMessage) (res llm.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			res = llm.ToolFailure(fmt.Sprintf("Error: tool %s failed unexpectedly: %v", tool.Schema().Name, p))
		}
	}()
	return tool.Execute(ctx, input)
}

// firstLine is the first line of s, cut to n runes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// excludeWithin is the search tools' Exclude for a job's SearchExclude: a path at or
// below one of them is left out (nil: nothing is).
func excludeWithin(paths []string) func(tool, absPath string) bool {
	if len(paths) == 0 {
		return nil
	}
	in := within(paths)
	return func(_, absPath string) bool { return in(absPath) }
}

// within reports whether a path is at or below one of paths.
func within(paths []string) func(absPath string) bool {
	return func(absPath string) bool {
		for _, p := range paths {
			if absPath == p || strings.HasPrefix(absPath, p+string(os.PathSeparator)) {
				return true
			}
		}
		return false
	}
}
