// Package commands is the slash command registry (agent-sdk "Slash Command Registry" and
// "System Command System"): sources contribute commands, the registry lists them by
// prefix and resolves plugin-qualified names, and Execute runs one and returns its
// Result (message, success, structured data).
//
// Guarantees:
//   - List returns every command whose name (or qualified name plugin:name) starts with
//     the prefix (a leading "/" ignored), sorted by name; the first source to register a
//     bare name wins it, later ones are still reachable by their qualified name.
//   - List and Execute are the user's: they leave out (Execute: ErrUnknownCommand,
//     saying only the model runs it) the commands whose UserInvocable is false;
//     ModelCommands lists the ModelInvocable ones, and Lookup finds any.
//   - Execute of an unknown name returns ErrUnknownCommand (wrapped, naming it); a
//     command's own failure is a Result with Success false, not an error.
//   - A command's Safety is the spec's TCapabilitySafety; SafetyOf gives it for one
//     run's arguments.
//   - Sources are asked on each List and Execute, so a source may discover lazily
//     (skills and plugins, later).
package commands
