// Package tui is robota's terminal UI: a thin front end over a session (DESIGN.md
// decision 7). It owns what the person at the terminal sees and types — the prompt box,
// the streamed answer, tool call lines, permission prompts, the status line — and
// nothing of how a session runs: queueing of the running prompt, permission round
// trips, persistence and events belong to the session it is given.
//
// The UI consumes the small Session interface declared here. NewInProcess adapts an
// in-process interactive.InteractiveSession; NewRemote adapts a session in a running
// engine reached through pkg/client. The same model runs over both.
//
// Guarantees:
//   - Finished messages are printed once to the terminal's scrollback (above the live
//     area) and never rendered again, so the cost of a frame does not grow with the
//     conversation.
//   - Text from the model or from tools never reaches the terminal as a control
//     sequence: escapes and other control characters are shown inert, invalid UTF-8 is
//     replaced (Sanitize).
//   - The UI never blocks the session: the session's subscription coalesces text
//     deltas for a slow terminal and keeps every lifecycle event.
package tui
