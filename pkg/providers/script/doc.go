// Package script is an offline llm.Provider that replays a YAML (or JSON) script of model
// turns: streamed text, thinking, tool calls, usage, delays and errors. It is the default
// provider for demos and tests; the execution loop sees an ordinary provider.
//
// Guarantees:
//   - Parse never panics; it rejects unknown fields, empty turns, unnamed tool calls,
//     unknown error codes, bad regular expressions and empty conditions with an error naming
//     the source and the turn.
//   - Turn selection is deterministic: the first unused turn whose `when` matches the
//     request wins; otherwise the first unused unconditional turn (see README.md).
//   - Streamed chunks concatenate to exactly the returned message text.
//   - Running out of turns is a configuration error that names the script file and the
//     turn list.
//   - A cancelled context stops streaming between chunks; the partial message is returned
//     with llm.StopReasonAborted.
//   - One Provider may serve several sessions at once (parent and subagents); each turn
//     list keeps its own cursor.
package script
