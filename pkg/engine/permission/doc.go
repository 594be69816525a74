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
//     NotebookEdit, a Bash output redirection to a file) is denied, and so is every
//     Bash command that is not read-only (see "The command table"), whatever the
//     allow rules say.
//
//  3. Ask rules. A matching (or possibly matching) ask rule asks, in every mode.
//
//  4. Protected paths: writing to a protected path asks, whatever the allow rules,
//     except in bypassPermissions. Protected are, below a working directory (or
//     anywhere in a path outside them), the directories .git, .claude, .robota,
//     .vscode, .idea, .agents/skills, .agents/agents and .agents/commands, and, wherever they are, the files .gitconfig, .gitmodules,
//     .bashrc, .bash_profile, .bash_login, .zshrc, .zprofile, .zshenv, .zlogin,
//     .profile, .ripgreprc, .mcp.json and .claude.json.
//
//  5. Allow rules. For a Bash line, every sub-command must be allowed; a path rule
//     must match every spelling of the path. A Bash rule with a wildcard (a prefix
//     rule such as `Bash(find *)`) does not approve a command's dangerous form (see
//     "The command table"); only an exact rule or the tool-wide `Bash` does.
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
// For a Bash line, the files its commands read and write (their operands, as the
// command table knows them) go through steps 1, 3 and 4 as reads (Read rules) and
// writes (Edit and Write rules): a matching deny rule denies the line, an ask rule
// or a protected path asks. Only rules with a specifier (`Edit(./src/**)`,
// `Read(.env)`) take part: a tool-wide `Read`, `Write` or `Edit` rule names the tool,
// as in Claude Code (`--disallowedTools Read,Write,Edit` removes those tools; a Bash
// command that writes a file is then decided by the Bash rules and the mode). They are never approved by a Read or Edit allow rule or
// by the mode: the command itself is decided by the Bash rules.
//
// Reads are only auto-allowed inside the working directories (the project root and
// AdditionalDirs; the cwd only when neither is set, so a `cd` widens nothing), and
// acceptEdits only auto-allows modifications there; elsewhere the mode asks. In dontAsk every "ask" becomes "deny".
//
// For a Bash line the parts' decisions fold: any deny denies, else any ask asks,
// else it is allowed.
//
// # Worktree jobs
//
// A subagent with `isolation: worktree` is decided by Evaluator.InWorktree: its
// worktree (made below the project's .robota/worktrees) is its project, so it writes
// there as the mode allows and only the worktree's own .git, .claude, .robota … are
// protected; the main checkout is outside its working directories, so its writes there
// ask as any write outside the project does. Deny and ask rules hold for both copies of
// a file: a rule that matches a path's counterpart in the other copy (the same path
// relative to the worktree or to the project) matches the path, whether the rule is
// anchored at its settings' project root (`Read(/secret.txt)`) or at the cwd. Allow
// rules never match through the other copy. The command sandbox of such a job walks
// its worktree with this evaluator's SandboxWalk, so what the job's commands make in
// the worktree is covered by the same rules.
//
// Decision.ByMode marks the mode's own answer (step 2 or 6) on a call analysed in
// full. A rule, an analysis limit (a line that does not parse, a command hidden from
// us or whose program is computed at run time, text bash evaluates again, a path
// known only at run time), a protected path or a dangerous form that a prefix rule
// would otherwise have approved clears it; a Bash line is ByMode only
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
// `Agent(Name)` and `Task(Name)` match subagent_type, of the call and of each of its
// batch jobs (general-purpose when omitted): a deny or ask rule naming any of them in any
// capitalisation holds, an allow rule must name every one; `mcp__server` and
// `mcp__server__*` name a server's tools; `WebFetch(domain:host)` (or
// `domain:*.host`) matches the URL's host. `SlashCommand(/name)` matches the model's
// run of /name without arguments (`SlashCommand(/name args)` with exactly those),
// `SlashCommand(/name:*)` or `SlashCommand(/name *)` with any arguments, under any name
// the command answers to (Request.CommandNames: `plugin:name` and `name`); Claude
// Code's older `SlashCommand:/name` spelling is read too. A SlashCommand call's mode
// class is the command's safety (Request.Class), not a fixed class of the tool.
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
// # The command table
//
// Deny rules and protected paths hold for every command, not only the file tools.
// A table of known commands (effects*.go, awk.go, sed.go) says which arguments are
// paths read and which are written, which options take values (so `grep -e PAT
// FILE`, `sed -n 1p FILE`, `awk -f PROG FILE`, `head -n 5 FILE`, `cp -t DIR SRC`,
// `dd if= of=`, `tar -xf A -C DIR` find the right operands; GNU option permutation
// and abbreviated long options are followed), and which forms are dangerous. Reads:
// cat, head, tail, less, more, grep, rg, sed, awk, base64, od, xxd, hexdump,
// strings, nl, sort, uniq, cut, wc, diff, cmp, comm, jq, ls, du, find's paths,
// git's path arguments (REV:PATH too), source, a shell's script file, cp, ln and
// tar -c sources, curl uploads (-T, -d @F, -F n=@F) and file:// URLs (percent-decoded;
// another host, a relative file: URL, curl's {a,b} and [1-9] globs, a run-time URL or a
// -K config make the read unknown), man's files (-l, or a name with a slash), xargs -a,
// and input redirections. A path through one of /proc's links (/proc/self/cwd/...) is
// known only at run time: it leads where the reading process is. Writes: cp, mv (source too), install, ln (its targets too: a link
// is another way to write them), rm, rmdir, unlink, shred,
// touch, mkdir, truncate, chmod, chown, tee, dd of=, rsync and scp destinations,
// sed -i, sort -o, uniq and xxd's second operand, tar -x's directory, git rm, mv,
// checkout, restore and config, curl -o/-O and wget downloads, and output
// redirections. A program named by a path is the table's command only in the system
// directories (/bin, /usr/bin, /usr/local/bin, /sbin, /usr/sbin, /opt/homebrew/bin):
// ./cat is a project script, unknown. A path is placed relative to every directory
// the line may be in (the cwd and each directory its cd and pushd name, followed
// lexically and through links); `~`, `..`, quotes and escapes
// are resolved; globs (`.en*`, `*`, `[e]nv`) are expanded against the filesystem,
// dotfiles included; a path known only at run time (a variable, a brace expansion,
// `$(…)`, a name xargs appends) cannot be checked, so a Read or Edit deny or ask
// rule that could match it makes the line ask, and a write to it asks in every mode
// but bypassPermissions (it may be protected). A command the table does not know is
// unknown: when any of its arguments (or the value of --opt=VALUE or NAME=VALUE)
// names a path a deny or ask rule matches, or a protected path, it asks.
//
// Dangerous forms are those of a reading command that delete, write or run
// programs: find -delete, -exec, -execdir, -ok, -okdir, -fprint, -fprint0,
// -fprintf, -fls; awk (gawk, mawk, nawk, busybox awk) with system(), print or
// printf redirected to a file or a command, `"cmd" | getline`, |&, @include, @load,
// indirect calls, -f/-E/-i/-l, or a program known only at run time; sed -i and
// --in-place, -f, and scripts with e, w, W, s///e or s///w (the script is parsed;
// what does not parse is dangerous); sort -o/--output and --compress-program; uniq
// and xxd writing an output file; less -o/-O and +COMMAND; tree -o; file -C; git -c
// with any key but a few display and identity keys, --config-env, --exec-path=DIR,
// --output, grep -O, rebase -x/--exec, fetch/clone -u/--upload-pack,
// --receive-pack, clone --template, send-email's command options, submodule
// foreach, bisect run, difftool, mergetool, filter-branch; rg --pre, --pre-glob and
// --hostname-bin; tar --to-command, --use-compress-program, -I,
// --checkpoint-action, --info-script, --new-volume-script, -F, --rsh-command,
// --rmt-command, -f HOST:FILE, -g and --index-file, or two modes at once; man -P, -H,
// -X, -C, -M and a file to format; unzip -:; rsync -e
// and --rsync-path; install --strip-program; wget -e; an option of such a command
// that we do not know or that is known only at run time; and any command run by env
// or sudo with variables other than locale and display ones (GIT_CONFIG_*, PAGER,
// LD_PRELOAD …). They are found through wrappers and runners (env, nice, timeout,
// stdbuf, sudo, xargs, busybox …), which the extractor follows. A command is
// read-only when the table knows it and it neither writes, deletes nor runs
// anything of its own (echo, cd, test and the other inert builtins are read-only;
// runners are when what they run is); plan mode refuses all others.
//
// Read/Edit specifiers use gitignore syntax (go-git's matcher) with Claude Code's
// anchors: `//path` from the filesystem root, `~/path` from the home directory,
// `/path` from the rule's settings project root (Source.Root, else ProjectRoot), and
// `path` or `./path` from the cwd. A path is matched in its lexical form and with
// its symlinks resolved (component by component, as the kernel does, `..` included):
// a deny rule matching either denies; an allow rule must match both.
//
// # Without the sandbox
//
// Commands normally run in the operating system's sandbox (pkg/sandbox), which hides the
// Read-denied paths and makes the Edit-denied and protected ones read-only whatever a
// command does. Where it cannot be made (Config.NoSandbox), the checker alone must hold
// the rules, so it asks about more (sandbox.go, trees.go):
//
//   - while a Read or Edit deny rule with a specifier is in force, every command whose file
//     access the table cannot fully know asks: unknown programs, interpreters, git
//     subcommands outside the few whose operands it follows, dangerous forms that run a
//     program or that it does not fully read (git -c core.pager=..., man -P, find -exec,
//     an option it does not know; a form that only writes the files it names, such as
//     sed -i or sort -o, is checked as it is), a command given NAME=value other than
//     locale and display variables (`LESSOPEN=... less`, through env or sudo too), and a
//     line that sets or exports a variable that steers programs (PAGER, MANPAGER,
//     LESSOPEN, GIT_*, LD_*, PATH, HOME ...: see steeringVars);
//   - tree writes: what a command writes below a directory under names its words do not
//     show. An extractor (tar -x, unzip, 7z, bsdtar, cpio ...), git writing its work tree
//     from its objects, index or a patch (reset --hard, checkout, restore, stash, clean,
//     checkout-index, read-tree -u, apply, am, merge ...) and patch may write any name
//     there, a protected one included: they ask, in every mode but bypassPermissions (and
//     there when an Edit or Write rule exists). A recursive copy or move (cp -r, cp -a,
//     mv, rsync -r) and a recursive delete or mode change (rm -r, find -delete, chmod -R,
//     rsync --delete) are walked instead: each entry they will write, placed below the
//     destination, goes through the deny and ask rules and the protected paths (a walk
//     that cannot finish asks);
//   - a glob that matches nothing is a path known only at run time (bash leaves it
//     literal, or it matches what the line itself creates first).
//
// Without a file deny rule, an opaque program is decided by the Bash rules and the mode
// as before (it could write a protected path, as any interpreter can): the tree writes
// above are what the table knows to write protected paths.
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
//     rule, and refuses every command that is not read-only; .git, .claude, .robota,
//     .vscode, .idea and the shell, git and MCP configuration files are protected
//     from auto-allowed writes (a written hook or setting would outlive the
//     approval), by every writing command, not only redirections and the file
//     tools; .robota, .claude.json and the bash and zsh start-up files beyond Claude
//     Code's list are ours, and .claude/worktrees is not exempt; commands run by runners
//     (listed above) must be allowed themselves, not only their runner, and deny
//     rules see them; text bash evaluates a second time is unknown; a program
//     is also matched by its base name (/bin/rm is rm) for deny and ask; a tool input
//     with keys repeated or differing only in case is ambiguous (Go's JSON decoder
//     would read another value than the one checked); a deny rule that does not parse
//     turns its tool's calls into "ask" rather than vanishing.
//   - Stricter than Claude Code 2.1 on commands' paths: a Read or Edit deny rule
//     sees the operands of every command in the table (Claude Code knows a shorter
//     list), spelled any way, through globs, after cd, and through runners; a path
//     known only at run time, including the names xargs appends, asks when such a
//     rule exists (so `find … | xargs grep …` asks under a Read deny rule); an
//     unknown command naming a denied or protected path asks; only an exact rule
//     approves a dangerous form, never a rule with a wildcard; a word known only at
//     run time where a command with dangerous options permutes its options (GNU
//     sed, sort, rg, file, less; `xargs sed …` appends such words) may be one of
//     them, so it asks.
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
// (ssh, at, tmux …) run their commands unseen unless they are allowed themselves. Arithmetic,
// cd and ~ trust the engine's environment (HOME, PWD, OLDPWD, CDPATH), unless the line
// sets them. Paths are checked as named: a recursive read of a directory (grep -r,
// rg, diff -r, cp -r, rsync -r, tar -c) is refused when the directory holds the
// subtree of a deny rule with a slash (`/secrets/**`, `~/.ssh/**`); a rule without
// one (`.env`) can match anywhere below, so the directory is walked as the command
// walks it (hidden entries skipped for rg, symlinks followed only by grep -R and rg
// -L, grep --include honoured), up to 20,000 entries and the call's filesystem
// budget: a match denies, a walk that cannot finish asks (see walk.go); and, with the
// sandbox, what an archive or a recursive copy writes (tar -x, unzip, cp -r DIR/. .,
// rsync, git apply, patch) is checked at its destination, not at each name inside it
// (the sandbox holds the rest; without it, see "Without the sandbox"). REV:PATH names
// PATH from the repository's top, checked from each directory the line may be in (and
// below git -C DIR), not from a top above them.
// Globs are expanded when the line is checked; the files can change before it runs
// (without the sandbox, a glob that matches nothing is a path known only at run time).
// The filesystem work for one call is bounded (directory entries read, paths
// placed): past the bound a line's paths are unknown.
// The arguments of unknown commands are compared lexically (no symlink
// resolution); interpreters can open any file whatever their arguments. Git's
// arguments are read leniently (every word may be a path); jq's --arg, --rawfile and
// kin make its files unknown. Symlinks can change between the check and the use. A WebFetch
// redirect to another host must be checked again by the fetching tool, and Grep,
// Glob and LS should filter what they walk with DeniedPath. The splitter parses bash;
// the Bash tool must run bash.
package permission
