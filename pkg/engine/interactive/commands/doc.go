// Package commands is the slash command registry (agent-sdk "Slash Command Registry" and
// "System Command System"): sources contribute commands, the registry lists them by
// prefix and resolves plugin-qualified names, and Execute runs one and returns its
// Result (message, success, structured data).
//
// Guarantees:
//   - List returns every command whose name (or qualified name plugin:name) starts with
//     the prefix (a leading "/" ignored), sorted by name; the first source to register a
//     bare name wins it, later ones are still reachable by their qualified name.
//   - Execute of an unknown name returns ErrUnknownCommand (wrapped, naming it); a
//     command's own failure is a Result with Success false, not an error.
//   - Sources are asked on each List and Execute, so a source may discover lazily
//     (skills and plugins, later).
package commands
