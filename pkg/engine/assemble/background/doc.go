// Package background is a session's background work, wired to a runner: the glue
// between the tools' ports and the task runtime of pkg/runner. It holds the session's
// task manager and the pump that turns its events into the session's background_task
// and background_job_group events (Runtime), Bash's run_in_background commands as
// process tasks (Commands), the subagents the Agent tool, /agent, agent hooks and forked
// skills start (Subagents, Spawner), and the Agent, TaskOutput and TaskStop tools
// (Toolset).
//
// The composition root (package assemble) builds it and hands the session core its
// ports (interactive.Host: Tasks, JobGroups, Subagents); the core never sees these types.
// It is apart from assemble because it is one job (running work beside the session)
// with its own guarantees, and apart from the core because it climbs to tool ports
// (pkg/tools/bash, pkg/tools/agenttool) and to the session's engine-side host.
//
// Guarantees:
//   - A subagent's model calls and permission questions go through the parent session
//     (its provider and permission pipeline): a worker holds no secret. A question asked
//     for a subagent's call names its task (interactive.WithTaskID) and marks the task
//     waiting_permission until answered. Tools that hold a key (WebSearch) run in the
//     engine (Subagents.InEngine), after the same pipeline.
//   - With the command sandbox on, a job starts with the session's policy, and each of a
//     subagent's Bash calls runs under the policy walked as it runs (commandHost, sent
//     with the execute step); its end asks for the next walk, as the session's own
//     commands do. A denied file a subagent's command brought in is hidden from its next.
//     A job in a worktree gets its worktree walked too (JobSandbox.InWorktree: the rules
//     asked about each entry's counterpart in the project), so a denied file its
//     commands make there, which the project's walk mirrored into it cannot list, is
//     hidden from its next command as well.
//   - When a deny rule names a file, a subagent's Grep and Glob leave out what a Read
//     deny rule covers as each call runs (searchHost, sent with the execute step),
//     besides the list the job started with, sandbox on or off: a denied file an
//     earlier command of the job made, in the project or in its worktree (JobSearch.
//     InWorktree), is neither searched nor listed.
//   - An agent hook's subagent (Spec.HookAgent) never asks (what the rules do not allow
//     is denied), runs no hooks and publishes none of its messages.
//   - SubagentStart fires before a subagent starts and SubagentStop after its end, once
//     its transcript (SubagentTranscriptPath) is closed; a worktree job's permission
//     evaluator is the session's moved into the worktree (Subagents.InWorktree).
//   - Task ids: bash_N per session for background commands, agent-… for subagents,
//     never repeated across a resumed session's runs (TaskID). The record keeps the
//     tasks' snapshots (RecordTasks) and the job groups and their events (RecordGroups),
//     restored on resume (RestoreGroups).
//   - Every background command and subagent is bounded by DefaultTaskWatchdog's output
//     limit unless the session says otherwise; subagents also by a repetition bound
//     (DefaultSubagentWatchdog). Shutdown cancels what still runs when the session closes.
package background
