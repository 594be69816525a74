package config

import (
	"fmt"
	"os"
	"strings"
)

// Env looks up an environment variable; os.LookupEnv fits.
type Env func(name string) (string, bool)

// OSEnv is the process environment.
var OSEnv Env = os.LookupEnv

const envPrefix = "$ENV:"

// substituteEnv replaces `$ENV:NAME` strings under `provider` and `providers` (the spec
// applies substitution after the merge, for provider settings). A reference to an unset
// variable becomes "" and is returned by key path, so the caller can warn about the
// ones that matter (the active profile's).
func substituteEnv(tree map[string]any, env Env) map[string]string {
	unset := map[string]string{}
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	var walk func(v any, path string) any
	walk = func(v any, path string) any {
		switch t := v.(type) {
		case string:
			if !envRefPattern.MatchString(t) {
				return t
			}
			name := strings.TrimPrefix(t, envPrefix)
			val, ok := env(name)
			if !ok {
				unset[path] = name
			}
			return val
		case map[string]any:
			for k, c := range t {
				t[k] = walk(c, joinPath(path, k))
			}
		case []any:
			for i, c := range t {
				t[i] = walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		}
		return v
	}
	for _, k := range []string{"provider", "providers"} {
		if v, ok := tree[k]; ok {
			tree[k] = walk(v, k)
		}
	}
	return unset
}
