package tasks

import "context"

// runnerapi.Event crosses the worker wire and knows nothing of worktrees, so a
// runner decorator that runs in the engine (WorktreeSubagentRunner) reports them
// through the Start context instead: the manager puts a reporter there for each task.

type reporterKey struct{}

type reporter func(path, branch string)

func withReporter(ctx context.Context, r reporter) context.Context {
	return context.WithValue(ctx, reporterKey{}, r)
}

// ReportWorktree tells the manager running the job of ctx (the context its runner's
// Start got) where the job's worktree is: the path and branch show on the task's
// snapshot (Task.WorktreePath, Task.WorktreeBranch) and in a background_task_worktree
// event. Empty strings clear them (the worktree was removed). Outside a manager's
// Start context it does nothing.
func ReportWorktree(ctx context.Context, path, branch string) {
	if r, ok := ctx.Value(reporterKey{}).(reporter); ok {
		r(path, branch)
	}
}
