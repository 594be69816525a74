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
//   - Logging never panics; failures are returned to the caller, who may ignore them.
//     SilentLogger is the null object.
package sessionlog
