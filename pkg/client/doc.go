// Package client is the Go client of the engine's EngineService (proto/robota/v1):
// what `robota --engine ADDR` and Go programs use to run sessions in a running
// robota-engine.
//
// It owns the connection (Dial) and the translation between the wire and Go types;
// the generated proto types never leave this package. Sessions, prompts and
// permission answers are the engine's: this package keeps no state of its own
// beyond the connection.
//
// Guarantees:
//   - Dial accepts the addresses robota-engine listens on: unix:///ABS/PATH (or
//     unix:/ABS/PATH) without TLS, and tcp://HOST:PORT with mutual TLS only (a
//     client certificate and key, and the CA that signed the engine's certificate,
//     as robota-engine --tls-client-ca requires). Anything else is ErrBadTarget
//     before any connection is tried.
//   - Message size limits match the server's (16 MiB received, 8 MiB sent).
//   - Every RPC error is returned wrapped with the operation's name; errors.Is
//     matches the sentinel of its gRPC code (ErrNotFound, ErrInvalidArgument,
//     ErrFailedPrecondition, ErrResourceExhausted, ErrUnavailable, ErrOutOfRange),
//     and status.Code still reads the code.
//   - Submit returns once the engine accepted the prompt (its id, and whether it
//     was queued); the stream then yields that prompt's events, in sequence order,
//     and ends with io.EOF after its complete, error or interrupted event.
//   - Events, tool states, results and history messages are Go types (this
//     package's, and pkg/engine/llm's Message and Usage, so they feed the same
//     renderers as an in-process run).
package client
