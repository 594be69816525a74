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
// accepted, as a case-insensitive file system would); its name is the frontmatter's
// name, else the directory name. A command is any *.md below <commands>; its name is the
// path without .md, subdirectories joined with ":" (frontend/component.md is
// /frontend:component). Two skills of one name in one directory: the first in path
// order wins, the other is reported (ErrDuplicate). When cwd is home the directories are
// scanned once, as the project's. PluginDirs gives a plugin's skills and commands
// directories, appended after Dirs (lowest priority); every name found there is
// plugin-qualified, "<plugin>:<name>", and Skill.Plugin names the plugin. A plugin Dir
// may also be one command file (Dir.Name names it) or one skill's directory; with
// Dir.Confine a file whose real path lies outside the plugin is skipped with a Problem.
//
// # Frontmatter
//
// Split and decoded by agentdef's frontmatter helpers, so the shapes accepted are the
// agent files' ones: UTF-8 BOM, CRLF, tabs, quoted and block scalars, anchors, and the
// lenient retry for unquoted values full of `: `. Fields: name, description (default: the
// first non-empty body line, heading marks removed, at most MaxDescription runes; a
// literal `\n` is a line break), when_to_use, argument-hint (`[message]`, which YAML
// reads as a list, is kept as written), allowed-tools (a YAML list or a comma/space
// string; `Bash(git add:*)` stays one entry), model, context (fork; inline and empty mean
// inline), agent, disable-model-invocation and user-invocable (true/false/yes/no, also
// quoted). Unknown keys (version, license, metadata, hooks …) are ignored. A file with no
// frontmatter is all body.
//
// Guarantees:
//   - A file is skipped, with a Problem naming it and the reason, when its YAML is
//     malformed (also: not a mapping, a duplicate key, a `---` never closed), it is
//     unreadable or larger than MaxFileSize, or it has no valid name. A known field with
//     a bad value is dropped with a Problem naming the file and field; the skill loads.
//     Nothing else is affected; a missing directory is no problem.
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
//     skill runs through the Fork function the composition root supplies.
package skills
