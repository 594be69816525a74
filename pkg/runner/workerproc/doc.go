// Package workerproc is how robota and robota-engine find and start a robota-worker
// process, which pkg/runner/launcher then drives through go-plugin: the lookup of the
// binary, the allowlisted environment and the parent-death signal. It links nothing but
// the standard library.
//
// Guarantees:
//   - Find looks for robota-worker beside the running executable first (a bin/ directory
//     works as a unit), then on PATH. When there is none, its error wraps ErrNotFound and
//     says how to install it.
//   - Workers hold no secrets: Env keeps PATH, HOME, USER, LOGNAME, LANG, LC_*, TMPDIR,
//     TZ, TERM, SHELL, XDG_* and ROBOTA_WORKER_LOG_LEVEL, and nothing else.
//   - On Linux, Attrs makes the kernel SIGTERM the worker when its parent dies, even by
//     kill -9, so no worker is orphaned; robota-worker answers SIGTERM by killing its
//     jobs' process groups and exiting (pkg/runner/worker), so no job process is either.
//   - A worker marks its jobs' processes with its pid (JobMarkerEnv in their
//     environment); KillStrays ends the ones a dead worker left behind (a worker killed
//     with SIGKILL ends nothing itself). Linux only; elsewhere it finds nothing.
package workerproc
