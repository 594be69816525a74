// Package assemble is the composition root: it builds sessions the way a user expects
// them. It reads the settings layers and project context, chooses the provider, builds
// the built-in tools confined to the workspace, the command sandbox, the permission
// evaluator and hook runner, starts the MCP servers, loads plugins (package plugins),
// skills and agent types, wires the subagents and background commands to a runner
// (package background), opens the session store and log, and hands them to
// pkg/engine/session. It is the one package of the
// engine that climbs to concrete tools (pkg/tools/...), providers (pkg/providers/...)
// and the sandbox (pkg/sandbox/...); nothing below it imports it.
//
// New wraps the assembled session in the session core, *interactive.InteractiveSession
// (interactive.Wrap), giving it an interactive.Host: the ports through which the core's
// commands and events reach what was assembled (tasks, agents, skills, memory,
// settings, the session store, model aliases). Of returns the Assembled account of a
// session (provider choice, tools, paths, warnings, MCP servers, plugins). Query runs
// one prompt through it. Go embedders inject a ready provider (Options.LLM) and their own
// tools (Options.Tools). Adapters in this package translate between the concrete engine
// packages (permission, hook, store, sessionlog) and the small ports that
// pkg/engine/session declares.
//
// Front ends call New (or are given a session New made): the headless CLI (robota -p),
// the TUI and pkg/engine/manager (for the gRPC server), so a session behaves the same
// whichever client drives it. Beyond constructing, they speak the session core's words.
//
// Guarantees:
//   - A project whose .robota is a symlink leading outside the project is refused before
//     anything is read from or written into it (ErrRobotaDirOutside).
//   - Where a session's records, logs, saved tool output and edit checkpoints go
//     (StateRoot, DESIGN decision 3): the project's .robota; for a session started in the
//     home directory or the temporary directory itself (os.TempDir, /tmp), the user's
//     ~/.robota, never a .robota created in the temporary directory. That store is shared
//     by such directories: --continue and /resume there see the directory's own sessions
//     (the record's cwd); --resume ID finds any of them. Saved tool output of a session in
//     the temporary directory is then outside its working directory, so reading it back
//     follows the rules for reads outside (it may ask).
//   - The settings `env` object (every layer, merged by name, the higher layer winning)
//     is in the environment of Bash commands, background commands and command hooks,
//     over the inherited variables of the same name; http hooks' allowedEnvVars see it.
//   - Claude Code's session flags: SystemPrompt replaces the built system prompt ("" sends
//     none; AppendSystemPrompt still appends); BuiltinTools limits the built-in tools
//     offered; SessionID names the new session and fails (ErrInvalidConfiguration) when the
//     store has it; NoPersistence writes no record and no session log; FallbackModel
//     repeats a call the model cannot serve (overloaded, not available) with the fallback
//     models, never one that already streamed text; MaxThinkingTokens and Betas go to the
//     provider type's thinking option and beta header (a warning for a type without);
//     --model resolves
//     "default" and the sonnet/opus/haiku aliases per provider type, and is honoured when
//     the provider is detected from the environment.
//   - MCP servers: the project's .mcp.json (not with StrictMCPConfig) and MCPConfigs are
//     started when the session is assembled, at once, each within MCPStartTimeout
//     (MCP_TIMEOUT ms, else 30 s); their tools (mcp__server__tool, pkg/tools/mcp) go
//     through the session's permission rules and hooks as built-ins do. A server that
//     fails to start is a warning naming it and its error, "failed" in MCPServers, and
//     the session goes on; an unreadable server list is an ErrInvalidConfiguration. The
//     servers close with the session (Close, after SessionEnd). Subagents do not get MCP
//     tools (yet). "sdk" servers connect through MCPSDKTransport.
//   - Tool output cut to fit a tool result is saved whole in .robota/tool-output (see
//     ToolOutputDir), which a Read in any permission mode may open.
//   - Plugins (package plugins): the settings' enabledPlugins (marketplaces from
//     extraKnownMarketplaces, ~/.robota/plugins and Claude Code's ~/.claude/plugins) and
//     Options.PluginDirs load before anything else is built. Their skills and commands
//     join the catalog below the project's and user's (/plugin:name, and the bare /name
//     while nothing else has it), their agents the Agent tool's types (plugin:name),
//     their hooks run after the settings' hooks (disableAllHooks covers them), their MCP
//     servers start with the others (plugin:<plugin>:<server>). A plugin that cannot load
//     is a warning naming it, the file and the problem, and "failed" in Plugins; the
//     session goes on. Plugin loading never fails the assembly.
//   - Hooks (pkg/engine/hook): the settings' hooks run with command, http, prompt and
//     agent executors. A prompt hook's model call goes through the session's provider
//     (purpose llm.PurposeHook, no tools; its `model` alias resolved per provider type,
//     else the session's model). An agent hook runs a subagent ("hook-agent") with Read,
//     Grep and Glob only, which never asks (what the rules do not allow is denied) and
//     runs no hooks itself, so it cannot start itself again. Its messages are not
//     published (no EventSubagentMessage, nothing in stream-json): its reads and
//     verdict are the hook's work, as in Claude Code, where hooks' internals never
//     appear as the model's messages; they stay in its transcript. A hook that cannot run
//     (unknown type, no prompt, an agent hook without Options.Runner) is an
//     ErrInvalidConfiguration naming the file and key, as is an `if` that is not a
//     permission rule or a hook model the provider type cannot resolve; hooks of Claude
//     Code events robota does not fire are a warning. `if` matches a call as the same
//     deny rule would (so `Bash(rm *)` matches `ls && rm x`). Non-blocking hook failures are written to the session
//     log, and a prompt or agent hook's also to the user (the tool's end event Message).
//     Notification hooks fire (notification_type permission_prompt) when an
//     InteractiveSession asks a permission question, without delaying it.
//   - A skill's allowed-tools (Claude Code rule syntax) are allow rules for the rest of
//     the prompt that invoked it — the model's Skill call, or the user's /name, whose
//     expanded prompt gets them when it runs — and for a forked skill's subagent; deny
//     rules, ask rules and safety checks still win, and the grant ends with the prompt.
//     An entry that is not a rule is a warning naming the skill file.
//   - Session names: Options.Resume (--resume) takes an id or a name: ResolveSession
//     resumes the one session of that name, and lists the ids when several have it
//     (ErrAmbiguousSession) or the names there are when none has (ErrUnknownSession).
//   - Edit checkpoints (kept by pkg/engine/checkpoint, rewound by the session core) are
//     on for a persisted session: New gives the core the state root (StateRoot).
package assemble
