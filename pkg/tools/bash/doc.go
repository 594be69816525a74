// Package bash owns the Bash tool: Claude Code's name and parameters (command, timeout in
// milliseconds, description, run_in_background).
//
// Guarantees:
//   - The command runs under bash (sh when bash is missing) in the session's cwd, in a
//     process group of its own, with stdin at /dev/null and stdout and stderr captured
//     together through one pipe, in the order they were written.
//   - When the timeout (default 120,000 ms, at most 600,000 ms) passes or the caller's
//     context is cancelled, the whole process group is killed with SIGKILL, children
//     included; when the command exits normally, processes it left behind in its group are
//     killed too, so no call leaves stray processes holding the output pipe.
//   - Memory stays bounded for any output size: output over 30,000 characters keeps its
//     first and last characters around a marker, all three within 30,000 characters; the
//     marker states how many characters (not bytes) were cut and, when Config.OutputDir
//     is set, the file the whole output was streamed to, for the model to Read (or why it
//     could not be saved). Output that fits leaves no file behind.
//   - The exit code is reported; a non-zero exit, a timeout and an abort are failed results.
//   - run_in_background goes to a BackgroundRunner port, with the same Config.Env as
//     foreground commands; without one the call fails with a clear "not available"
//     message and runs nothing.
package bash
