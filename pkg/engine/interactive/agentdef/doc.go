// Package agentdef loads agent definitions: the built-in agent types and Markdown files
// with Claude Code frontmatter, which the Agent tool offers as subagent_type values
// (agent-sdk, "Agent Definitions" and "AgentDefinitionLoader").
//
// # Files
//
// Dirs lists, highest priority first: <cwd>/.robota/agents, <cwd>/.agents/agents,
// <cwd>/.claude/agents (project) and ~/.robota/agents, ~/.claude/agents (user; home is
// injected). Load reads every *.md file below them (subdirectories included, in path
// order; a directory that is itself a symlink is followed) and merges:
//   - project beats user, and within each .robota beats .agents beats .claude, so a file
//     written for Robota overrides the Claude Code file of the same agent name (DESIGN.md
//     decision 1: `.robota/` first, `.claude/` read too);
//   - any file beats the built-in of the same name (a custom Explore replaces ours whole);
//   - two files of one directory with the same name: the first in path order wins and
//     the other is reported.
//
// When cwd is home the directories are scanned once, as the project's.
//
// A plugin's directories (Dir.Namespace, appended after Dirs by the plugin loader) name
// their agents "<plugin>:<subdirs>:<name>", as Claude Code does; such a file without a
// description gets "Agent from <plugin> plugin", its permissionMode is ignored, and
// with Dir.Confine a file whose real path lies outside the plugin is skipped. A Dir may
// also be one .md file.
//
// # Frontmatter
//
// A file is `---`, a YAML mapping, `---`, then the body, which (trimmed) is the system
// prompt; the frontmatter package reads it (the reader skills and commands share). Fields,
// as Claude Code reads them: name (spaces and capitals kept; default, and for a name
// starting with "-", the file name without .md: Claude Code drops such files, robota
// keeps them with a warning), description (required; a literal `\n` is a line break),
// tools and disallowedTools (a YAML list or a string, every entry split on commas and
// spaces outside parentheses, so `Read, Bash(git log *)` is two entries; "*" in tools,
// or no tools key, means every tool; a tools key with no value means none), model (an
// alias, a model id, or inherit in any case; kept as written), color (red, blue, green,
// yellow, purple, orange, pink, cyan; another is ignored with a warning), permissionMode
// (a permission mode name), maxTurns (a positive integer, also written as a string),
// isolation (worktree) and background (true/false). Other keys (hooks, mcpServers,
// skills, memory, effort …) are ignored.
//
// Like Claude Code, YAML that does not parse is tried once more with each simple
// `key: value` line whose value holds YAML punctuation quoted and leading tabs made
// spaces, because community agent files routinely write unquoted descriptions full of
// `: ` and `<example>` tags; what still fails is read as `key: value` lines
// (frontmatter.Fallback) with a warning wrapping ErrMalformed.
//
// Guarantees:
//   - A file is skipped, with a Problem naming it and saying why, when it has no
//     frontmatter or no description (as in Claude Code), no name can be found (an empty
//     file name), it is unreadable or larger than MaxFileSize; never for its YAML. A field with a bad value is dropped with a Problem naming the file and
//     the field; the definition still loads. A missing directory is no problem.
//   - Parse never panics on any input (FuzzAgentFrontmatter).
//   - Built-ins: general-purpose (every tool), Explore and Plan (read-only: Agent,
//     ExitPlanMode, Edit, Write, MultiEdit and NotebookEdit denied). All three inherit
//     the parent's model, as the spec's table says; Claude Code runs Explore on haiku,
//     which not every provider serves.
//   - ResolveModel: the Agent call's model, else the definition's, else the parent's;
//     aliases go through a ModelResolver the provider layer supplies, and an alias the
//     provider cannot serve falls back to the parent's model.
//   - AssemblePrompt builds a subagent's system prompt in the spec's order: body,
//     CLAUDE.md, AGENTS.md, then the subagent (or fork worker) suffix.
//   - FilterTools applies disallowedTools, then tools; removing the Agent tool from every
//     subagent is the caller's job (the spec's third step), not the definition's.
package agentdef
