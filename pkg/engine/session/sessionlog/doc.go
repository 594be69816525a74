// Package sessionlog owns the session log: an append-only JSONL file per session
// ({dir}/{sessionId}.jsonl, one event a line) that records what was sent to the model, what
// came back and what the session did, for diagnostics and replay. It also owns the readers:
// ReadLog, ReplaySessionLogEntries (the history rebuilt from history_mutation events, every
// provider request rebuilt from provider_request events, the UI timeline from those and
// the timeline_entry events, with a compaction, clear or rewind applied as the session
// applies it) and
// ValidateSessionReplayLogEntries (missing pairs, broken request chains, bad payload
// references).
//
// Levels (Level, Options.Level; a session's from settings.json sessionLog.level): at
// LevelCompact, the default of sessions, a round writes what the session journal does not
// hold: its provider_request written against the history (no message, tools named by
// base.toolsFrom) and a provider_response_normalized without its message; messages,
// timeline entries, raw payloads and deltas are the journal's or LevelFull's (see Level).
// The forms below are LevelFull's; LevelCompact writes a subset of them.
//
// What a line records: each line holds what is new, never the whole conversation again,
// so writing a line costs the size of its new content and a long session's log grows
// with the conversation, not with its square.
//   - history_mutation: "append" carries the one appended message (with its index);
//     "reset" carries the complete new history (a session's start, clear, compaction, a
//     forked conversation in its new log, which therefore holds the history once), with
//     length, lastId and lastHash (SHA-256 of the last message as the line encodes it).
//     A session resumed into its own log (same session id) logs a reset that continues
//     the log's history instead: continues {messages, lastId} names the history the
//     earlier lines rebuild (its length and last message's ID, checked by replay),
//     replaced lists {index, message} for the messages that differ (a new system prompt)
//     and messages holds those after it. The FileLogger writes it only when the log's
//     history is the resumed one: same length, and the same last message by ID and
//     lastHash; else the reset is whole. It learns that history when it opens a log, from
//     the last history_mutation line alone (read backwards from the end; the log is not
//     replayed), and follows it as it writes.
//   - provider_request (an agent.Event): data.request carries provider, model, purpose,
//     messageCount (the length of the list the provider was sent), newMessages and, for
//     every request but an agent's first, base {executionId, round, messages, tools}: the
//     request's first base.messages messages are those of the latest earlier
//     provider_request with that executionId and round (the agent's previous request: its
//     history is append-only), newMessages follow them, and tools is left out when base.tools says
//     the schemas are the base's. An agent's first request, when it starts with
//     messages of the history (a session's agent: its history is the session's), has
//     base {history: true, messages: k, replaced}: its first k messages are those of the
//     history the log's history_mutation lines rebuild at that line, except replaced
//     ({index, message}: an interrupted answer as the provider is sent it). So a resumed
//     session's first request writes what the turn adds, not the conversation. Without a
//     base, newMessages is the whole list. Logs
//     written before this format carry request.messages (the whole list) and replay as
//     they are.
//   - provider_native_raw_payload of kind request (the provider's SDK-native body, which
//     holds the conversation, system prompt and tools again): written as a delta of the
//     previous body the logger wrote for the same conversation and provider. Its
//     conversation array (member "messages" or "input") keeps only the elements after
//     the first rawPayload.payloadBase.shared ones, which are the base body's (compared
//     byte for byte as the provider encoded them), and the members listed in
//     payloadBase.same are left out: they are the base body's. payloadBase names the base
//     line by executionId and round (the latest earlier native request body with them).
//     A process's first body for a conversation in a log it reopened is written whole:
//     the log is not read back for the last body (a resume costs the conversation, not
//     the log). Logs written before this hold it as a delta of the earlier process's
//     last body; EachNativeRequest rebuilds every body of both, one at a time.
//   - pre_run: the enriched input and historyLength, the length of the history before the
//     call (the history is the one history_mutation events rebuild at that line).
//   - assistant: the answer, historyLength and historyStructure for the messages from
//     historyFrom on (those the run added).
//   - A round's answer is written twice (provider_response_raw, its history_mutation),
//     not five times: provider_response_normalized whose message is the raw response's
//     carries response.messageRef {sequence} (the provider_response_raw line) instead of
//     response.response.message; assistant_message_committed whose message is the one the
//     last history_mutation appended carries messageRef {sequence} (that line) instead of
//     message; assistant whose content is that message's text carries contentRef
//     {sequence} instead of content. A message that differs is written whole. Lines
//     written before this carry the message itself; replay reads neither form.
//   - text_delta and provider_stream_raw_delta are coalesced: one line carries the
//     consecutive pieces of one execution that are written together, joined, with
//     pieces (text_delta) or delta.pieces (provider_stream_raw_delta) counting them
//     (left out for one piece, the form of every line before coalescing). The line
//     keeps the first piece's place, timestamp and identifiers; a server_tool event
//     ends the line before it. Native stream events stay one a line.
//
// How a line is made: data is encoded to JSON text, and the line is written from that
// text with its objects' members sorted by name (the form of every line so far). The
// log reads, scans and writes JSON with jsontext, the tokenizer of the Go team's JSON v2
// (github.com/go-json-experiment/json, the future encoding/json/v2), and decodes and
// encodes Go values with JSON v2 and encoding/json's semantics (jsonv2.go); encoding/json
// itself is left for its types (RawMessage, Number) and for the tests, as the oracle.
// agent.Event values (a provider request in its delta form; a streamed answer is
// thousands of them) are encoded by an appender of their fields into a reused buffer
// (encode.go; strings quoted, floats formatted and raw JSON compacted by jsontext), the
// value json.Marshal gives; any other data, and a value the appender refuses, by JSON
// v2's encoder. (That encoder, jsontext's token writer and github.com/goccy/go-json cost
// a turn more time than the appender for the events, past the log's budget, and
// github.com/segmentio/encoding/json writes other text: encode.go.) An event whose answer
// is referred to (refs.go) is encoded with the reference in its place. An event none of whose parts is lifted, held back or moved to a payload file
// (most of a turn's) goes from that text to its redacted line in one pass of jsontext's
// decoder (canonical.go); the others are decoded into a JSON tree, rearranged, redacted
// and encoded (tree.go). Both give what encoding/json's decoder, redact.Value and
// encoder give, value for value: strings are quoted as jsontext quotes them (no HTML
// escapes, U+2028 and U+2029 as they are, invalid UTF-8 as U+FFFD). Lines written
// before (encoding/json's escapes) read the same. Tests and fuzz targets decode both
// texts with encoding/json and compare the values (tree_test.go, canonical_test.go,
// encode_test.go, scanbody_test.go), and testdata/before-30 holds logs of both levels
// written before, which replay.
//
// Replay reads these forms: ReplaySessionLogEntries returns each request's exact message
// list and tools (ReplayRecord.Requests; requests share the memory of their common
// prefix), and fails with ErrReplay when a request's base is not earlier in the log or its
// counts do not add up, or when a continuing reset does not match the history it
// continues (EachNativeRequest likewise for native bodies). Validation reports
// the same as PROVIDER_REQUEST_BASE_MISSING or ENTRY_MALFORMED, and a pre_run whose
// historyLength is not the rebuilt history's as HISTORY_INDEX_MISMATCH.
//
// Guarantees:
//   - Every line is one Entry: schemaVersion, sequence (1, 2, … per session, continued
//     across reopenings), timestamp from the injected clock, sessionId, event, data.
//   - Secrets are redacted (package redact) before anything is hashed or written: no file
//     this package writes holds a redactable secret. Redaction works string by string and
//     member by member, so a message is redacted the same wherever it is written; a delta
//     line's new messages are redacted as they are written, and a shared message, never
//     written again, was redacted on the line that first held it.
//   - Nor can one be read back from the pieces a provider streams. A key split across
//     text_delta, provider_stream_raw_delta or stream_event provider_native_raw_payload
//     events matches no pattern line by line, so the FileLogger holds these streaming
//     events back and judges the text of the whole call (per execution; the deltas'
//     text, and the native events' strings joined per JSON path). Held events are written
//     early, unchanged (deltas coalesced), up to where the text before them is settled
//     (redact.SettledPrefix: it ends with whitespace, so no later piece can make it part
//     of a secret) and clean, once CoalesceBytes (64 KiB) of event data is held or the
//     oldest held event is Options.CoalesceInterval old (1 s by default; checked as
//     pieces arrive, on the logger's clock, and by a timer on the real clock while the
//     stream pauses). This keeps a streaming answer in the log while it
//     streams; the rest is written when the call ends, i.e. when any other event arrives
//     (its response, an error, a history mutation, session_shutdown, …) or on Sync or
//     Close. A server_tool
//     event (a hosted tool run mid-stream) does not end the call: it waits in order
//     with the held events (it is written at once when nothing is held), its data
//     redacted as logged, never withheld. If the
//     call's streamed text holds a secret, the events still held are written with the
//     text withheld: the delta becomes "" beside "withheld": WithheldNote, a native
//     payload becomes {"withheld": WithheldNote}; the committed message and response
//     events keep the text, redacted as a whole. Held events keep their order and the
//     timestamp of their arrival; sequences are given at write time, so they stay
//     contiguous in file order. A crash loses the events still held: at most about the
//     last 64 KiB or second of a streaming answer, more only while that text has no
//     settled cut (one run of non-whitespace), up to the hold-back bound below.
//   - The hold-back is bounded (4 MiB of event data or 10,000 events): past the bound
//     without a settled cut, the queue is written withheld and the rest of that call's
//     streamed text is too. Residual risks: an event that is neither streaming nor the
//     call's end (another goroutine's) flushes a call mid-stream, and a key split at
//     that instant stays readable in its two parts; native stream pieces that are
//     not text deltas (thinking, tool input) go out with the next settled text delta
//     when their own text is clean so far, so one interleaved with the answer's text
//     could be cut mid-key. Providers stream those blocks apart from the text.
//   - Strings and arrays whose JSON exceeds the inline threshold are written once to
//     {dir}/{sessionId}.payloads/{sha256}.json (atomically, before the line that refers to
//     them) and replaced in the line by a PayloadRef. Objects are descended into, never
//     moved out, so identifiers (executionId, round, toolCallId, role) stay on the line.
//     (An event whose data's JSON is at most half the threshold is not measured: only
//     redaction, by what Placeholder adds to each value it hides, could take one of its
//     values past the threshold.) A message content of one long text part stays on the
//     line as an array whose part's text is the PayloadRef of the (redacted) text: the
//     file the call's coalesced text deltas went to, so a long answer is encoded, hashed
//     and stored once. Lines written before this hold the whole array's PayloadRef;
//     Hydrate reads both.
//   - A line is written with a single write(2) on an O_APPEND descriptor, so a crash leaves
//     at worst one partial last line; readers skip it and reopening the log truncates it,
//     so earlier and later lines always parse.
//   - Options.Background (what a session assembled by pkg/engine/interactive uses) takes
//     the log off the session's path: Log stamps the event, copies what the caller could
//     still change (own.go: messages, maps, byte slices, pointed-to data; any other
//     type as its JSON; not a streamed piece's agent.DeltaData, which the agent makes
//     per piece and never changes; of a provider request that extends the last one in
//     the same append-only history array, only the new messages, the rest sharing the
//     copies already made, so a round's cost does not grow with the history) and
//     queues it; one writer goroutine per log writes the queue in
//     order, so the file is line for line what a synchronous logger writes, redacted
//     the same way. The goroutine runs only while events wait, so an idle session's log
//     holds neither a goroutine nor a queue: it starts DefaultWriteDelay (2 ms,
//     Options.WriteDelay) after a burst's first event, at once when a quarter of the
//     queue is taken or a caller waits for the result, and ends when the queue is
//     empty. The delay writes a burst in one run and a quick turn's log after the turn
//     has answered, not beside it. The queue holds at most QueueLength events; a caller that finds it
//     full waits (nothing is dropped). Append, Sync and Close wait for what was queued
//     before them, so a reader of a live log calls Sync first, and Close (a session's
//     close, robota -p's exit, the engine's SIGTERM shutdown) returns once everything
//     is written. A writer's failure goes to Options.OnError, as a synchronous Log's
//     does. A crash loses, besides the held streaming events above, the events queued
//     and not yet written: at most QueueLength events, in practice the last
//     milliseconds of the session (WriteDelay plus the writer's work) (the writer keeps up with a stream; a turn's
//     end-of-call work is what it does after the turn has answered). The session's
//     journal (package store), not the log, is what is durable at every round.
//   - Logging never panics and never fails the session: Log reports failures to
//     Options.OnError, Append returns them. SilentLogger is the null object. Both satisfy
//     the session runtime's logger port (Log(event string, data any)) directly.
//   - Replay-boundary events are agent.Event values logged as data under event =
//     string(ev.Type); replay and validation read that JSON shape. A session that replaces
//     its history (clear, compaction, a forked conversation in a new log) logs a
//     history_mutation built by ResetHistory, a resumed one by ContinueHistory, so replay
//     and index checks stay exact.
package sessionlog
