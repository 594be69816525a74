// Package workerplugin is the contract between the engine and its worker
// processes: the runnerapi.Runner interface, the go-plugin handshake, and the gRPC
// adapters that translate between robota.v1.RunnerService and Go types.
//
// It owns nothing else. The engine side (launching, supervising) lives in
// pkg/runner/launcher; the worker side (running jobs) lives in
// pkg/runner/worker. Both import this package and nothing of each other.
//
// Guarantees: a job's events reach the caller in the order the worker emitted
// them, with sequence numbers starting at 1; every Start ends with exactly one
// terminal event (completed, failed or cancelled) unless it returns an error.
package workerplugin
