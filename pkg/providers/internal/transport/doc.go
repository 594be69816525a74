// Package transport holds what the HTTP providers share below their SDKs: the mapping of
// HTTP statuses, API error types and network failures onto the llm error taxonomy,
// Retry-After parsing, and the stream idle watchdog.
//
// Guarantees:
//   - Classify never returns nil and always sets Provider and (when known) StatusCode.
//   - 401/403 are authentication errors, 429 is a rate limit (carrying the server's
//     Retry-After as a retry.AfterError), 408, 409 and 5xx are recoverable provider errors,
//     other 4xx are not recoverable; connection failures are recoverable network errors.
//   - A Watchdog cancels its context with ErrStreamIdle when Touch is not called within
//     its timeout; it never fires after Stop.
package transport
