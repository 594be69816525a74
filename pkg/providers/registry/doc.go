// Package registry is the catalogue of provider types the engine can build: for each, its
// aliases, default model and endpoint, credential requirement, known models with their
// context windows, and the factory that turns a settings profile into an llm.Provider.
//
// It is the one place that knows concrete providers (anthropic, the OpenAI-compatible
// family, script), so the CLI and session assembly choose a provider by profile type
// without naming any. Profile options are decoded by the definition that owns them.
//
// The OpenAI-compatible types resolve their profile into a compat.Config (credential and
// endpoint read from the environment as each type may, options checked) and an injected
// OpenCompatible builds the provider from it: robota-engine builds it in process
// (pkg/providers/openaicompat), robota in its provider process
// (pkg/providers/providerproc), so the registry links no OpenAI SDK. Each program's main
// installs its registry with SetDefault; Default is what sessions use.
//
// Guarantees:
//   - Type names and aliases are case-insensitive and unique; New rejects duplicates.
//   - An unknown type is a configuration error (wrapping ErrUnknownType) that lists every
//     known type.
//   - Create never reads credentials of another provider: OpenAI-compatible servers other
//     than OpenAI itself never see OPENAI_API_KEY or OPENAI_BASE_URL.
//   - A profile marked NoEnvCredentials reads nothing from the environment (no default key
//     variable, no auth token, no base URL variable): only its own APIKey is sent, and a
//     type that requires a key fails to build without one.
//   - An unknown profile option key is a configuration error naming the key.
//   - An OpenAI-compatible profile without a required key, or with a bad option, fails
//     Create with the provider's own configuration error before anything is built.
//   - Claude context windows come from pkg/engine/contextwin, so the two catalogues cannot
//     disagree.
//   - Definition.ResolveModel maps the model aliases of agent files and Agent calls
//     (ModelAliasNames: sonnet, opus, haiku) to the type's models (anthropic: the newest
//     of each tier); a type without such a model answers false so the subagent inherits
//     its parent's model; any other name is a model id and passes through.
//   - Definition.ThinkingBudgetOption names the profile option that takes a thinking
//     budget (anthropic: thinkingBudget), and BetaHeader the header of --betas (anthropic:
//     anthropic-beta, set through the "headers" option), so the flags need no provider name.
package registry
