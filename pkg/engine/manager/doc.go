// Package manager owns the engine's live sessions (DESIGN.md decision 7: sessions
// belong to the engine, not to the clients that drive them). It creates, resumes,
// forks and continues InteractiveSessions through assemble.New, lists live and
// stored sessions, closes and deletes them, and saves every live session on
// Shutdown. It knows no transport: pkg/engine/server adapts it to gRPC.
//
// Guarantees:
//   - A session id is live at most once: resuming or continuing a session that is
//     already live returns the live one instead of loading a second copy that
//     would write the same record.
//   - A session survives its clients: only Close, Delete and Shutdown end it.
//   - The projects the engine served are remembered in Config.StateDir, so after a
//     restart List shows their stored sessions and Create resumes them.
//   - Bad input is a *FieldError naming the option (Cwd, Provider, PermissionMode,
//     Allow, Deny, Script, Resume); an unknown session is ErrNotFound.
//   - Shutdown closes every live session (abort, save, SessionEnd) before it
//     returns; afterwards Create fails with ErrShuttingDown.
package manager
