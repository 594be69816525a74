// Package workerplugin is the contract between the engine and its worker
// processes: the runnerapi.Runner interface, the go-plugin handshake, and the gRPC
// adapters that translate between robota.v1.RunnerService and Go types.
//
// It owns nothing else. The engine side (launching, supervising) lives in
// pkg/runner/launcher; the worker side (running jobs) lives in
// pkg/runner/worker. Both import this package and nothing of each other.
//
// Agent jobs: the engine side (GRPCClient) serves each agent job's runnerapi.Host
// to the worker as robota.v1.HostService on the go-plugin broker; one service per
// worker connection, started by GRPCClient.Prepare or else with its first agent job,
// routes each call to the Host of the job it names, for as long as that job runs.
// PrepareRequest and StartRequest carry its broker id; the worker side
// (GRPCPlugin.GRPCServer) dials it once (Prepare waits until the connection is up,
// TLS handshake done, then lets the worker's Runner prepare if it is a
// runnerapi.Preparer) and gives each job a runnerapi.Host that forwards Chat (deltas streamed, then the result) and
// RunTool (the call, then the engine's "execute with this input" — with the call's
// command sandbox, runnerapi.WithSandbox, when the engine walked one, and what a search
// leaves out, runnerapi.WithSearchExclude — or final result;
// the local result; the final result) over it. The llm types cross as JSON (see
// host.proto for why). A worker thus holds no provider, key, rule or approval.
// go-plugin's broker forgets an address nobody dials within 5 s; a job whose worker
// could not reach the service before it emitted anything is started once more on a
// fresh one, and a Prepare whose worker could not reach it leaves the next job a fresh
// one. Prepare also sets up, once per process on each side, the protobuf coders of
// every message the two services carry, which the first job would otherwise pay.
//
// Two things here serve robota's provider process too (pkg/providers/providerplugin):
// one model call's steps on the wire (chat.go: ChatCallbacks, DeliverChatStep,
// ChatResultToProto, ChatResultFromProto), which ProviderService carries as HostService
// does, and the server side of the TLS identity hand-over (TLSProvider).
//
// Guarantees: a job's events reach the caller in the order the worker emitted
// them, with sequence numbers starting at 1; every Start ends with exactly one
// terminal event (completed, failed or cancelled) unless it returns an error.
package workerplugin
