package tasks

import "errors"

// Sentinel errors of the managers and the worktree runner. Callers match them
// with errors.Is; the returned errors wrap them with the task id or path.
var (
	// ErrUnknownTask: no task with that id (never spawned, or closed).
	ErrUnknownTask = errors.New("unknown background task")
	// ErrInvalidRequest: the request cannot become a task (no job, both job
	// kinds, an empty prompt or command, a duplicate id).
	ErrInvalidRequest = errors.New("invalid background task request")
	// ErrTaskActive: Close refuses a queued or running task; cancel it first.
	ErrTaskActive = errors.New("background task is still active")
	// ErrTaskEnded: Cancel, Send or SetWaitingPermission on a terminal task.
	ErrTaskEnded = errors.New("background task has ended")
	// ErrNotRunning: Send or SetWaitingPermission on a task that has not started.
	ErrNotRunning = errors.New("background task is not running")
	// ErrManagerClosed: Spawn after Shutdown.
	ErrManagerClosed = errors.New("background task manager is shut down")
	// ErrSubscriberOverflow ends a subscription whose reader fell so far behind
	// that its bounded queue of lifecycle events filled up. Lifecycle events are
	// never dropped silently: the reader gets every event queued before the
	// overflow, then this error, and resynchronises from List.
	ErrSubscriberOverflow = errors.New("background task subscriber fell behind")
	// ErrSubscriptionClosed: Next after Close.
	ErrSubscriptionClosed = errors.New("subscription closed")
	// ErrNotGitRepo: worktree isolation was asked for a directory outside a git
	// repository (and no WorktreeCreate hook supplied a worktree).
	ErrNotGitRepo = errors.New("not a git repository")
)
