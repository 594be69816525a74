// Package hook runs lifecycle hooks with Claude Code's semantics, so a
// `.claude/settings.json` written for Claude Code behaves the same here.
//
// It owns the hooks configuration shape ({"hooks": {Event: [{"matcher", "hooks":
// [{"type", "command", "timeout", ...}]}]}}), matcher selection, the stdin JSON each
// event sends, the built-in `command` and `http` executors, the `prompt` and `agent`
// executors around a model call or a subagent run the SDK layer supplies (PromptExecutor,
// AgentExecutor: registered with WithExecutor), the verdict those answer with, and the
// folding of parallel hook outcomes into one typed Result. It knows nothing of sessions,
// tools or models: callers pass an Input and act on the Result.
//
// Guarantees:
//
//   - Events are Claude Code's: PreToolUse, PostToolUse, PostToolUseFailure,
//     PermissionRequest, UserPromptSubmit, Stop, StopFailure, SubagentStart, SubagentStop,
//     SessionStart, SessionEnd, PreCompact, PostCompact, Notification, WorktreeCreate,
//     WorktreeRemove. Claude Code's other events (ClaudeCodeOnlyEvents) are not fired.
//     Stop also sends `response` (the Robota spec's name; the same text as
//     last_assistant_message) and StopFailure `reason` (the error message; `error` is
//     Claude Code's error type).
//   - Hook types are command, http, prompt and agent. A hook of another type (Claude
//     Code's mcp_tool), or a prompt or agent hook without a prompt, is a configuration
//     error: a guard is never dropped silently.
//   - A prompt hook is one model call: its `prompt` with the input JSON in place of
//     $ARGUMENTS (appended as "ARGUMENTS: …" when absent), under Claude Code's system
//     prompt, optional `model`, default timeout 30 s. An agent hook runs a subagent
//     with read-only tools on the same prompt, at most `maxTurns` rounds (default 50),
//     default timeout 60 s, and must end its answer with the verdict. The verdict is
//     {"ok": bool, "reason": string} (ParseVerdict): ok proceeds with no opinion (it
//     never allows by itself); not ok blocks as exit code 2 does, with the reason — and,
//     for a prompt hook outside Stop and SubagentStop, also answers continue false (the
//     turn ends after the blocked call) unless `continueOnBlock` is set (Claude Code). An answer that is not a verdict,
//     a failed model call or a failed subagent is a non-blocking error, logged and in
//     Result.Errors.
//   - PermissionRequest hooks answer hookSpecificOutput.decision {behavior allow (with
//     updatedInput) | deny (with message, interrupt)}; deny wins over allow, and exit 2
//     or decision "block" is a deny.
//   - Matchers: "", "*" or none select every hook; a matcher of only
//     [A-Za-z0-9_ ,|-] is a list of exact names separated by `|` or `,`; anything else
//     is an unanchored Go regular expression (RE2). Tool events match tool_name (a
//     matcher selecting `Task`, the subagent tool's older name, also selects `Agent`
//     calls, and the reverse), SessionStart source, SessionEnd reason, Notification notification_type,
//     Subagent* agent_type, *Compact trigger, StopFailure error; UserPromptSubmit, Stop
//     and the worktree events ignore matchers. Identical hooks run once. A hook with
//     `once: true` runs the first time it matches in the Runner's life (a session) and
//     is then removed; two events matching it at the same time run it once.
//     `statusMessage` is accepted and not shown (robota has no spinner yet).
//   - Every matching hook runs in parallel under its own timeout (`timeout` seconds,
//     default 60, 30 for prompt hooks). A command hook runs as `/bin/sh -c` in the project directory with
//     the JSON on stdin and CLAUDE_PROJECT_DIR and ROBOTA_PROJECT_DIR set, in its own
//     process group, which is killed when its shell exits (nothing it left in the
//     background outlives it) and on timeout or cancellation; a timeout is a
//     non-blocking error and Run returns when the timeout fires.
//   - Logs and error messages name a hook without its secrets: a URL by scheme and
//     host only, a command redacted (sessionlog/redact) and shortened.
//   - Exit 0 proceeds; plain stdout becomes context only for UserPromptSubmit and
//     SessionStart. Exit 2 blocks PreToolUse, UserPromptSubmit, Stop, SubagentStop and
//     PreCompact with stderr as the reason, sends stderr to the model for PostToolUse
//     and PostToolUseFailure, and to the user elsewhere. Any other exit code is a
//     non-blocking error, logged, and execution proceeds. Exit 2 wins over stdout.
//   - Stdout beginning with `{` is parsed as JSON output (continue/stopReason,
//     decision/reason, systemMessage, suppressOutput, hookSpecificOutput with
//     permissionDecision, permissionDecisionReason, updatedInput, additionalContext);
//     keys and enumerated values match exactly, as in Claude Code ("Deny" is not a
//     deny). A field that does not parse is dropped and logged and the others still
//     apply; stdout that is not one JSON object is used as text and logged. For
//     PreToolUse any such output counts as "ask" (a guard whose answer cannot be read
//     never lets a call through unasked; a deny that parsed still wins).
//     Across parallel hooks permissionDecision folds deny > ask > allow; each hook's
//     additionalContext (or context stdout) is capped at MaxContext characters.
//
// Where this differs from the Robota spec (agent-core Hook System), Claude Code wins
// (DESIGN.md, Decisions 1): sixteen events instead of nine; prompt hooks are a model's
// verdict rather than text injected into the session; per-hook timeouts in
// seconds defaulting to 60 instead of a fixed 10 seconds; matchers follow Claude
// Code's names-or-regex rule instead of always being a regex; hooks run in parallel;
// JSON output is understood; and an HTTP hook's non-2xx status is a non-blocking error
// (Claude Code's rule: an HTTP hook blocks only through a JSON decision) rather than a
// status-to-exit-code mapping that could block.
//
// Callers must re-check an UpdatedInput against the permission rules (a hook may not
// widen what the rules allow), and should treat a PreToolUse "allow" as skipping the
// prompt the permission mode would show only, never as overriding a deny rule, an ask
// rule or a safety check.
package hook
