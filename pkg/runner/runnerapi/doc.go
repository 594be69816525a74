// Package runnerapi is what a worker runs, in plain Go types: the Runner interface, jobs,
// their events and log pages. It imports nothing but the standard library and pkg/engine/llm (itself standard
// library only), so code that
// only uses a Runner (pkg/runner/pool, pkg/runner/tasks, tests, in-process runners) does not depend
// on the wire; pkg/runner/workerplugin carries these types over go-plugin and gRPC.
//
// Guarantees of every Runner: a job's events reach the caller in the order the worker
// emitted them, with sequence numbers starting at 1; every Start ends with exactly one
// terminal event (completed, failed or cancelled) unless it returns an error.
package runnerapi
