// Package interactive assembles sessions the way a user expects them: it reads
// the settings layers and project context, chooses the provider, builds the
// built-in tools confined to the workspace, the permission evaluator and hook
// runner, the session store and log, and hands them to pkg/engine/session.
//
// It is the SDK layer: the headless CLI (robota -p, through New), the gRPC server and
// the TUI all obtain their sessions from it, so a session behaves the same whichever
// client drives it. InteractiveSession (New) wraps an assembled session with what every
// front end needs and none re-implements (DESIGN.md decision 7); Query runs one prompt
// through it. Go embedders inject a ready provider (Options.LLM) and their own tools
// (Options.Tools). Adapters in this package translate between the concrete engine
// packages (permission, hook, store, sessionlog) and the small ports that
// pkg/engine/session declares.
//
// Front ends name this package's words only (vocabulary.go gives them the session's
// approvals, modes, denials, timeline entries and errors): pkg/cli, pkg/tui and
// pkg/engine/server import no pkg/engine/session package, so what they rely on is what
// this package documents.
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
//   - Skills the user runs (/name args, the spec's executeSkillCommand): the expanded
//     body goes to the model, the user message carries the user's input as
//     Metadata[MetadataDisplayInput] (clients show it, after a resume too), the timeline
//     gets a skill-invocation entry before it, and UserPromptSubmit sees "/name args"
//     (the spec's displayInput and rawInput). A context: fork skill, the user's or the
//     model's Skill call, runs in an isolated subagent (the skill's agent, else
//     general-purpose) with the fork-worker prompt suffix; its messages are published
//     under the Skill call's id, and under a generated "skill_…" id for the user's run
//     (there is no tool call: the spec runs it without asking the model), whose
//     conversation is the user's "/name args" and the subagent's answer.
//   - A prompt's end Result carries its tool calls (Tools, in the model's order) and
//     its history delta (Result.History); EventThinkingEnd marks the end of the model's
//     thinking (the spec's thinking(false)).
//
// # InteractiveSession
//
// Guarantees:
//   - Events carry a per-session sequence number, from 1, strictly increasing in the order
//     they were published; every subscriber sees them in that order.
//   - Every accepted prompt ends with exactly one complete, error or interrupted event
//     carrying its PromptID. When that event is delivered, the prompt's history entries
//     are in History and saved, and the session is already idle or running the queued
//     prompt.
//   - Submit queues at most one prompt: a second one while a prompt runs is queued and
//     runs next without another call; a third fails with ErrQueueFull. Abort clears the
//     queue (the queued prompt ends interrupted at once) and the running prompt ends
//     interrupted when the abort completes, its partial answer kept and saved.
//     CancelQueue removes only the queued prompt.
//   - Delivery (DESIGN.md decision 6): publishing never waits for a subscriber. Each
//     subscriber has a bounded queue; undelivered text and thinking deltas merge (the
//     merged event carries the last merged Seq), an undelivered context update is
//     replaced by the newer one, and every other event (tool_start, tool_end, message,
//     permission_request, permission_resolved, compaction, complete, error, interrupted)
//     is delivered as published, never merged or dropped. A subscriber past its bound is
//     disconnected (ErrSubscriberTooSlow, naming the last Seq it took) while the session
//     and the other subscribers go on. Next takes one event; NextBatch takes everything
//     queued at once, in the same order (a transport sends it per wake-up);
//     NextBatchWithin waits at most a given time. SubscribeWith(SubscribeOptions) is for
//     a transport: Skip types are never queued for it, Lazy ones are queued without
//     waking it and taken with the next event, or LazyDelay after they came (no timer
//     of their own while the reader waits in NextBatchWithin with a limit no later).
//   - SubscribeAfter(seq) replays the kept events after seq (a bounded buffer, by count
//     and bytes) and continues live, with nothing missed or repeated in between; when
//     some of those events are no longer kept it fails with ErrReplayUnavailable instead
//     of leaving a silent gap.
//   - Permission round trip: an ask publishes permission_request (request id, tool, input,
//     reason, the rule "allow for the session" would add, deadline). RespondPermission
//     allows once, allows for the session (the request's rule: a command prefix such as
//     Bash(npm test:*) or a directory such as Edit(//abs/dir/**), never the whole Bash or
//     file tool, and only lifting the mode's ask), or denies with a message the model
//     reads. RespondPermissionInput's allow may also replace the call's input (the Agent
//     SDK's updatedInput); the rewritten call is evaluated again and a deny rule still
//     denies it. A second answer fails with ErrPermissionAnswered, an unknown id with
//     ErrUnknownPermissionRequest. No answer within PermissionTimeout denies with a reason
//     the model reads; an abort while waiting denies and the tool never runs, whatever
//     answer comes later. Every request ends with one permission_resolved event, before
//     the end event of its prompt.
//   - Every message appended to the conversation (the prompt, each assistant message,
//     each tool result) is a message event, in conversation order, after the tool_end of
//     its call and before the prompt's end event.
//   - With InteractiveOptions.NoPrompt (headless runs, Query) a call that needs approval
//     is denied at once and listed in the session's PermissionDenials, as before.
//   - History is the session's timeline: chat messages plus tool-start and tool-end
//     entries (ToolState: first argument, result, Edit diff lines, bounded command
//     output preview), one tool-summary and one usage-summary per prompt (when tools ran
//     and usage was reported), and a compaction entry opening the timeline after a
//     compaction. It is persisted with the session.
//   - Commands (package commands): ExecuteCommand runs a slash command from the registry
//     of the built-ins (help, clear, compact, mode, model, language, cost, context,
//     permissions, memory, rewind, resume, rename, reset, background, agent) and the
//     sources added with AddCommandSource; ListCommands filters by prefix. clear,
//     compact, reset, model, language X and rewind (code, conversation) refuse while a
//     prompt runs (Success false). Every command carries modelInvocable, userInvocable
//     and safety (read-only, write, process, network, background-agent; /memory's and
//     /mode's depend on the arguments). ListCommands and ExecuteCommand are the user's:
//     a command that is not user-invocable (a skill with user-invocable: false) is
//     neither listed nor run. /language X saves `language` in ~/.robota/settings.json and
//     composes the system prompt again ("Response language: X"); /cost shows the
//     session id, message count and token usage, a resumed session's usage restored
//     from its usage-summary entries; /reset clears the conversation and the session's
//     approvals and answers the spec's data.resetRequested, but it neither exits nor
//     deletes settings as the spec's CLI did: Claude Code's /reset is /clear's alias,
//     and Claude Code wins (DESIGN decision 1).
//   - The SlashCommand tool (Claude Code's name; the spec's ExecuteCommand as a model
//     tool) runs a model-invocable command for the model: /memory, and the skills and
//     custom commands without disable-model-invocation (run as the Skill tool runs
//     them). It is a built-in tool (--tools names it; subagents do not get it), so the
//     permission rules (SlashCommand, SlashCommand(/name), SlashCommand(/name:*)) and the
//     PreToolUse/PostToolUse hooks apply; a call's mode class is its command's safety
//     for its arguments (/memory list reads, /memory add modifies: asked in default
//     mode, allowed in acceptEdits). A command that is not model-invocable, or unknown,
//     is refused with a message naming the commands the model can run.
//   - Project memory (package memory; spec: Project Memory): /memory list | show [topic] |
//     add <user|feedback|project|reference> <topic> <text> | pending (alias review) |
//     approve ID | reject ID | used. Memory is written and retrieved only by the command,
//     never as a side effect of a turn. add applies memory.Evaluate: a text that looks
//     like a secret is refused (Success false, the reason names what it looks like, the
//     text is written nowhere and not repeated); one the policy cannot be sure of (an
//     e-mail address, a long random-looking string) is queued in
//     .robota/memory/pending for a person to approve or reject; anything else is appended
//     to its topic file and the MEMORY.md index (deduplicated). Every add, approval,
//     rejection and show is an event of the record's memoryEvents (and a memory_event of
//     the session log); show records the topic in usedMemoryReferences. Both are bounded
//     (the last 200 events, 50 references), saved at once (SaveHeader) and restored on
//     resume, where /memory used reports them. The startup index is in the system prompt
//     under Project Memory (contextload).
//   - Session names: /rename saves the name at once; a resumed session keeps it, a fork
//     starts unnamed. Options.Resume (--resume) takes an id or a name: ResolveSession
//     resumes the one session of that name, and lists the ids when several have it
//     (ErrAmbiguousSession) or the names there are when none has (ErrUnknownSession).
//   - Edit checkpoints (New, with persistence; kept by pkg/engine/checkpoint, this package
//     holds the rewind): each prompt starts a checkpoint (the prompt
//     id, its text head, the conversation length), listed even when nothing was edited:
//     one line appended to .robota/checkpoints/{sessionId}/checkpoints.jsonl (a line cut
//     short by a crash is skipped). Before the first Write, Edit or MultiEdit of a file
//     within a prompt, the file's content (or its absence) is kept in
//     .robota/checkpoints/{sessionId}/{promptId}/ (manifest.json, files/), so a resumed
//     session rewinds too; checkpoints written before the index (manifests only) still
//     load. /rewind list shows them newest first with their files; /rewind code ID puts
//     every file changed since that prompt began back as it was then (created files
//     removed) and drops the later checkpoints; /rewind ID (or conversation ID) also
//     truncates the conversation to before that prompt (refused when a compaction or
//     clear left fewer messages).
//     Files changed by Bash are not tracked, and the command says so. Sessions from
//     NewFromConfig have no checkpoints.
package interactive
