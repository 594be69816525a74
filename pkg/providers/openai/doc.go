// Package openai is the llm.Provider for the OpenAI Chat Completions API and every server
// that speaks it (OpenAI, Ollama, LM Studio, vLLM, Gemini's OpenAI endpoint), built on
// github.com/openai/openai-go/v3 streaming with stream_options.include_usage.
//
// What it owns: translating llm requests into Chat Completions parameters and assembling
// chat.completion.chunk deltas (content, reasoning_content/reasoning, tool_calls, the
// final usage chunk) into one llm.Message. Differences between servers are chosen by
// Options (token-limit field, usage streaming, key requirement, a stream Projection for
// model families that encode reasoning or tool calls in text), never by server or model
// names.
//
// Guarantees:
//   - Tool calls are assembled by this package, not the SDK accumulator: by index when the
//     server sends one, by id when it omits the index (Ollama, Gemini), as continuation of
//     the previous call when it sends neither, and a new id under an already used index
//     starts a new call. Calls keep the server's ids; a call without one gets "call_<n>".
//   - Text and reasoning deltas reach the callbacks in stream order; the returned message
//     holds exactly the streamed text. Usage is normalized (prompt tokens include cached
//     ones, reported also as CacheReadInputTokens).
//   - Failures are *llm.Error: 401/403 authentication, 429 rate limit (Retry-After kept;
//     insufficient_quota not recoverable), 5xx and connection failures recoverable and
//     retried with jittered backoff, but never once text has been streamed.
//   - A stream that ends before a finish_reason, or goes silent (Options.IdleTimeout), is
//     a recoverable network error returned with the partial message; a cancelled context
//     returns the partial message with llm.StopReasonAborted and no error.
//   - Server-specific tool-call data (Gemini's extra_content thought signatures) is kept
//     in message metadata under "toolCallExtraContent" and sent back with the call.
//   - Without explicit BaseURL/APIKey it reads OPENAI_BASE_URL and OPENAI_API_KEY only.
package openai
