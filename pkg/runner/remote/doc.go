// Package remote runs subagent jobs and background commands on other machines over NATS
// JetStream (DESIGN.md decision 5): the engine's Dispatcher (a runnerapi.Runner) puts
// jobs on the work-queue stream, host agents (Agent, `robota-worker host`) pull them
// and run each in a local go-plugin worker; the wire contract is package wire.
//
// Security guarantees:
//   - Each host agent connects as its own NATS user with its own inbox prefix
//     (HostOptions); the server confines that user to subjects carrying its name
//     (wire.HostPublish, wire.HostSubscribe), so a host reads no other host's replies or
//     control messages and cannot speak as another host.
//   - The Dispatcher takes a message's host from its subject, answers a request only
//     when its reply subject is that host's inbox, and accepts events and answers model
//     and tool calls only for a job it issued whose current attempt that host holds;
//     everything else is dropped and logged (a warning when forged or misrouted).
//   - The engine answers the claims a host sends in its batch (wire.HostBatch) on that
//     host's own control subject (wire.ControlBatchSubject), which only that host may
//     read and only the engine may publish on: the host does not pick where it goes.
//   - Jobs hold no secret (see package wire). A tool call's execute step carries the
//     call's command sandbox (wire.Step.Sandbox: the engine's walk as the call runs),
//     which the host's runner applies instead of the job's; without one the job's holds.
//     A search call's carries what it leaves out besides the job's list
//     (wire.Step.SearchExclude).
package remote
