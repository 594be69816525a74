// Package memory is the project memory store (spec: agent-sdk "Project Memory"): the
// index .robota/memory/MEMORY.md, the topic files .robota/memory/topics/<topic>.md, the
// review queue .robota/memory/pending/<id>.json, and the policy that decides whether a
// text may be stored.
//
// It owns the file layout, the entry format, deduplication, topic name validation, the
// sensitive-data policy and a session's audit trail (Audit: the Events and References the
// session record keeps, bounded to the last 200 events and 50 references, restored on
// resume). It does not run commands or build the system prompt: the interactive
// package's /memory command composes Store, Pending, Evaluate and Audit, the composition
// root (package assemble) saves the trail with the record, and contextload injects the
// (capped) index at startup.
//
// Guarantees:
//   - Every file the store reads or writes is opened through an os.Root at the project
//     root: a topic name, a pending id or a symlink cannot reach outside .robota/memory.
//     Topic names are validated (ValidTopic) before any path is built from them.
//   - Writes append a line (O_APPEND) to a topic file and to the index: a stored entry is
//     never rewritten, and a hand-edited file keeps its text.
//   - Append deduplicates: an entry whose normalised text (case, spacing and trailing
//     punctuation ignored) is already in the topic is reported Deduplicated, not written.
//   - A text Evaluate refuses (API keys, tokens, passwords, private keys, payment cards,
//     national identity numbers) is never written anywhere by this package; the verdict
//     names what it looks like and never repeats the text.
//
// Retrieval and capture (the spec's MemoryRetrievalService and MemoryCandidateExtractor):
// Store.Retrieve ranks the entries of every topic by the query terms they share, and
// ExtractCandidates turns the durable-fact sentences of a text into pending candidates
// through Evaluate (refused sentences are dropped, only their verdicts kept). As the
// spec says, they are building blocks for explicit commands and are not wired into the
// session: no turn retrieves topic memory or extracts candidates by itself, and the
// spec's /memory subcommands (list, show, add, pending, approve, reject, used) do not
// include a search, so nothing calls them yet. An extractor stores nothing; its
// candidates go through Store.Queue and a person's /memory approve.
//
// Regular expressions are compiled on first use (internal/lazy), not in a package init:
// robota pays every init on every command (issue 29).
package memory
