// Package mcp connects a session to MCP servers (the Model Context Protocol) through the
// official github.com/modelcontextprotocol/go-sdk client, and offers each server's tools
// to the model as llm.Tools. It depends only on llm and the SDK, like every tool package.
//
// Configuration is Claude Code's: {"mcpServers": {name: {"command", "args", "env"} |
// {"type": "http"|"sse", "url", "headers"}}}, from a project's .mcp.json and from
// --mcp-config arguments (a file, relative to the working directory, or a JSON object);
// LoadConfigs reads them, --strict-mcp-config dropping .mcp.json. A later source wins
// over an earlier one for the same server name. "${VAR}" and "${VAR:-default}" in
// command, args, env, url and headers expand from the environment, as in Claude Code.
// A server of type "sdk" (the Agent SDKs' in-process servers) has no transport of its
// own: the caller gives one (Options.SDKTransport), else it fails to start.
//
// Guarantees:
//   - Connect starts every server at once, each bounded by its own timeout (initialize
//     and the tool listing included); a server that fails is reported in Status with its
//     name and error, and the others are still used. A stdio server's stderr tail is in
//     its error.
//   - A server's tool T is offered as mcp__<server>__T (characters outside
//     [A-Za-z0-9_-] become _), with the server's description and inputSchema; a name
//     longer than the 64 characters model APIs accept, or taken already, is left out with
//     a warning instead of breaking every request.
//   - Execute passes the model's arguments unchanged; the result is the call's text
//     content (resources by their text or URI, images and audio named by MIME type,
//     structuredContent when there is no content); isError, a protocol error or a
//     closed server is a failed result naming the server and tool. It never panics.
//   - A tool is concurrency-safe (agent.ConcurrencySafe) only when the server marks it
//     readOnlyHint.
//   - Permission rules and hooks see the mcp__ name: the session treats these tools like
//     built-ins (rules `mcp__server`, `mcp__server__*`, `mcp__server__tool`).
//   - Close ends every connection at once (a stdio server gets its stdin closed, SIGTERM
//     2 s later, SIGKILL 2 s after that, the SDK's shutdown) and is safe to call twice.
//   - The tool list is read once, at Connect: a server's tools/list_changed is not
//     followed.
package mcp
