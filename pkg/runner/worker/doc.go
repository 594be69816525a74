// Package worker is the worker-process side of pkg/runner: a Runner that runs
// background shell processes, and Serve, which offers it over go-plugin (gRPC)
// to robota-engine and robota, which both launch robota-worker. `robota` never
// serves as a worker (DESIGN.md decision 10: serving links
// go-plugin's net/rpc server).
//
// Start-up makes no certificate: the engine hands the worker its TLS identity
// through an inherited pipe (workerplugin.TLSFDEnv), closed once read, and the
// worker requires the engine's certificate (PLUGIN_CLIENT_CERT) of every
// client. Without the pipe, go-plugin's AutoMTLS applies.
//
// Guarantees: every process runs in its own process group, and cancellation,
// timeout or the engine going away kills the whole group. Output is captured
// (stdout and stderr together) into a bounded in-memory log that ReadLog pages
// through, and is streamed as text deltas, which may be coalesced. Exactly one
// terminal event ends every started job. Finished jobs stay readable until
// they are among the oldest beyond the last 64 (or 64 MiB of logs); then
// ReadLog reports ErrUnknownJob, so a long-lived worker's memory is bounded.
// A job inherits the worker's environment without credentials (*_API_KEY,
// *_TOKEN, *SECRET*, *PASSWORD*) or go-plugin plumbing (PLUGIN_*, the magic
// cookie).
//
// Agent jobs arrive with the runner issue; until then Start refuses them with
// runnerapi.ErrUnsupportedJob.
package worker
