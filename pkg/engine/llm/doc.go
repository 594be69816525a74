// Package llm owns the provider-neutral vocabulary of the engine: messages and their
// content parts, tool schemas, tool calls and tool results, token usage, the chat request,
// the Provider and Tool contracts, provider capabilities and the error taxonomy.
//
// Guarantees:
//   - It imports only the standard library, so every other package (agent, providers,
//     tools, session, server, workers) can depend on it without cycles.
//   - Every type that travels (Message, Part, Usage, ToolCall, ToolResult, ChatRequest,
//     ChatResponse, RawPayloadEvent) is a plain struct with json tags: it serializes
//     losslessly to JSON, so it can be stored in session files and sent to workers.
//   - Only assistant messages can be interrupted; the factories set every other role to
//     StateComplete.
//   - Provider tool-call IDs are transcript data: nothing here rewrites or de-duplicates them.
package llm
