// Package tasks is the lifecycle layer of subagents and background processes (the
// spec's agent-runtime BackgroundTaskManager, SubagentManager and
// WorktreeSubagentRunner). It depends on runner ports only: it creates no provider,
// session, process or worktree itself; runners (the go-plugin worker client, an
// in-process runner, a remote dispatcher) and adapters (GitWorktrees) do.
//
// # BackgroundTaskManager
//
// Guarantees:
//   - A task is queued, running, waiting_permission, completed, failed or cancelled;
//     the last three are terminal and final. At most Config.MaxConcurrent tasks are
//     running or waiting_permission at once; the rest wait in FIFO order, and a slot
//     is freed when the job's Start has returned (not merely when the task ended), so
//     a job being torn down still counts.
//   - Every task ends in exactly one terminal state: the runner's terminal event, a
//     cancel, a watchdog, or — when Start returns without one — failed with the
//     runner's error (category "runner"). Runner events after that are ignored.
//   - Cancel of a queued task is immediate; of a running one it goes through the
//     runner's Cancel, then cancels the job's Start context if the runner cannot
//     cancel it or the job has not ended Config.CancelGrace later (the go-plugin
//     runner then cuts the stream and the worker kills the process group). A job
//     that fails while its cancel is pending counts as cancelled.
//   - Close dismisses terminal tasks only (ErrTaskActive otherwise). Shutdown refuses
//     new tasks, cancels the queued ones first (a freed slot starts none of them),
//     then the running ones, and waits for their jobs.
//   - Watchdogs (Watchdog; per request, defaulting field by field to
//     Config.Watchdog): idle (no runner event for a time; paused while the task
//     waits for a permission answer), max runtime (wall clock since the task started
//     running), output limit (bytes of streamed text), max text deltas, and
//     repetition (the same tool call with its first argument, or the same non-blank
//     line of text, N times among the last M steps). One that trips fails the task at
//     once with TimeoutReason set and Error "watchdog <reason>: <detail>", then
//     cancels the job as Cancel does. The output so far stays readable.
//   - ReadLog asks the job's runner; when the runner cannot serve the log (its worker
//     died, it keeps none), it reads the last Config.LogTail bytes of streamed output
//     the manager kept, at the stream's own offsets (kept until the task is closed:
//     close finished tasks to bound memory).
//   - Snapshots (Task) are deep copies: Get, List, Wait and events never share state
//     with the manager. Their JSON is what the engine persists with the session and
//     serves (currentAction, worktreePath, branchName, ... in the spec's names).
//     currentAction is the newest tool call still open; a tool call that ends with
//     an error stays current, with the error, until the next one starts.
//   - Events (one union, Event) carry a manager-wide sequence number in publication
//     order; lifecycle events carry the snapshot after the change. A subscription
//     gets the events published after Subscribe, until Close. Publishing never
//     blocks on a subscriber. A subscriber that falls behind gets a task's pending
//     text deltas merged (never across a later event of that task, so each task's
//     events stay in order; a merged delta keeps at most MaxDeltaBytes, dropping its
//     oldest text and counting it in DroppedBytes). Lifecycle events are never
//     dropped or merged: when MaxPending of them are unread the subscription ends,
//     and Next returns every event queued before it, then ErrSubscriberOverflow, so
//     the reader knows to resynchronise from List.
//   - IDs (Config.NewID) and time (Config.Clock) are injectable.
//
// # Launch seam
//
// The manager takes a Runner, or a RunnerFor that picks one per job when it is
// spawned; that task's Cancel, Send and ReadLog go to the runner picked. A remote
// dispatcher (NATS, the multi-host issue) plugs in there, or as a Runner decorator,
// without a change to the managers.
//
// # SubagentManager
//
// The subagent facade maps SubagentRequests onto agent tasks (a missing agent type
// is general-purpose; isolation must be "", "none" or "worktree"). SpawnBatch starts
// every valid job of a batch, under one new group id, before anything waits; a job
// that is invalid or refused is recorded with its error and stops none of the
// others. WaitBatch returns one SubagentResult per requested job, in request order,
// inside a {groupId, agentIds, results} envelope; agentIds lists the started jobs.
//
// # WorktreeSubagentRunner
//
// A Runner decorator. Jobs that are not agent jobs with Isolation "worktree" pass
// through unchanged. For the others it:
//   - runs the WorktreeCreate hooks (WorktreeHooks): as in Claude Code, a hook that
//     answers with a path has made the worktree itself and git is not used; a hook
//     error fails the job;
//   - else creates a worktree of the repository holding the job's cwd, on a new
//     branch from HEAD (GitWorktrees: <repo>/.robota/worktrees/agent-<id>, branch
//     worktree-agent-<id>); a cwd outside git fails the job with one failed event
//     (category "worktree") whose error names the cwd and says "not a git
//     repository";
//   - runs the job with its cwd rewritten to the same subdirectory of the worktree,
//     and reports the worktree to the manager (ReportWorktree: snapshot and a
//     background_task_worktree event) while it runs;
//   - when the job ends (terminal event, or Start returning without one, as when a
//     worker is killed), before passing the terminal event on: a worktree without
//     uncommitted or untracked files or new commits is removed with its branch (never
//     forced) and the WorktreeRemove hooks run; one with work, or whose state cannot
//     be read, or that fails to be removed, is kept and its path and branch stay on
//     the task's terminal snapshot. The cleanup runs even for a cancelled job; when
//     the task ended before its job did (a watchdog), a change it makes comes as a
//     background_task_worktree event after the terminal one.
//
// Where this differs from the spec: events add background_task_spawned (the runner
// reported the job's process), background_task_resumed (a permission ask was
// answered) and background_task_worktree; the worktree path and branch reach the
// snapshot through ReportWorktree rather than result metadata, because runnerapi
// events cross the worker wire and a worktree is an engine-side concern; and
// WorktreeCreate follows Claude Code (runs before creation, may supply the
// worktree) rather than being a notification after it.
package tasks
