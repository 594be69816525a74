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
package interactive
