// Package sessionlog owns the session log: an append-only JSONL file per session
// ({dir}/{sessionId}.jsonl, one event a line) that records what was sent to the model, what
// came back and what the session did, for diagnostics and replay. It also owns the readers:
// ReadLog, ReplaySessionLogEntries (messages rebuilt from history_mutation events) and
// ValidateSessionReplayLogEntries (missing pairs, bad payload references).
//
// Guarantees:
//   - Every line is one Entry: schemaVersion, sequence (1, 2, … per session, continued
//     across reopenings), timestamp from the injected clock, sessionId, event, data.
//   - Secrets are redacted (package redact) before anything is hashed or written: no file
//     this package writes holds a redactable secret.
//   - Strings and arrays whose JSON exceeds the inline threshold are written once to
//     {dir}/{sessionId}.payloads/{sha256}.json (atomically, before the line that refers to
//     them) and replaced in the line by a PayloadRef. Objects are descended into, never
//     moved out, so identifiers (executionId, round, toolCallId, role) stay on the line.
//   - A line is written with a single write(2) on an O_APPEND descriptor, so a crash leaves
//     at worst one partial last line; readers skip it and reopening the log truncates it,
//     so earlier and later lines always parse.
//   - Logging never panics and never fails the session: Log reports failures to
//     Options.OnError, Append returns them. SilentLogger is the null object. Both satisfy
//     the session runtime's logger port (Log(event string, data any)) directly.
//   - Replay-boundary events are agent.Event values logged as data under event =
//     string(ev.Type); replay and validation read that JSON shape. A session that replaces
//     its history (clear, compaction, a resumed or forked conversation in a new log) logs a
//     history_mutation built by ResetHistory, so replay and index checks stay exact.
package sessionlog
