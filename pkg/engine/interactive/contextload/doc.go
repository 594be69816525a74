// Package contextload reads a project the way Claude Code does and turns it into the
// session's system prompt: the AGENTS.md / CLAUDE.md instruction files walked up from
// the working directory (with their `@path` imports), the startup part of the project
// memory (.robota/memory/MEMORY.md), the active task files (.agents/tasks/*.md), the
// project type, and the git state.
//
// It owns discovery, import expansion, the memory cap, task selection, the
// *Compact Instructions* extraction and the system prompt layout. It does not run
// compaction or own the session: the assembling layer passes Context.CompactInstructions
// to the session, whose compaction orchestrator adds them to every compaction prompt.
//
// Guarantees:
//   - Instruction files are ordered from the filesystem root (or Options.StopAt) down to
//     the working directory, so the most specific file comes last; at each directory:
//     AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md. The user's
//     ~/.claude/CLAUDE.md comes first. A file reached twice (symlinks, the home directory
//     on the walk) is loaded once.
//   - `@path` imports are expanded at most MaxImportDepth (4) hops deep; a cycle, a hop
//     past the limit, a missing target or a target outside the allowed roots is skipped
//     and reported in Context.Diagnostics, never an error and never an endless loop.
//     Imports outside code spans and fenced blocks only.
//   - Project memory is capped to its first 200 lines and 25 KB (spec, Project Memory).
//   - What a cloned repository brings stays in it: a project's instruction file, memory
//     index or task file whose real path leaves the project (a link to /proc/self/environ,
//     to a credentials file, through a linked directory) is skipped with a Diagnostic
//     naming it (ErrEscapes), never read into the prompt; so is one a Read deny rule
//     covers (Options.Denied, ErrDenied). A project that is the home directory is the
//     user's own and may link where the user likes.
//   - Task files (spec, Task Context Helpers): DiscoverTasks, SelectTasks and
//     FormatTaskContext build the neutral Active Task Context; UpdateTaskFileStatus sets a
//     task's status (frontmatter `status:` key or `**Status**` line, as ParseTask reads
//     it) and appends a dated Progress entry, touching no other line, through an os.Root
//     at .agents/tasks and an atomic rename.
//   - The system prompt holds only file contents and neutral metadata (working directory,
//     platform, date from an injectable clock, git, model, project type, language): no
//     behaviour text is hard-coded here.
//   - Nothing reads the real home directory or clock unless the caller passes them.
//
// Tables and regular expressions are built on first use (internal/lazy), not in a
// package init: robota pays every init on every command (issue 29).
package contextload
