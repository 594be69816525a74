// Package agent owns the execution loop of the engine (agent-core): the conversation
// store with its single begin/append/commit path, model/tool rounds, tool batches, abort,
// the context and round guards, and the replay events every boundary emits.
//
// It knows no concrete provider, tool, permission policy or store: it drives an
// llm.Provider and a set of llm.Tool values handed to it. Permission checks and hooks wrap
// tools before they get here.
//
// Guarantees:
//   - History is append-only; every provider call ends in exactly one committed assistant
//     message (interrupted when the run's context was cancelled mid-stream). Committed
//     messages never change, so readers on the hot path (the session's saves, context
//     estimates, a round's provider request) share the store's array through a read-only
//     View instead of copying the history; History still returns a copy.
//   - Provider tool-call IDs are kept verbatim and may repeat across rounds.
//   - An unknown tool is never executed; a batch keeps one result per request in request
//     order whatever the concurrency.
//   - Only calls of tools that declare themselves concurrency-safe (ConcurrencySafe: they
//     only read) run at the same time; any other call runs alone, after the calls requested
//     before it and before those requested after it, so several edits of one file in one
//     message apply one after another and each sees the previous one's result.
//   - Run returns normally on abort (Result.Interrupted) and on provider failure (a readable
//     assistant message and Result.Err); its error return is for misuse only.
//   - A tool result whose metadata carries MetaStopRun (a hook's "continue": false, set by
//     the caller's tool wrapper) ends the run once the batch's results are committed,
//     without another model call (StopHookStopped).
//   - Replay events carry executionId, conversationId and round, and are delivered one at a
//     time (never concurrently) in the order described in events.go.
//   - A provider_request event holds the complete request in memory, and names as its Base
//     the previous request this agent emitted, whose first Base.Messages messages it
//     repeats verbatim (history is append-only; extra messages of a forced summary are not
//     shared). Its JSON carries only the messages after those, so logging a request costs
//     what it adds.
package agent
