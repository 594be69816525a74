// Package output renders a headless run (`robota -p`) in the three formats
// of DESIGN.md §Contracts, with Claude Code's message shapes so tools that
// read `claude -p` output read ours:
//
//   - text: the final answer only;
//   - json: one result object;
//   - stream-json: one JSON object a line: system/init, then assistant and
//     user messages as they are committed, system/compact_boundary on
//     compaction, and the result object last.
//
// The Writer is fed provider-neutral llm messages; it owns the translation to
// the wire shapes and nothing else. Every line is written with one Write call.
package output
