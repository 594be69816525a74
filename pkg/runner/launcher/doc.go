// Package launcher is the engine side of worker processes (robota-engine's pool,
// and the subagents and background commands of every session through pkg/runner/pool): it starts a worker
// binary through go-plugin (gRPC only, AutoMTLS, raised message limits, a
// parent-death signal so no worker outlives the engine), and a Supervisor that
// keeps a pool of workers alive, detects crashes (Exited, then Ping) and
// reports and replaces them. A slot whose worker fails to start or to answer
// its first ping is retried with exponential backoff; a launch in progress
// is abandoned (its process killed) when the engine shuts down.
//
// Workers hold no secrets: they get an allowlisted environment (PATH, HOME,
// USER, LOGNAME, LANG, LC_*, TMPDIR, TZ, TERM, SHELL, XDG_*,
// ROBOTA_WORKER_LOG_LEVEL) and nothing else of the engine's.
//
// Worker logs arrive as hclog JSON on the worker's stderr; go-plugin parses
// them and they are re-logged through the engine's zap logger with the
// worker's level, message and fields.
package launcher
