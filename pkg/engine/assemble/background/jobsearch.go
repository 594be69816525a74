package background

import (
	"context"
	"encoding/json"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// JobSearch is what a Read deny rule covers, as subagents' Grep and Glob leave it out:
// their search tools run in a worker with a list of paths, since the worker cannot ask
// the rules about each file it walks as the session's own tools do.
type JobSearch interface {
	// Exclude walks the session's directories for what a Read deny rule covers now.
	Exclude() []string
	// InWorktree is the same for a job working in dir, a git worktree of origin (the
	// project): the project's walk and, besides, dir's own, its entries decided as their
	// counterparts in the project are (permission.Evaluator.InWorktree), so a denied file
	// the job made in its worktree, which the project does not have, is found too.
	InWorktree(dir, origin string) JobSearch
}

// searchTool reports whether name is a tool whose calls get the search exclusions walked
// as they run.
func searchTool(name string) bool { return name == "Grep" || name == "Glob" }

// searchHost is an agent job's Host when a deny rule names a file: each Grep or Glob call
// the engine lets run goes to the worker with what a Read deny rule covers walked as it
// runs (runnerapi.WithSearchExclude; the wire's execute step carries it), besides the list
// the job started with. A command of the job may have made a denied file since (an archive
// brought it in, a script wrote it in the worktree), and the next search must leave it out,
// as the session's own search would.
type searchHost struct {
	runnerapi.Host
	exclude func() []string
}

// RunTool implements runnerapi.Host.
func (h *searchHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	if !searchTool(call.Name) {
		return h.Host.RunTool(ctx, call, exec)
	}
	return h.Host.RunTool(ctx, call, func(ctx context.Context, input json.RawMessage) llm.ToolResult {
		// Walked only now, after the permission pipeline, as a command's sandbox is.
		return exec(runnerapi.WithSearchExclude(ctx, h.exclude()), input)
	})
}
