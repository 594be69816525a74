// Package interactive is the session core: InteractiveSession, the one place a session
// runs (DESIGN.md decision 7), and its events. It wraps a *session.Session with what
// every front end needs and none re-implements: events with sequence numbers,
// subscribers with bounded delivery and replay, a prompt queue of one, abort, the
// permission round trip, the event entries of the timeline, slash commands, edit
// checkpoints and rewind, and the state of background tasks and job groups.
//
// It does not build sessions. The composition root, package assemble, reads settings,
// chooses providers and tools and calls Wrap; embedders that build a session.Config
// themselves call NewFromConfig. What the core reaches of an assembled session — task
// runtime, job groups, agent catalog and subagents, skills, project memory, settings,
// the session store, model aliases, hook notifications — it reaches through Host, a
// struct of ports declared here, where they are consumed; a nil port means the service
// is absent and the command that needs it says so. So this package imports no concrete
// tool, provider, sandbox, MCP client or plugin loader (go list -deps shows it).
//
// Front ends name this package's words only (vocabulary.go gives them the session's
// approvals, modes, denials, timeline entries and errors): pkg/cli, pkg/tui and
// pkg/engine/server import no pkg/engine/session package, and pkg/tui and
// pkg/engine/server no assemble either, so what they rely on is what this package
// documents.
//
// Guarantees:
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
//   - With InteractiveOptions.NoPrompt (headless runs, assemble.Query) a call that needs
//     approval is denied at once and listed in the session's PermissionDenials.
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
//     starts unnamed (assemble resolves --resume NAME).
//   - Edit checkpoints (a Host with a CheckpointRoot: assemble.New with persistence; kept
//     by pkg/engine/checkpoint, this package holds the rewind): each prompt starts a
//     checkpoint (the prompt id, its text head, the conversation length), listed even
//     when nothing was edited:
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
//
// Tables and regular expressions are built on first use (internal/lazy), not in a
// package init: robota pays every init on every command (issue 29).
package interactive
