// Package agenttool holds the model-facing tools for subagents and background tasks, with
// Claude Code's names and parameters (DESIGN.md decision 9): Agent (description, prompt,
// subagent_type, model, run_in_background, isolation, plus the spec's batch jobs),
// TaskOutput (task_id, block, timeout) and TaskStop (task_id, or the older shell_id).
//
// The tools know no manager, runner or session: they run over small interfaces declared
// here (Spawner, TaskReader, TaskStopper) that the composition root adapts the background
// task manager to, and over the agent types it lists (AgentType, mapped from agent
// definitions). They depend only on pkg/engine/llm and the typed-tool helper.
//
// Agent guarantees:
//   - A single call validates its job (a non-empty prompt; a known subagent_type, by exact
//     name or a unique case-insensitive match, general-purpose when omitted; isolation
//     worktree or none, a definition's isolation when omitted), starts it, and waits for
//     it unless run_in_background is set or the type's definition says background. The
//     result is Claude Code's: the agent's final message, its agentId, a kept worktree's
//     path and branch, and a <usage> block; a failed or cancelled agent is a failed
//     result carrying what the agent produced. An unknown type fails without starting
//     anything and names the available types.
//   - run_in_background returns at once with the agent id; the result is read with
//     TaskOutput and the agent stopped with TaskStop.
//   - Batch (jobs non-empty; prompt must then be empty): every job is validated, every
//     valid job is started before any is waited for, the started ones are waited for at
//     the same time, and the result holds one entry per job in request order (completed,
//     failed, cancelled, started for a background batch, invalid or spawn_failed, with
//     the reason) under a shared groupId and the agentIds of the started jobs, as text
//     and as Metadata["jobs"] ([]JobResult). An invalid job does not stop the others;
//     the call fails only when no job started. A definition's background flag does not
//     apply to batch jobs (the batch waits unless run_in_background is set).
//   - When the call's context ends while it waits (the parent was interrupted), every job
//     not yet finished is cancelled through the Spawner and reported cancelled.
//   - Unknown arguments (Claude Code's name, mode, team_name …) are tolerated and
//     ignored, in jobs too; model is passed to the Spawner unresolved (aliases are the
//     spawner's, through agentdef.ResolveModel).
//   - The description lists every agent type as Claude Code did: "- name: description
//     (Tools: …)".
//
// TaskOutput and TaskStop answer with Claude Code's texts: TaskOutput's
// <retrieval_status> (success, timeout, not_ready), <task_id>, <task_type>, <status>,
// <exit_code>, <output> (the last MaxTaskOutputChars characters, after a line naming the
// full output file) and <error> parts separated by blank lines; "Task ID is required",
// "No task found with ID: X"; block defaults to true and timeout to 30000 ms (at most
// 600000). TaskStop returns {"message","task_id","task_type","command"} as JSON, and
// "Missing required parameter: task_id", "No task found with ID: X" or "Task X is not
// running (status: S)" as failures.
//
// Concurrency (agent.ConcurrencySafe): all three are concurrency-safe, as in Claude Code.
// TaskOutput only reads; TaskStop only signals a task, and stopping twice is harmless;
// Agent calls of one message run at the same time because that is how a model asks for
// parallel agents, the tool itself changes nothing in the parent, and each subagent's
// tool calls pass its own permission checks (parallel writers should use worktrees).
package agenttool
