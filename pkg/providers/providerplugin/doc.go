// Package providerplugin is the contract between robota and its provider process
// (robota-provider): the Backend interface, the go-plugin handshake, and the gRPC
// adapters that translate between robota.v1.ProviderService and Go types.
//
// robota links no OpenAI SDK (issue 29: the SDK's code and type pages cost about 5 MiB
// of resident memory at every start). A session that chooses an OpenAI-compatible type
// has its model calls made by robota-provider instead, which builds the provider from
// the configuration the registry resolved (compat.Config) exactly as
// robota-engine builds it in process (pkg/providers/openaicompat). Starting and
// stopping that process is pkg/providers/providerproc's job; serving it is Serve's.
//
// Guarantees: a model call through the plugin behaves as the provider does in process.
// Text and thinking deltas, hosted tool uses and raw payloads reach the caller's
// callbacks in stream order; the response (tool calls, usage, stop reason) is the
// provider's own; an error keeps its llm.Error code, category, recoverability, status
// code, provider and words (not its cause chain). When the caller's context ends, the
// client sends a cancel step rather than dropping the stream, so the provider's partial
// response comes back as it would in process; a provider process that does not answer
// within AbortGrace is left, and the call returns the text streamed so far, aborted.
// The configuration, which holds the API key, crosses only inside the call.
package providerplugin
