// Package runnerapi is what a worker runs, in plain Go types: the Runner interface, jobs,
// their events and log pages. It imports nothing but the standard library, so a program
// that talks to a worker without gRPC (robota over pkg/runner/pipe) links none of it;
// pkg/runner/workerplugin carries the same types over go-plugin and gRPC (its names are
// aliases of these).
//
// Guarantees of every Runner: a job's events reach the caller in the order the worker
// emitted them, with sequence numbers starting at 1; every Start ends with exactly one
// terminal event (completed, failed or cancelled) unless it returns an error.
package runnerapi
