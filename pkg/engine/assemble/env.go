package assemble

import (
	"maps"
	"os"
	"slices"
	"strings"
)

// settingsEnv is the settings `env` object as NAME=value entries, sorted by name; nil
// when it is empty. The layers are already merged key by key (a higher layer's value for
// a name wins), as Claude Code merges them.
func settingsEnv(env map[string]string) []string {
	if len(env) == 0 {
		return nil
	}
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// toolEnv is the environment of tool processes (Bash, background commands): the engine's
// own without the provider credentials, with the settings `env` values over it (Claude
// Code applies them to its process, so they win over an inherited variable of the same
// name). Claude Code passes its whole environment through; robota keeps provider keys
// out of every command, so `env` cannot show them to the model: a user who wants a key
// in commands names it in the settings `env`.
func toolEnv(env map[string]string) []string {
	out := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return providerCredential(name)
	})
	// exec keeps the last value of a repeated name, so appending overrides.
	return append(out, settingsEnv(env)...)
}

// providerCredential reports whether an inherited variable holds a model provider's
// credential (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ANTHROPIC_AUTH_TOKEN ...).
func providerCredential(name string) bool {
	upper := strings.ToUpper(name)
	return strings.HasSuffix(upper, "_API_KEY") || upper == "ANTHROPIC_AUTH_TOKEN" || upper == "OPENAI_ADMIN_KEY"
}

// lookupWithSettings resolves a variable from the settings `env` first, then the
// process environment (an http hook's allowedEnvVars see what a command hook sees).
func lookupWithSettings(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := env[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
}
