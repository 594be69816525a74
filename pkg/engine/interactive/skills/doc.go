// Package skills loads Claude Code skills (a directory holding SKILL.md and its
// supporting files) and custom commands (Markdown files), expands them for one
// invocation, lists them for the system prompt and offers them to the model through the
// Skill tool (agent-sdk, "System Prompt Skill and Agent Injection" and "Skill Execution
// Semantics").
//
// # Files
//
// Dirs lists, highest priority first:
//
//	<cwd>/.robota/skills, <cwd>/.robota/commands,
//	<cwd>/.agents/skills,
//	<cwd>/.claude/skills, <cwd>/.claude/commands        (project)
//	~/.robota/skills, ~/.robota/commands,
//	~/.claude/skills, ~/.claude/commands                (user; home is injected)
//
// so project beats user, and within each .robota beats .agents beats .claude (DESIGN.md
// decision 1, the order agentdef uses for agents; the spec's SkillCommandSource lists
// .claude first, the brief of issue 14 asks for Robota's directories first). Within one
// root a skill beats a command of its name, as in Claude Code. A skill is
// <skills>/<dir>/SKILL.md (directory symlinks followed; skill.md in another case is
// accepted, as a case-insensitive file system would); its name is the directory name,
// whatever the frontmatter's name says (Claude Code's rule; spaces and capitals kept). A
// command is any *.md below <commands>; its name is the path without .md, subdirectories
// joined with ":" (frontend/component.md is /frontend:component), its frontmatter's name
// aside. Two files of one name in one directory (a:b.md and a/b.md): the first in path
// order wins, the other is reported (ErrDuplicate). When cwd is home the directories are
// scanned once, as the project's. PluginDirs gives a plugin's skills and commands
// directories, appended after Dirs (lowest priority); every name found there is
// plugin-qualified, "<plugin>:<name>", and Skill.Plugin names the plugin. A plugin Dir
// may also be one command file (Dir.Name names it) or one skill's directory; with
// Dir.Confine a file whose real path lies outside the plugin is skipped with a Problem.
//
// # Frontmatter
//
// Read by the frontmatter package, the reader every definition file shares: UTF-8 BOM,
// CRLF, tabs, quoted and block scalars, anchors; YAML that fails is retried with
// unquoted values full of `: ` quoted, and read as `key: value` lines when that fails too
// (a Problem wrapping ErrMalformed says so; the skill loads); an opening `---` never
// closed leaves the whole file as the body. Fields: description (default: the
// first non-empty body line, heading marks removed, at most MaxDescription runes; a
// literal `\n` is a line break; DescriptionGiven says whether the frontmatter wrote it),
// when_to_use, argument-hint (`[message]`, which YAML reads as a list, is kept as
// written), allowed-tools (a YAML list or a comma/space string; `Bash(git add:*)` stays
// one entry), model (kept as written), context (fork; inline and empty mean inline),
// agent, disable-model-invocation and user-invocable (true/false/yes/no, also quoted).
// name and unknown keys (version, license, metadata, hooks …) are ignored. A file with
// no frontmatter is all body.
//
// Guarantees:
//   - A file is skipped, with a Problem naming it and the reason, only when it is
//     unreadable or larger than MaxFileSize, or a file of its name came first in its
//     directory: never for its YAML or its name. A known field with a bad value is
//     dropped with a Problem naming the file and field; the skill loads. Nothing else is
//     affected; a missing directory is no problem.
//   - Parse never panics on any input (FuzzSkillFrontmatter).
//   - Expand: $ARGUMENTS is the argument string; $ARGUMENTS[N] and the shorthand $N are
//     the N-th shell-split word counted from 0 (Claude Code's current rule: $0 is the
//     first); ${CLAUDE_SKILL_DIR}, ${CLAUDE_SESSION_ID} and, in a plugin's skill,
//     ${CLAUDE_PLUGIN_ROOT} are replaced; with no
//     placeholder, "ARGUMENTS: <args>" is appended; a skill's text starts with
//     "Base directory for this skill: <dir>" so supporting files can be read. Substituted
//     text is not expanded again.
//   - SystemPromptBlock lists name and description of model-invocable skills only, never
//     a body; disable-model-invocation hides a skill from the model (listing and Skill
//     tool), user-invocable: false only from the user's menu (Catalog.UserVisible).
//   - The Skill tool (NewTool) takes `skill` and `args`, refuses unknown and
//     disable-model-invocation skills, and returns the expanded text; a context: fork
//     skill runs through the Fork function the composition root supplies. Activate is
//     called before the skill runs, so the caller can grant its allowed-tools for the
//     rest of the prompt (Claude Code: they are allowed without asking, not a limit).
//
// Regular expressions are compiled on first use (internal/lazy), not in a package init:
// robota pays every init on every command (issue 29).
package skills
