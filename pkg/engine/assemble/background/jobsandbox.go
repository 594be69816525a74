package background

import (
	"context"
	"encoding/json"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// JobSandbox is the session's command sandbox as its jobs get it.
type JobSandbox interface {
	// Policy is the sandbox a job's command starting now runs in: the session's rules
	// walked over its directories, the latest walk (a cached one, or the one running
	// now, waited for).
	Policy() *runnerapi.Sandbox
	// CommandEnded says a job's command ended: the directories are walked again, in the
	// background, before the next command's Policy.
	CommandEnded()
	// InWorktree is the sandbox of a job working in dir, a git worktree of origin (the
	// project): its Policy is the session's with, besides, what the session's rules
	// cover in dir walked as they are decided there (permission.Evaluator.InWorktree: a
	// rule for a project path covers its copy in the worktree), walked again after each
	// of the job's commands as the session's walk is. The project's walk mirrored into
	// dir (inWorktree) lists only what the project has: a denied file the job's own
	// commands make in its worktree is found by this walk alone.
	InWorktree(dir, origin string) JobSandbox
}

// bashTool is the tool whose calls run commands in the sandbox.
const bashTool = "Bash"

// commandHost is a sandboxed agent job's Host: each Bash call the engine lets run goes to
// the worker with the sandbox walked as it runs (runnerapi.WithSandbox; the wire's
// execute step carries it), and its end asks for the next walk. A command may make a
// path a rule covers (an archive brings in a denied file, git init makes hooks), and the
// job's next command must find it covered, as the session's own next command does; the
// policy the job started with listed only what existed then.
type commandHost struct {
	runnerapi.Host
	policy func() *runnerapi.Sandbox
	ended  func()
}

// RunTool implements runnerapi.Host.
func (h *commandHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	if call.Name != bashTool {
		return h.Host.RunTool(ctx, call, exec)
	}
	return h.Host.RunTool(ctx, call, func(ctx context.Context, input json.RawMessage) llm.ToolResult {
		// Asked only now, after the permission pipeline: a wait for an approval leaves
		// time for commands to make paths.
		res := exec(runnerapi.WithSandbox(ctx, h.policy()), input)
		h.ended()
		return res
	})
}
