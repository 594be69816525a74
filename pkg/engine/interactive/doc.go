// Package interactive assembles sessions the way a user expects them: it reads
// the settings layers and project context, chooses the provider, builds the
// built-in tools confined to the workspace, the permission evaluator and hook
// runner, the session store and log, and hands them to pkg/engine/session.
//
// It is the SDK layer: the headless CLI, and later the gRPC server and the
// TUI, all obtain their sessions from Assemble, so a session behaves the same
// whichever client drives it. Adapters in this package translate between the
// concrete engine packages (permission, hook, store, sessionlog) and the small
// ports that pkg/engine/session declares.
//
// Guarantees:
//   - A project whose .robota is a symlink leading outside the project is refused before
//     anything is read from or written into it (ErrRobotaDirOutside).
//   - The settings `env` object (every layer, merged by name, the higher layer winning)
//     is in the environment of Bash commands, background commands and command hooks,
//     over the inherited variables of the same name; http hooks' allowedEnvVars see it.
//   - Tool output cut to fit a tool result is saved whole in .robota/tool-output (see
//     ToolOutputDir), which a Read in any permission mode may open.
package interactive
