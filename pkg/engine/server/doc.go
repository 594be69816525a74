// Package server is the gRPC EngineService: a thin adapter that translates
// between robota.v1 messages and the engine's Go types (pkg/engine/manager for
// the engine's sessions, pkg/engine/interactive for each session). It is the only
// engine package that imports gRPC or generated proto types; it keeps no
// queueing, permission or persistence logic of its own (DESIGN.md decision 7).
//
// Guarantees:
//   - Every RPC is served; ExecuteCommand and ListCommands over the session's command
//     registry (InteractiveSession.ExecuteCommand/ListCommands): a command that could
//     not do what was asked is success=false with its message, an unknown command
//     NOT_FOUND. An RPC a later build adds answers codes.Unimplemented with a message
//     saying it is planned, so clients can tell "not yet" from "broken". A session of an
//     engine without workers answers the task RPCs FAILED_PRECONDITION.
//   - Errors carry the codes engine.proto documents: NOT_FOUND for an unknown
//     session, permission request or background task, FAILED_PRECONDITION for
//     closing a task that still runs or cancelling one that ended, INVALID_ARGUMENT naming the request field,
//     RESOURCE_EXHAUSTED for a full prompt queue or a client that does not read
//     its events in time, FAILED_PRECONDITION for a permission answered twice or a
//     session that is stored but not live, OUT_OF_RANGE for a replay the session
//     no longer keeps, UNAVAILABLE while the engine shuts down.
//   - Submit and Watch stream from an InteractiveSession subscription: deltas may
//     be coalesced, lifecycle events are never dropped, and a client leaving never
//     stops a prompt. A client that stops reading is cut off without slowing the
//     session or other clients: past its subscription's bound its queued events are
//     dropped at once and it is unsubscribed; its stream then ends with
//     RESOURCE_EXHAUSTED (naming the last sequence it took, to Watch again after it)
//     as soon as it takes what its transport already holds, or when keepalive finds
//     its connection dead. Until then one goroutine and one flow-control window
//     (64 KiB by default) stay allocated for it, nothing more.
//   - Submit sends a prompt's events in as few messages as their timing allows: the
//     events taken at one wake-up travel in one SubmitResponse (under MaxEventTextBytes
//     of encoding, so every message stays under gRPC's default receive limit), the
//     acceptance waits up to holdBack (10 ms) for the first events, a context_update
//     for the event after it (up to twice holdBack: it does not wake the stream, see
//     interactive.SubscribeOptions). A message carries only its latest context_update,
//     where it came, and none when it ends with the end event (whose result carries the
//     same state): a quick turn is [text_delta, complete]. Message events, never sent, do not
//     wake it either. A quick turn is one message, where it was five: each
//     message and wake-up costs both ends CPU that the session's own work then lacks.
//     Watch sends every event, one per message, after response headers sent once it
//     has subscribed (a client that waits for them misses nothing published later).
//   - Message sizes are bounded explicitly (MaxRecvMessageBytes,
//     MaxSendMessageBytes; ServerOptions); GetHistory pages stay under the bound. The
//     receive window is fixed (InitialWindowBytes): no bandwidth-probe PING follows a
//     request's data, which for a Submit went out alone while its prompt ran.
package server
