// Package launcher is the engine side of worker processes (robota-engine's pool,
// and the subagents and background commands of every session through pkg/runner/pool): it starts a worker
// binary through go-plugin (gRPC only, mutual TLS, raised message limits, a
// parent-death signal so no worker outlives the engine); a Supervisor that
// keeps a set of shared workers alive (launched in parallel), detects crashes
// (Exited, then Ping) and reports and replaces them; and a Pool of started,
// idle workers that Acquire hands out for a caller's exclusive use, so a spawn
// from it costs one RPC, refilled in the background (bounded by its Ready
// size). The Pool prepares every new worker before it waits
// (runnerapi.Preparer): the worker connects to the engine's host service and sets
// up an agent job's tools once, so an agent job from the pool pays neither that
// TLS handshake nor those one-time costs before its started event. A slot or pool refill whose worker fails to start or to answer its
// first call is retried with exponential backoff; a launch in progress is
// abandoned (its process killed) when the engine shuts down.
//
// Mutual TLS is go-plugin's AutoMTLS made cheap (mtls.go): the engine's client
// certificate (ECDSA P-256) is made once per process; each worker gets its own
// P-256 certificate, made by the engine and handed over through an inherited
// pipe (workerplugin.TLSFDEnv), never the environment. Each side requires and
// verifies the other's certificate. A worker that ignores the pipe falls back
// to making its own certificate through go-plugin, which the engine accepts as
// AutoMTLS does.
//
// Workers hold no secrets: they get an allowlisted environment (PATH, HOME,
// USER, LOGNAME, LANG, LC_*, TMPDIR, TZ, TERM, SHELL, XDG_*,
// ROBOTA_WORKER_LOG_LEVEL) and nothing else of the engine's.
//
// Worker logs arrive as hclog JSON on the worker's stderr; go-plugin parses
// them and they are re-logged through the engine's zap logger with the
// worker's level, message and fields.
package launcher
