// Package plugins loads Claude Code plugins and marketplaces (agent-sdk "Bundle Plugin
// System", in Claude Code's file formats so users' existing plugins and marketplaces
// work) and says what each plugin contributes to a session: skills and commands,
// agents, hooks and MCP servers. The composition root (package assemble) wires the
// contributions in; this package starts nothing.
//
// # Formats
//
// A plugin is a directory with .claude-plugin/plugin.json (ParseManifest: name
// required, a ValidName; version, description, author, keywords ...; unknown fields
// ignored) and the default parts commands/ (*.md, subdirectories as name:sub),
// agents/ (*.md), skills/<name>/SKILL.md, hooks/hooks.json ({"hooks": {event: groups}},
// the settings' shape) and .mcp.json ({"mcpServers": {...}} or the servers object). The
// manifest's commands, agents and skills fields (a path or a list; commands also an
// object of name → {source}) replace the default directory, as in Claude Code; its
// hooks and mcpServers fields (a path, an inline object, or a list of either) add to
// hooks/hooks.json and .mcp.json. Without plugin.json a marketplace entry stands for
// the manifest, and a --plugin-dir is named after its directory.
//
// A marketplace is a directory with .claude-plugin/marketplace.json (ParseMarketplace:
// name, owner, plugins [{name, source, ...}], metadata.pluginRoot). An entry's source is
// a path relative to the marketplace root, or {"source": "github", "repo"} / {"source":
// "url"|"git", "url", "ref"}; npm and pip sources are reported as unsupported.
//
// # Names
//
// Everything a plugin contributes is qualified with its name: commands and skills are
// /<plugin>:<name> (subdirectories add :<dir>), agents <plugin>:<name> (the Agent
// tool's subagent_type), MCP servers plugin:<plugin>:<server> (tools
// mcp__plugin_<plugin>_<server>__<tool>). ${CLAUDE_PLUGIN_ROOT} is replaced with the
// plugin's directory in hook commands and MCP server commands, arguments, URLs, headers
// and env, and is set in their environment.
//
// # Where plugins come from
//
// Load takes the settings' enabledPlugins ({"name@marketplace": true}) and
// extraKnownMarketplaces ({name: {"source": {"source": "directory"|"file"|"git"|
// "github", ...}}}). A marketplace name resolves to the settings' declaration, then to
// ~/.robota/plugins/known_marketplaces.json (robota plugin marketplace add), then to
// Claude Code's ~/.claude/plugins/known_marketplaces.json (read, never written), then to
// DefaultMarketplaces (Claude Code's official one, github anthropics/
// claude-plugins-official). A git
// or github marketplace is cloned into ~/.robota/plugins/marketplaces/<name> the first
// time it is needed (Options.Fetch); a git plugin source into
// ~/.robota/plugins/cache/<marketplace>/<plugin>/<version>. Clones are made with go-git
// by `robota-worker git-clone` (WorkerCloner, package gitclone), so go-git is linked
// into the worker and not into robota or robota-engine. Claude Code's installed copies
// (~/.claude/plugins/installed_plugins.json) are used too. A plugin installed with
// robota plugin install (Store: installed_plugins.json and a copy under cache/, in
// ~/.robota/plugins for the user or .robota/plugins for the project) loads from its
// copy; otherwise a relative source is read in place.
//
// # Guarantees
//
//   - Nothing fails a session: a plugin that cannot load is a Problem with Skipped set
//     naming the plugin id, the file and the reason (a malformed plugin.json or
//     marketplace.json, an unknown marketplace or plugin, a failed clone); a part that
//     cannot load (a malformed hooks file, a missing manifest path) is a Problem and the
//     rest of the plugin loads. A malformed hooks file is left out whole.
//   - Paths stay inside their root: a manifest path or marketplace source that is
//     absolute, climbs out with "..", or is (or passes through) a symbolic link leading
//     out of the plugin (or marketplace) root is ErrEscape, and the default parts are
//     checked the same way.
//   - Clones are written beside their target and renamed into place; a failed or
//     cancelled one leaves nothing behind. A password in a git URL is never shown in a
//     message.
//   - ParseManifest and ParseMarketplace never panic (FuzzParseManifest,
//     FuzzParseMarketplace); a marketplace entry that is malformed is left out with a
//     problem and the others are kept.
package plugins
