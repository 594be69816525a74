// Package pool is the engine's runnerapi.Runner over robota-worker processes: it decides
// which worker runs a job and reports a worker's death as the job's failure.
//
// Guarantees:
//   - An agent job runs in a worker of its own, taken from the warm spare when one is
//     ready or launched for it, and the worker is stopped when the job ends: a subagent's
//     crash, leaked goroutines or stray processes never reach another job, and two
//     subagents always run in different processes at the same time.
//   - Process jobs (background commands) share one long-lived worker, launched with the
//     first of them and replaced when it dies.
//   - A job whose worker dies ends with exactly one failed event whose error names the
//     worker's pid and how it ended ("killed by signal 9 (killed)"); the next job gets a
//     new worker. The dead worker's job processes (found by workerproc.KillStrays) are
//     killed before that event, so none outlives it. Start never reports a worker's death as a Go error once the job has
//     started, so the caller always sees a terminal event.
//   - Nothing is launched before the first job; Close stops every worker.
//
// The launch function is the seam for other ways of getting a worker (a warm pool kept
// by a supervisor, a remote dispatcher).
package pool
