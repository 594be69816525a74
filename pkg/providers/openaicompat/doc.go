// Package openaicompat builds the OpenAI-compatible providers (openai, ollama, lmstudio,
// vllm, gemini, gemma) in this process, from the configuration the registry resolves
// (compat.Config): registry.NewBuiltin(openaicompat.Open) is the registry of every
// built-in type built that way. It does not import the registry, so the provider process
// links no other provider.
//
// It is the one package that joins the registry to the OpenAI SDK. robota-engine and the
// provider process (robota-provider) import it; robota does not, and runs these providers
// in robota-provider instead (pkg/providers/providerproc), which keeps the SDK's code and
// type pages out of its memory (issue 29).
//
// Guarantees:
//   - Open builds exactly the provider the registry's in-process definition used to: the
//     same options, and no environment read (the configuration holds what was read).
//   - Backend serves model calls for any number of configurations, building each
//     configuration's provider once and reusing it (its HTTP connections with it).
package openaicompat
