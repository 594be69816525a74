// Package cli is the `robota` command: flag parsing and dispatch. It owns the
// command-line contract of DESIGN.md (flags, exit statuses) and nothing of the
// engine itself.
//
// Headless runs (`robota -p`) are a thin adapter over interactive.InteractiveSession
// (DESIGN.md decision 7), the one code path every front end shares: New with NoPrompt
// (a call that needs approval is denied and listed in permission_denials), Submit, and
// the output rendered from the prompt's events (message, compaction, tool_start/tool_end)
// until its end event. A stop signal maps to Abort, then Close saves the session. They
// behave as claude -p runs:
//   - -p may stand without a value: the prompt then follows the flags, or piped stdin is
//     the prompt (`echo q | robota -p`); with a prompt, piped stdin is appended to it.
//     Stdin that brings no byte within 3 s is given up with a warning on stderr, so a pipe
//     nobody closes cannot hang the run.
//   - A prompt "/name args" runs the slash command (InteractiveSession.ExecuteCommand), as
//     `claude -p "/compact"` does, and the model is not asked: the result's text is the
//     command's message (stream-json: the result line; /compact also writes its
//     compact_boundary), a command that did not succeed is an error result (exit 1), and
//     an unknown name is "Unknown command: /name" (exit 1) unless "/name" is an existing
//     file path, which goes to the model as text. Stream-json input user lines do the same,
//     and --engine runs the command in the engine's session (ExecuteCommand).
//   - num_turns counts the model/tool rounds that ran, Stop-hook continuations included.
//     The forced final summary made at the --max-turns cap is not a turn, so --max-turns N
//     reports at most N (Claude Code reports N+1 there: it counts the turn it refused to
//     start); its usage is counted.
//   - Claude Code's flags are accepted with its meaning (flags.go; the README has the
//     table): --print is -p, -c/-r/-v are --continue/--resume/--version, -r and -d take an
//     optional value, -v prints "X.Y.Z (robota)". A flag robota cannot honour yet is
//     accepted and named once on stderr under --verbose, never silently misread. An unknown
//     flag is one line on stderr naming it, exit 2; a flag-shaped argument after -p is a
//     flag, never the prompt. --json-schema adds a StructuredOutput tool (structured.go);
//     its valid input is the result's structured_output.
//   - Exit status: 0 success; 1 a failed run (error_during_execution, including the
//     context-window guard stopping the run; error_max_turns) with the reason on stderr in
//     text mode and in "errors" otherwise; 2 a usage or configuration error (flags,
//     settings, hooks, permission rules, --cwd, no provider, an empty --resume); 128+signal
//     after SIGINT (130), SIGTERM (143) or SIGHUP (129), the session saved first.
//   - A session that could not be saved (a full disk) makes the run fail: the result line
//     is an error naming the file that could not be written, and the exit status is 1.
//   - --continue whose newest session record cannot be read fails (exit 1), naming the file
//     and what to do; it never continues an older session instead. Problems the session
//     store recovered from (a crash's torn last round, dropped) are printed on stderr.
//   - MCP servers (.mcp.json, --mcp-config, --strict-mcp-config; pkg/tools/mcp): system/init
//     lists each as {"name", "status": "connected"|"failed"}; a failed one is also named
//     on stderr with its error, with or without --verbose, and the run goes on.
//   - Plugins (settings enabledPlugins, --plugin-dir; interactive/plugins): system/init
//     lists those that loaded as {"name", "path"}; one that did not is named on stderr
//     with the reason, with or without --verbose, and the run goes on. `robota plugin`
//     (plugin.go) manages marketplaces (add a directory, a git URL cloned with go-git, or
//     owner/repo), installs into ~/.robota/plugins or .robota/plugins, and writes
//     enabledPlugins into the --scope's settings file (user, project, local).
//
// `--input-format stream-json --output-format stream-json` (with or without -p;
// streamjson_input.go, control.go) is Claude Code's transport for the Agent SDKs: stdin
// carries user messages (string or content blocks), each run as a turn of one session in
// one process and ended by its result line, until stdin closes (exit 0; the turns'
// failures are in their result lines). Control requests are answered with
// control_response: initialize (hooks registered with callback ids become hooks of the
// session, run by sending hook_callback, whose answer is read as a command hook's JSON
// output; appendSystemPrompt is appended; agents become agent types of the Agent tool,
// over the files' and built-ins of their names; sdkMcpServers are connected as MCP
// servers whose JSON-RPC messages travel as mcp_message control requests to the client,
// the server's reply in the response's mcp_response; a non-empty systemPrompt is named on
// stderr under --verbose as not applied: the SDKs' default empty systemPrompt keeps
// robota's own prompt), interrupt (Abort), set_permission_mode, set_model (before the
// session starts, or naming its own model), mcp_message (a message of an SDK MCP server
// to robota; an unknown server is an error response). With
// --permission-prompt-tool stdio every permission question goes to the client as
// can_use_tool (allow with updatedInput, or deny with a message; interrupt aborts the
// turn); without it, as in -p, such calls are denied. --include-partial-messages adds
// stream_event lines rebuilt from the session's deltas in Anthropic's event shapes;
// --replay-user-messages echoes the user lines.
//
// `robota -p ... --engine ADDR` (engine_client.go) runs the prompt in a running
// robota-engine instead (unix:///ABS/PATH, or tcp://HOST:PORT with mutual TLS from
// --tls-cert, --tls-key and --tls-ca), through pkg/client: the session is created with the
// same flags and the run's cwd, its committed messages are read from the session's
// history as its events arrive and rendered by the same output writer, so the output
// equals the in-process run's (timing fields and ids aside). Permission questions are
// denied (no one can answer them) and listed in permission_denials; the answer is marked
// automatic (RespondPermissionRequest.automatic), so the denial text the model sees is
// the in-process run's, never "denied by user". Exit statuses are the in-process ones:
// 2 for a bad --engine address, TLS files
// or a flag the engine refuses (INVALID_ARGUMENT); 1 for a failed run, no session to
// resume, or no engine answering; 128+signal after the prompt was aborted in the engine.
// The run's own session is closed (saved, SessionEnd fired) at the end; a session that
// was already live in the engine (another client's) is left open.
//
// Subagents (the Agent tool) and background commands (Bash run_in_background) run in
// robota-worker processes (DESIGN.md decision 10), found beside robota, then on PATH:
// each subagent in a worker of its own, the background commands in one shared worker,
// launched on the first one and stopped when the run ends (pkg/runner/pool). Without it
// that call fails with how to install it and the run goes on. robota launches robota-worker through go-plugin over gRPC, as
// robota-engine does (pkg/runner/launcher), and does not serve as a worker itself: serving
// links go-plugin's net/rpc server, whose reflect-method use costs every run, --version
// included, megabytes of RSS (PERF-NOTES.md; measured with internal/procbench).
package cli
