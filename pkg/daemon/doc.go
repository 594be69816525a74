// Package daemon assembles robota-engine: the gRPC server (EngineService,
// grpc.health.v1, reflection), the worker supervisor and signal handling,
// grouped with oklog/run so that any actor ending stops them all.
//
// Guarantees: a unix socket is created mode 0600 (bound in a private staging
// directory and renamed into place, so it is never reachable with a looser
// mode) inside a directory the user owns and nobody else can write; any
// other directory is refused. A TCP listener is refused unless mutual TLS is
// configured (--tls-cert, --tls-key and --tls-client-ca; TLS 1.2 or later,
// every client must present a certificate the CA signed). On SIGINT/SIGTERM
// health turns NOT_SERVING, every live session is closed and saved (a running
// prompt aborted, its partial answer kept; bounded by the grace period), their
// Watch streams end, in-flight RPCs get a bounded grace period
// (GracefulStop, then Stop), a worker launch in progress is abandoned,
// workers are killed, and Run returns nil.
package daemon
