// Package store owns session persistence: the Record a session is saved as (every field of
// the spec's ISessionRecord table), the Store port, a file-backed store keeping one
// append-only journal per session, an in-memory store keeping the same journal bytes, and
// the LatestForCwd (--continue) and Fork (--fork-session) helpers.
//
// # The journal ({dir}/{id}.jsonl)
//
// A journal is a sequence of lines, each one JSON object on one line (JSON encoding never
// writes a raw newline inside a value) that starts with {"k":"<kind>", followed by the
// kind's first member:
//
//	{"k":"h","v":1,"h":{header}}      header: id, cwd, name, parent, createdAt,
//	                                   systemPrompt, toolSchemas, the opaque fields other
//	                                   layers own, "extra" (members this version does not
//	                                   define). The latest one in force supersedes earlier ones.
//	{"k":"m","i":N,"m":{message}}     message N of the history (N counts from the last reset)
//	{"k":"s","i":N,"m":{message}}     message N replaced (a resumed session's system message)
//	{"k":"e","a":A,"e":{entry}}       a timeline event entry, after the first A messages
//	{"k":"r"}                         reset: the history and events so far are dropped
//	                                   (compaction, /clear); the messages after it start at 0
//	{"k":"c","n":N,"e":E,"t":T,"h":O,"r":R}
//	                                   commit: the batch before it is complete; the journal
//	                                   then holds N messages and E events, was updated at T,
//	                                   its header in force is the line at byte offset O, and
//	                                   its history starts at byte offset R (after the last
//	                                   reset line; 0 when there is none)
//
// Every save (Append) writes one batch: its lines and a commit line, in one write followed
// by one fsync, at the end of the last complete batch. Nothing written is ever rewritten:
// a round costs the bytes of its own messages, whatever the size of the history, and
// compaction appends a reset line and the new history. The first batch of a session is
// written to a temp file, fsynced and renamed into place, so a journal always holds at least
// one complete batch.
//
// Recovery: a reader takes the last line that starts with {"k":"c", is complete (ends in a
// newline) and parses; everything after it is the batch in flight when a crash came (torn
// at any byte, or whole lines without their commit) and is dropped, reported through
// Options.OnWarning as a *TornTailError, never as a failed load. The next Append cuts those
// bytes off before it writes. A line before the last commit that does not parse is damage,
// not a crash: Load reports a *CorruptError naming the file and line.
//
// Why the header is a journal line rather than a separate file replaced atomically: a
// header change (a new name, a decorated field) then rides in the same write and fsync as
// the round it comes with, and is as atomic as the round (one commit decides both); a
// separate file would cost a temp file, two fsyncs and a rename whenever it changes and
// could disagree with the journal after a crash between the two. A header line is written
// only when it differs from the one in force, and the commit line points at the one in
// force, so a listing reads the last commit (a read of the file's tail) and one header line
// without decoding any message. A session sends its header with every save; the journal's
// encoder keeps a copy of the last header it encoded with its payload, so an unchanged
// header costs a comparison, not an encoding and a secret scan of the tool schemas.
//
// Reading: Load reads the file once and decodes it in one pass: the header in force from
// the commit's offset, then the lines after the last reset line (from the commit's other
// offset), each message decoded once, straight into the history; nothing is decoded twice or cloned
// through JSON. Fork copies the parent's bytes up to its last commit into the new journal
// and appends a header naming the fork and its parent, so the history is never re-encoded.
//
// Redaction: every payload (message, event entry, header) is redacted as it is written
// (package redact, exactly as strong as before: see redactPayload), so no credential a user
// pasted into a prompt or a tool printed reaches disk.
//
// The earlier format ({dir}/{id}.json, one JSON object holding the whole record, see
// testdata/record.golden.json) is still read by Load, List and Fork; the first Append to
// such a session migrates it to a journal and removes the old file.
//
// Guarantees:
//   - A kill at any instant leaves every session loadable with every batch whose Append
//     returned; a failed Append (a full disk) is cut back off and leaves the journal as it
//     was; its error names the file that could not be written.
//   - One process writes a given session at a time (a FileStore notices a journal that grew
//     behind its back and re-reads its tail, but two concurrent writers are not supported).
//   - IDs are validated (ValidateID) before any file system access, so an ID can never name
//     a path outside the directory.
//   - Load of an unknown ID returns an error matching ErrNotFound; Delete of an unknown ID
//     succeeds. A file that does not hold a valid session is reported as a *CorruptError
//     naming its path; List skips it and reports it in Listing.Corrupt, never failing.
//     LatestForCwd returns such an error when the corrupt file may be the newest session.
//   - List is ordered by UpdatedAt, newest first (ties by ID), and decodes no message.
//   - Append and Save stamp UpdatedAt (and CreatedAt when zero) with the injected clock.
//   - An Append whose Base does not match the journal fails with ErrConflict and writes
//     nothing; the writer resends its history with Reset.
//   - Members of a record this version does not define are kept in Record.Extra and written
//     back unchanged, so an older binary never drops a newer binary's fields.
package store
