// Package store owns session persistence: the Record a session is saved as (every field of
// the spec's ISessionRecord table), the Store port, a file-backed store writing one JSON
// file per session, an in-memory store, and the LatestForCwd (--continue) and Fork
// (--fork-session) helpers.
//
// Guarantees:
//   - A saved file is always a complete record: FileStore writes a temp file in the same
//     directory, fsyncs it, renames it over {dir}/{id}.json and fsyncs the directory, so a
//     crash at any moment leaves the previous complete save or no file, never a torn one.
//   - IDs are validated (ValidateID) before any file system access, so an ID can never name a
//     path outside the directory.
//   - Load of an unknown ID returns an error matching ErrNotFound; Delete of an unknown ID
//     succeeds. A file that does not hold a valid record is reported as a *CorruptError
//     naming its path; List skips it and reports it in Listing.Corrupt, never failing.
//   - List is ordered by UpdatedAt, newest first (ties by ID).
//   - Save stamps UpdatedAt (and CreatedAt when zero) with the store's injected clock.
//   - FileStore redacts secrets (API keys, tokens, passwords; see package redact) before
//     writing, so no credential a user pasted into a prompt or a tool printed reaches disk.
//   - Members of a record this version does not know are kept in Record.Extra and written
//     back unchanged, so an older binary never drops a newer binary's fields.
package store
