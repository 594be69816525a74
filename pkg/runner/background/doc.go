// Package background runs the Bash tool's run_in_background commands in a robota-worker
// process, so they outlive the tool call without living in robota's own process (their
// output, their process groups, a crash). It is what `robota` plugs into the Bash tool
// (bash.BackgroundRunner); robota-engine has its own pool (pkg/runner/launcher).
//
// Guarantees:
//   - No worker is started until the first background command: a session that never runs
//     one never launches a process.
//   - The worker is robota-worker found by workerproc.Find (beside robota, then on PATH),
//     launched through go-plugin over gRPC like robota-engine's workers (pkg/runner/launcher:
//     AutoMTLS, an allowlisted environment, killed when robota dies), its Runner
//     dispensed over the connection. When it cannot be found, that command fails with an
//     error that says how to install it (workerproc.ErrNotFound); when it cannot be
//     started, with the launch error naming the binary. Either way nothing runs; the
//     session goes on, and the next command tries again.
//   - StartBackground returns once the worker has started the command (its process
//     exists) or failed to; the command then runs on after the tool call.
//   - A worker that exited or stops answering (launcher.Worker.Check) is launched again
//     for the next command.
//   - Close cancels every command still running through the worker, so each ends with
//     its cancelled event (cutting its stream when the worker does not answer within
//     seconds), then stops the worker; robota calls it when the run ends (background
//     commands do not outlive robota -p, as with claude -p).
package background
