// Package retry owns the retry loop shared by the network providers: bounded attempts,
// exponential backoff with jitter, and server-requested delays (Retry-After).
//
// Guarantees:
//   - Only errors that llm.IsRecoverable reports are retried; every other error is returned
//     from the attempt that produced it.
//   - An attempt that has delivered output to the user (a streamed text delta) is never
//     retried, whatever its error: the user would see the text twice.
//   - At most Policy.MaxAttempts attempts run; waits never exceed Policy.MaxDelay, except a
//     server-requested delay, which is honoured exactly up to Policy.MaxRetryAfter and makes
//     the loop give up when it asks for longer.
//   - A cancelled context stops the loop at once, also during a wait.
//   - Sleep and jitter are injectable, so tests observe waits without sleeping.
package retry
