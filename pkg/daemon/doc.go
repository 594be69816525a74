// Package daemon assembles robota-engine: the gRPC server (EngineService,
// grpc.health.v1, reflection), the worker supervisor and signal handling,
// grouped with oklog/run so that any actor ending stops them all.
//
// Guarantees: a unix socket is created mode 0600 inside a directory only the
// user can enter; a TCP listener is refused unless TLS is configured; on
// SIGINT/SIGTERM health turns NOT_SERVING, in-flight RPCs get a bounded grace
// period (GracefulStop, then Stop), workers are killed, and Run returns nil.
package daemon
