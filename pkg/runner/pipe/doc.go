// Package pipe carries the runnerapi.Runner contract over a worker's stdin and stdout as
// JSON lines. robota uses it to drive robota-worker (`robota-worker --stdio`): a pipe to
// a child is private to the two processes, so it needs neither go-plugin's handshake and
// mutual TLS nor gRPC, and robota links none of them (DESIGN.md decision 10 and
// PERF-NOTES.md: linking go-plugin's client and gRPC costs robota about 8 MiB of RSS on
// every run, --version included). robota-engine keeps go-plugin.
//
// Wire: the worker first writes {"hello":"robota-worker/1"}. The client then writes
// requests {"id":N,"op":"start"|"cancel"|"send"|"read_log"|"stop",...}; the worker
// answers each with any number of {"id":N,"event":{...}} (start only) and one final
// {"id":N,"done":true,...} carrying the result or the error. "stop" ends the start
// request named by "ref" as if its caller's context had ended. Requests run concurrently.
//
// Guarantees: a job's events reach the caller in the worker's order; the sentinel errors
// of runnerapi (ErrUnknownJob, ErrUnsupportedJob) survive the trip (errors.Is works on
// the client); when the worker exits, every call in flight fails with ErrWorkerExited;
// when the client goes away (stdin closes), the worker ends every job it runs for it.
package pipe
