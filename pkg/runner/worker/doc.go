// Package worker is the worker-process side of pkg/runner: a Runner that runs
// background shell processes and agent jobs (subagents), and Serve, which offers it over go-plugin (gRPC)
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
// timeout or the engine going away kills the whole group. The engine dying, even by
// kill -9, reaches Serve as SIGTERM (the parent-death signal of workerproc.Attrs), on
// which the worker kills the process group of each of its children (process jobs'
// shells and agent jobs' Bash commands alike) and exits. Output is captured
// (stdout and stderr together) into a bounded in-memory log that ReadLog pages
// through, and is streamed as text deltas, which may be coalesced. Exactly one
// terminal event ends every started job. Finished jobs stay readable until
// they are among the oldest beyond the last 64 (or 64 MiB of logs); then
// ReadLog reports ErrUnknownJob, so a long-lived worker's memory is bounded.
// A job inherits the worker's environment without credentials (*_API_KEY,
// *_TOKEN, *SECRET*, *PASSWORD*) or go-plugin plumbing (PLUGIN_*, the magic
// cookie), plus workerproc.JobMarkerEnv set to the worker's pid, by which the engine
// finds and ends the job's processes should the worker die by SIGKILL.
//
// Agent jobs: the worker runs the child session's loop (pkg/engine/agent) and its
// tools in its own process, in the job's cwd (its workspace widened by AdditionalDirs), with the built-in tools
// (pkg/tools/builtin) restricted to AgentJob.Tools when that is set, and never an
// Agent or Task tool (subagents do not start subagents). The worker holds no secrets
// (DESIGN.md decision 4): every model call goes to job.Host.Chat and every tool call
// to job.Host.RunTool, which makes every decision in the engine (rules, mode, hooks,
// the parent session's permission asks) and lets the tool run here, at most once,
// only with the input the engine settled on. A sandboxed job's Bash command runs in the
// sandbox the engine sends with the call (runnerapi.SandboxFrom: its rules walked again as
// the call runs, so a denied file an earlier command brought in is hidden), and in the
// job's own, made as it started, when the engine sends none. A Grep or Glob call leaves
// out AgentJob.SearchExclude and what the engine sends with the call
// (runnerapi.SearchExcludeFrom, the rules walked as it runs). The job's SystemPrompt is used as given
// (the engine assembles it: agent body, context files, framework suffix). MaxTurns
// caps the model/tool rounds (0: no cap); at the cap the loop's forced summary is
// the answer. Events: started (the worker's pid), text deltas, tool_start and
// tool_end (ToolProgress with the call id, tool name, first argument and, on
// failure or denial, the first line of the error), then completed with the final
// answer in Output, failed (a provider failure, with its error-taxonomy category
// and recoverability, or a full context window) or cancelled (Cancel's reason, or
// "engine went away" when Start's context ends). Cancel aborts the model call in
// flight and the running tool. An agent job's log (ReadLog) is its streamed text;
// Send is refused (ErrUnsupportedJob). Prepare (runnerapi.Preparer) sets up an agent
// job's tools and loop once and drops them, so a pooled worker's first job does not
// generate the tools' JSON schemas (~1 ms) before its started event; it runs nothing
// and registers no job.
//
// In process: a Worker used directly, with a Host that calls the engine's session
// (pkg/engine/session), is the in-process runner for tests and Go embedders; the
// same code runs behind go-plugin in robota-worker, where Job.Host is the engine's
// HostService on the plugin broker (pkg/runner/workerplugin).
package worker
