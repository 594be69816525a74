// Package permission decides whether a tool call may run: allow, ask or deny, with a
// reason that names the rule or the mode that decided. It implements Claude Code's
// permission rules and modes, so `.claude/settings.json` files written for Claude
// Code behave the same here, and it treats every way around a rule as a bug.
//
// The package knows no session, agent or tool implementation: an Evaluator takes a
// tool name, the call's raw JSON arguments and the working directory, and returns a
// Decision. It is immutable and safe for concurrent use.
//
// # Evaluation order
//
// For a call (and, for Bash, for every sub-command and redirection in it):
//
//  1. Deny rules. A matching deny rule denies, in every mode, bypassPermissions
//     included. A deny rule that cannot be evaluated against the call — it has a
//     specifier and the tool exposes no argument to match (an MCP tool), the argument
//     is missing or ambiguous, the rule itself does not parse, or a Bash command has
//     parts only known at run time that could match it — makes the call "ask",
//     never "allow".
//
//  2. Plan's ceiling: in plan mode a modification (Edit, Write, MultiEdit,
//     NotebookEdit, a Bash output redirection to a file) is denied.
//
//  3. Ask rules. A matching (or possibly matching) ask rule asks, in every mode.
//
//  4. Protected paths: writing below .git, .claude or .robota inside a working
//     directory asks, whatever the allow rules, except in bypassPermissions.
//
//  5. Allow rules. For a Bash line, every sub-command must be allowed; a path rule
//     must match every spelling of the path.
//
//  6. The mode, from this table:
//
//     mode              read   modify  execute  network  unknown tool
//     default           allow  ask     ask      ask      ask
//     acceptEdits       allow  allow   ask      ask      ask
//     plan              allow  deny    deny     ask      deny
//     bypassPermissions allow  allow   allow    allow    allow
//     dontAsk           allow  deny    deny     deny     deny
//
// Reads are only auto-allowed inside the working directories (the project root and
// AdditionalDirs; the cwd only when neither is set, so a `cd` widens nothing), and
// acceptEdits only auto-allows modifications there; elsewhere the mode asks. In dontAsk every "ask" becomes "deny".
//
// For a Bash line the parts' decisions fold: any deny denies, else any ask asks,
// else it is allowed.
//
// Decision.ByMode marks the mode's own answer (step 2 or 6) on a call analysed in
// full. A rule, an analysis limit (a line that does not parse, a command hidden from
// us or whose program is computed at run time, text bash evaluates again, a path
// known only at run time) or a protected path clears it; a Bash line is ByMode only
// when every part with its behaviour is. Callers use it, not the reason's wording,
// to let a PreToolUse hook's allow lift only the mode's asks (Claude Code: a hook
// allow skips the prompt, but ask rules and safety checks still apply).
//
// # Rules
//
// A rule is `Tool` or `Tool(specifier)` in a settings layer's allow, ask or deny
// list; lists merge across layers and a deny anywhere beats an allow anywhere.
// `Bash(*)` equals `Bash`. `Read(...)` rules cover Read, Glob, Grep, LS and
// NotebookRead; `Edit(...)` rules cover Edit, Write, MultiEdit and NotebookEdit;
// `Agent(Name)` and `Task(Name)` match subagent_type; `mcp__server` and
// `mcp__server__*` name a server's tools; `WebFetch(domain:host)` (or
// `domain:*.host`) matches the URL's host.
//
// Bash specifiers: `*` matches anything anywhere; a trailing ` *` or `:*` means "this
// command, alone or with arguments" (`Bash(ls *)` matches `ls -la`, not `lsof`). The
// line is parsed with mvdan.cc/sh (bash dialect) and split on `&&`, `||`, `;`, `|`,
// `|&`, `&` and newlines, into subshells, blocks, control structures, function
// bodies, `$(…)`, backticks and process substitutions; a line that does not parse, or
// contains a construct the splitter does not account for, is never auto-allowed. The
// wrappers timeout, time, nice, nohup, stdbuf, command, builtin and bare xargs are
// stripped before matching (xargs' appended arguments count as unknown). Runners are
// followed, not stripped: the runner must be allowed and so must what it runs (env,
// sudo, doas, exec, setsid, xargs with options, find -exec, ionice, chrt, taskset,
// flock, unshare, setpriv, chroot, su, script; sh -c, eval, trap, mapfile -C,
// compgen -C and alias values are parsed as scripts). A shell reading its script from
// stdin, a descriptor or a file named at run time (`sh`, `sh -`, `bash --`,
// `bash /dev/stdin`, `bash <(…)`, `source "$f"`), and text bash evaluates a second
// time (a subscript in a name given to printf -v, read, test -v, unset, declare …; a
// value the line sets or reads that arithmetic, ${!x} or ${x@P} evaluates; see
// reeval.go) are unknown: never allowed by a narrow rule, and asked about when a deny
// or ask rule could match them. Quotes and escapes are removed before matching;
// parameter and command expansions, globs, brace expansions and ANSI-C strings are
// unknown text: an allow rule covers them only with a `*`, a deny or ask rule that
// could match them makes the call ask. Output redirections to files are checked as
// writes of those files (Edit rules, modify class); input redirections as reads.
//
// Read/Edit specifiers use gitignore syntax (go-git's matcher) with Claude Code's
// anchors: `//path` from the filesystem root, `~/path` from the home directory,
// `/path` from the rule's settings project root (Source.Root, else ProjectRoot), and
// `path` or `./path` from the cwd. A path is matched in its lexical form and with
// its symlinks resolved (component by component, as the kernel does, `..` included):
// a deny rule matching either denies; an allow rule must match both.
//
// # Where this differs from the Robota spec, and why
//
// DESIGN.md (Decisions 1) says Claude Code wins where the Robota spec (agent-core,
// Permission System) differs; where neither closes a hole, we choose the closed side.
//
//   - Outcomes are allow/ask/deny, not auto/approve/deny: Claude Code's words.
//   - There is an ask list, checked after deny and before allow (Claude Code). The
//     spec has deny and allow only.
//   - Lists merge across settings layers (Claude Code); the spec's deep merge would
//     let a project layer replace a user's deny list.
//   - dontAsk mode exists (Claude Code): never prompt, deny what would be asked.
//   - WebFetch and WebSearch form a network class that asks (Claude Code prompts for
//     them); the spec auto-allows them as reads.
//   - Reads outside the working directories ask, and acceptEdits only auto-allows
//     edits inside them (Claude Code); the spec auto-allows every read and edit.
//   - Bash rules keep a word boundary, split compound commands, strip wrappers and
//     treat redirections as writes (Claude Code); the spec's `Bash(pnpm *)` is a
//     prefix glob over the raw string, which `pnpm x && rm -rf /` would pass.
//   - Path rules are gitignore patterns with Claude Code's anchors; the spec's
//     `Read(/src/**)` is an absolute glob. Symlinks are resolved (a link into a denied
//     directory is denied).
//   - Our own hardening, beyond both: plan mode never modifies even with an allow
//     rule; .git, .claude and .robota are protected from auto-allowed writes (a
//     written hook or setting would outlive the approval); commands run by runners
//     (listed above) must be allowed themselves, not only their runner, and deny
//     rules see them; text bash evaluates a second time is unknown; a program
//     is also matched by its base name (/bin/rm is rm) for deny and ask; a tool input
//     with keys repeated or differing only in case is ambiguous (Go's JSON decoder
//     would read another value than the one checked); a deny rule that does not parse
//     turns its tool's calls into "ask" rather than vanishing.
//   - Protected directories are matched ignoring case, trailing dots and spaces, NTFS
//     streams and 8.3 names on every platform (a false alarm only asks); on macOS and
//     Windows path rules match ignoring case too, as their filesystems do, for allow
//     rules as well as deny rules.
//
// # Limits
//
// Commands that interpret their own languages (python -c, node -e, a script file,
// a shell reading a file, source, enable -f) can do anything; rules see the command,
// not what it does. Bash deny rules match command names as written: a program
// copied, linked or renamed (cp /bin/rm x, hash -p) runs under another name.
// Multi-call binaries (busybox, toybox) are followed; runners whose options we do
// not parse (runuser, nsenter, systemd-run, watch, parallel, pkexec, firejail, bwrap,
// strace, ltrace) and fc re-running history are unknown, so they ask; other runners
// (ssh, at, tmux …) run their commands unseen unless they are allowed themselves. Arithmetic
// trusts values from the engine's environment. Read and Edit rules do not inspect Bash commands beyond their redirections (as in
// Claude Code). Symlinks can change between the check and the use. A WebFetch
// redirect to another host must be checked again by the fetching tool, and Grep,
// Glob and LS should filter what they walk with DeniedPath. The splitter parses bash;
// the Bash tool must run bash.
package permission
