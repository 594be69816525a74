// Package session owns the session runtime (the spec's agent-sessions): Session, which wraps
// the execution loop of package agent with permission-gated tools, Claude Code lifecycle
// hooks, context-window tracking, compaction, abort, error recovery and persistence;
// PermissionEnforcer, which wraps every tool; ContextWindowTracker; and
// CompactionOrchestrator.
//
// It consumes the permission evaluator, the hook runner and the session logger through the
// small interfaces declared in ports.go, so it imports none of their implementations; thin
// adapters connect them. The data it logs are sessionlog's typed event values. Persistence uses package store's Record, the one persisted record type: the
// Store port saves a *store.Record (a store.Store serves it as it is), Config.Resume is one,
// and the session converts its typed HistoryEntry timeline at that boundary.
//
// Guarantees:
//   - A tool call never turns into a Go error or a panic in the loop: a denial, a hook block,
//     an abort or a tool failure is a tool result ("Permission denied: …",
//     "Blocked by hook: …"), so every tool_use keeps its tool_result.
//   - Order per tool call: evaluator → PreToolUse hooks → approval handler (only when the
//     decision is ask; no handler means deny) → tool → PostToolUse or PostToolUseFailure.
//     An abort while waiting for approval is a deny and the tool never runs.
//   - "Allow for the session" stores the rule the evaluator offered for that call
//     (PermissionDecision.SessionRule: a command prefix or a path, never the whole tool
//     when the call can be scoped); every later evaluation sees the stored rules as allow
//     rules (PermissionRequest.SessionAllow), so they lift the mode's ask only, never a
//     deny, an ask rule or a protected path. An ask with no rule to offer is allowed once.
//   - Every tool call, registered or not, reaches OnToolExecution exactly once as start and
//     once as end.
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
//   - The session is saved after every Run, manual compaction and Shutdown; Shutdown fires
//     SessionEnd exactly once, after the save. Callbacks.OnRunEnd sees a Run that reached
//     the model just before its save, so event entries it adds are saved with the Run.
//   - The log starts with session_init and a history_mutation reset holding the starting
//     history (system message, resumed or forked conversation), so replaying the log alone
//     rebuilds the messages the record holds. A resumed conversation gets this session's
//     system prompt in place of the one it was saved with.
//   - A Run's result (LastResult) adds up rounds and usage over its Stop-hook
//     continuations, and Config.MaxTurns caps their rounds together.
//   - A resumed session saves back what it does not own unchanged: the fields other layers
//     write (background tasks, memory events, …) and members this version does not define.
package session
