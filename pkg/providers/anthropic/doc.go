// Package anthropic is the llm.Provider for Anthropic's Messages API, built on
// github.com/anthropics/anthropic-sdk-go and its streaming endpoint.
//
// What it owns: translating llm requests into Messages API parameters (system prompt, tool
// schemas, tool_use/tool_result history, thinking blocks with their signatures, prompt
// caching breakpoints, the hosted web_search/web_fetch tools) and assembling the streamed
// events (text_delta, input_json_delta, thinking_delta, signature_delta, server tool
// blocks, message_delta usage) back into one llm.Message.
//
// Guarantees:
//   - Text and thinking deltas reach the callbacks in stream order, and the returned message
//     holds exactly the streamed text. Tool-call IDs are Anthropic's, unchanged.
//   - Usage is normalized: InputTokens counts the whole prompt (uncached input plus cache
//     writes plus cache reads); the cache parts are reported separately as well.
//   - Failures are *llm.Error: 401/403 authentication, 429 rate limit (Retry-After kept for
//     the retry loop), 5xx/overloaded and connection failures recoverable. Recoverable
//     failures are retried with jittered backoff, but never once text has been streamed.
//   - A stream that breaks or goes silent (Options.IdleTimeout) is a recoverable network
//     error returned together with the partial message; a cancelled context returns the
//     partial message with llm.StopReasonAborted and no error.
//   - Every request and stream event is offered to Callbacks.OnRawPayload as Anthropic's
//     own JSON (apiSurface "anthropic-messages").
//   - Without an explicit BaseURL or APIKey the provider reads ANTHROPIC_BASE_URL and
//     ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN); it reads no other ambient SDK setting.
//
// History conventions: a thinking part with a signature is sent back as a thinking block;
// a thinking part with an empty Text and a non-empty Signature is a redacted_thinking
// block whose Signature holds the encrypted data; unsigned thinking (from another
// provider) is dropped, because the API rejects it. Consecutive tool messages become one
// user message of tool_result blocks.
//
// Hosted web tools never run on this machine and are not llm tool calls: each call is
// reported through llm.Callbacks.OnServerToolUse once its input is complete, and with its
// outcome (result count, URLs, error) through Options.OnServerToolUse and the message
// metadata ("serverToolUse", "webSearchRequests", "webFetchRequests").
package anthropic
