// Package ssetest replays recorded server-sent-event transcripts over loopback HTTP for the
// provider tests: one scripted Reply per request, written event by event with a flush after
// each, optionally stalling or cutting the connection part-way.
//
// Guarantees:
//   - Replies are served in order; a request beyond the script gets HTTP 599 and is
//     reported through testing.TB.Errorf.
//   - Every request body and header set is recorded for assertions.
//   - Close never hangs on a stalled reply: stalls end when the client goes away or the
//     server closes.
package ssetest
