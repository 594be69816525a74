package interactive

import (
	"maps"
	"os"
	"slices"
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
// own with the settings `env` values over it (Claude Code applies them to its process, so
// they win over an inherited variable of the same name). nil (the engine's own) when the
// settings set none.
func toolEnv(env map[string]string) []string {
	extra := settingsEnv(env)
	if extra == nil {
		return nil
	}
	// exec keeps the last value of a repeated name, so appending overrides.
	return append(os.Environ(), extra...)
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
