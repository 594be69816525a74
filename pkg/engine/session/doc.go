// Package session owns the session runtime (the spec's agent-sessions): Session, which wraps
// the execution loop of package agent with permission-gated tools, Claude Code lifecycle
// hooks, context-window tracking, compaction, abort, error recovery and persistence;
// PermissionEnforcer, which wraps every tool; ContextWindowTracker; and
// CompactionOrchestrator.
//
// It consumes the permission evaluator, the hook runner and the session logger through the
// small interfaces declared in ports.go, so it imports none of their implementations; thin
// adapters connect them. The data it logs are sessionlog's typed event values. Persistence
// uses package store's types: the Store port appends a *store.Delta (a store.Store serves
// it as it is), Config.Resume is a *store.Record, and the session converts its typed
// HistoryEntry timeline events at that boundary.
//
// Guarantees:
//   - A tool call never turns into a Go error or a panic in the loop: a denial, a hook block,
//     an abort or a tool failure is a tool result ("Permission denied: …",
//     "Blocked by hook: …"), so every tool_use keeps its tool_result.
//   - Order per tool call: evaluator → PreToolUse hooks → PermissionRequest hooks and
//     approval handler (only when the decision is ask; no handler means deny) → tool →
//     PostToolUse or PostToolUseFailure. A PermissionRequest hook's deny is final (with
//     interrupt it aborts the run); its allow skips the handler unless its updatedInput
//     meets a deny rule (denied) or an ask rule (the handler is asked about the new input).
//   - A tool hook's StopRun ("continue": false on PreToolUse, PostToolUse or
//     PostToolUseFailure) ends the Run after that tool batch (agent.StopHookStopped), the
//     reason on the call's end event ("Stopped by hook: …"); Stop hooks do not run then.
//   - StopFailure gets Claude Code's error type (rate_limit, overloaded, …) in `error`,
//     the message in `error_details` and `reason`, and what streamed before the failure.
//     An approval's UpdatedInput, like a hook's, replaces the input and is evaluated again
//     (a deny rule wins).
//     An abort while waiting for approval is a deny and the tool never runs.
//   - "Allow for the session" stores the rule the evaluator offered for that call
//     (PermissionDecision.SessionRule: a command prefix or a path, never the whole tool
//     when the call can be scoped); every later evaluation sees the stored rules as allow
//     rules (PermissionRequest.SessionAllow), so they lift the mode's ask only, never a
//     deny, an ask rule or a protected path. An ask with no rule to offer is allowed once.
//   - Every tool call, registered or not, reaches OnToolExecution exactly once as start and
//     once as end.
//   - Subagents (SubagentHost, a runnerapi.Host for a subagent job whose loop and tools run
//     in a worker): their model calls go through the session's provider (the session's
//     model when none is named), and their usage is added to SubagentUsage and, during a
//     Run, to LastResult. Their tool calls run the same pipeline through an enforcer
//     derived from the session's (PermissionEnforcer.Derive, RunExec): same evaluator,
//     live mode, hooks (session_id, transcript_path) and permission handler, so an ask
//     reaches the session's clients as the session's own do; the job's cwd; "allow for
//     the session" rules shared both ways; one question at a time across the session and
//     its subagents. The tool runs in the worker at most once, with the input the
//     pipeline settled on, and never when the call is denied. Their tool events and
//     denials are their own, not the session's.
//   - A tool result over Config.MaxToolResultChars characters keeps its head and tail within
//     that many characters around a note stating how many characters were cut; when
//     Config.ToolOutputDir is set the whole text is saved there first and the note names
//     the file (or says why it could not be saved).
//   - A call whose arguments are not one JSON object is answered "the input could not be
//     parsed" with the raw text (bounded); it reaches neither the evaluator, the hooks nor
//     the tool, and it is not a permission denial.
//   - Run refreshes the context state twice (estimate before the send, provider usage after
//     the response), auto-compacts at its start when the threshold is reached, returns an
//     error matching context.Canceled after an abort with the partial text kept in history,
//     and leaves the session usable after an abort or a provider error.
//   - Compaction replaces the history with [system message, "[Context Summary] …"] only when
//     every step before it succeeded; a block, a failure or an abort leaves history unchanged.
//   - No lost work (DESIGN.md decision 8): the run's prompt and every completed tool round
//     (the assistant message and its tool results) are stored before the next provider
//     request is sent, and before that request is logged; a kill at any instant loses at
//     most the round in flight. The session is also saved, header fields included, after
//     every Run (an aborted one too, with its partial answer), manual compaction and
//     Shutdown; Shutdown fires SessionEnd exactly once, after the save. Callbacks.OnRunEnd
//     sees a Run that reached the model just before its save, so event entries it adds
//     are saved with the Run.
//   - A save appends only what the store does not hold yet (the new messages and timeline
//     events; the header only when it changed), so its cost does not grow with the
//     history. After a compaction, a clear or a TruncateHistory, the next save appends a reset and the new
//     history. A save that fails mid-run is logged and retried by the next one; the save at
//     the end of a Run reports it as ErrSave.
//   - The log starts with session_init and a history_mutation reset holding the starting
//     history (system message, resumed or forked conversation), so replaying the log alone
//     rebuilds the messages the record holds. A conversation resumed into its own log is
//     not written again: the reset continues the log's history (sessionlog.ContinueHistory;
//     a fork's new log gets it whole). A resumed conversation gets this session's system
//     prompt in place of the one it was saved with.
//   - A Run's result (LastResult) adds up rounds and usage over its Stop-hook
//     continuations, and Config.MaxTurns caps their rounds together.
//   - A resumed session saves back what it does not own unchanged: the fields other layers
//     write (background tasks, memory events, …) and members this version does not define.
package session
