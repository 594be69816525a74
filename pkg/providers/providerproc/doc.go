// Package providerproc is robota's side of its provider process: the registry robota
// uses, whose OpenAI-compatible types (openai, ollama, lmstudio, vllm, gemini, gemma)
// make their model calls in robota-provider through pkg/providers/providerplugin, so
// robota links no OpenAI SDK (issue 29). robota-engine builds those providers in
// process instead (pkg/providers/openaicompat).
//
// Guarantees:
//   - The process is started only when a session opens an OpenAI-compatible provider:
//     in the background at once, so its start overlaps the session's set-up, and the
//     first model call waits for it. One process serves every such provider of the
//     program. A process that has exited is started again at the next call.
//   - Opening a provider when robota-provider is neither beside the executable nor on
//     PATH is a configuration error that names the binary and how to install it.
//   - Close kills the process; robota closes the Host when its session ends, and the
//     parent-death signal ends the process if robota dies first.
//   - The process gets the allowlisted environment workers get, plus the proxy and
//     certificate settings an HTTP client honours: no credential variable. The API key
//     reaches it only inside each call's configuration, and neither side logs it.
package providerproc
