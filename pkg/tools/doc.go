// Package tools holds the engine's tools: the typed-tool helper (this file set: typed*.go,
// errors.go) and, in subpackages, the built-in tools.
//
// The typed helper builds an llm.Tool from a Go parameters struct. It guarantees:
//   - the schema the model sees is generated from the struct by google/jsonschema-go
//     (json tags name parameters, `jsonschema:"..."` tags describe them, omitempty/omitzero
//     fields are optional, unknown parameters are rejected unless allowed);
//   - arguments are validated against that schema before the tool function runs;
//   - malformed JSON, a wrong type, a missing or an unknown field yields a failed
//     llm.ToolResult whose error names the parameter — never a panic, and the tool
//     function is not called;
//   - a panic inside the tool function is recovered and reported as a failed result.
//   - the schema of a parameters type is generated and resolved once per process and
//     shared by every tool built from it (New without an edit, or WithFixedSchema); an
//     edit given with WithSchema runs for every tool, so it may depend on the instance.
//
// Tools that only read (Read, Glob, Grep, WebFetch, WebSearch) implement
// ConcurrencySafe(args) bool returning true, which the agent loop (agent.ConcurrencySafe)
// uses to run them alongside each other; every other tool (Bash, Write, Edit) runs alone
// in its batch, in request order. Agent, TaskOutput and TaskStop (agenttool) are
// concurrency-safe too, as in Claude Code: they change no file and no conversation state
// themselves. Claude Code also runs Bash commands it classifies as
// read-only at once; here every Bash call runs alone (stricter: the tool does not analyse
// what a command writes).
package tools
