package config

import (
	"fmt"
	"sort"
	"strings"
)

// The credential rule (review A10/B17): a repository's settings file must not be able to
// send the user's secrets to a host it names. So when a project or local settings file
// sets a profile's baseURL, that profile is "guarded":
//   - no `$ENV:` reference in it is substituted (it becomes ""), whichever file wrote it;
//   - an apiKey or options.headers value written by another file than the one that set
//     baseURL is dropped (a user's key never follows a project's endpoint);
//   - the consumer must not read the provider's default credential variable either
//     (ProviderProfile.NoEnvCredentials tells it).
// Only a key written literally in the file that chose the endpoint is sent there.

// isProjectScope reports a project or local settings file (the repository's layers).
func isProjectScope(src Source) bool {
	return src.Name == ScopeProject || src.Name == ScopeLocal
}

// withheldValue is a value of a guarded profile that was not used.
type withheldValue struct {
	path    string // key path of the value
	varName string // the `$ENV:` variable it referenced; "" for a literal from another file
	from    Source // the file that wrote it
	profile string // key path of the guarded profile
}

// profilePaths lists the key paths of every provider profile in a merged tree: `provider`
// and `providers.NAME`.
func profilePaths(tree map[string]any) []string {
	var out []string
	if _, ok := tree["provider"].(map[string]any); ok {
		out = append(out, "provider")
	}
	if ps, ok := tree["providers"].(map[string]any); ok {
		for _, name := range sortedKeys(ps) {
			if _, ok := ps[name].(map[string]any); ok {
				out = append(out, joinPath("providers", name))
			}
		}
	}
	return out
}

// profileAt returns the profile object at a path profilePaths returned.
func profileAt(tree map[string]any, path string) map[string]any {
	if path == "provider" {
		p, _ := tree["provider"].(map[string]any)
		return p
	}
	ps, _ := tree["providers"].(map[string]any)
	for name, p := range ps {
		if joinPath("providers", name) == path {
			m, _ := p.(map[string]any)
			return m
		}
	}
	return nil
}

// guardProjectEndpoints applies the credential rule to the merged tree, before `$ENV:`
// substitution. It returns the file that set baseURL of each guarded profile (by profile
// key path) and the values it blanked.
func guardProjectEndpoints(tree map[string]any, origins map[string]Source) (map[string]Source, []withheldValue) {
	origin := func(path string) Source {
		for p := path; p != ""; p = parentPath(p) {
			if src, ok := origins[p]; ok {
				return src
			}
		}
		return Source{}
	}
	guarded := map[string]Source{}
	var withheld []withheldValue
	for _, path := range profilePaths(tree) {
		prof := profileAt(tree, path)
		raw, _ := prof["baseURL"].(string)
		base := origin(joinPath(path, "baseURL"))
		if strings.TrimSpace(raw) == "" || !isProjectScope(base) {
			continue
		}
		guarded[path] = base
		headers := joinPath(joinPath(path, "options"), "headers")
		var walk func(v any, p string) any
		walk = func(v any, p string) any {
			switch t := v.(type) {
			case string:
				from := origin(p)
				switch {
				case envRefPattern.MatchString(t):
					withheld = append(withheld, withheldValue{path: p, varName: strings.TrimPrefix(t, envPrefix), from: from, profile: path})
					return ""
				case (p == joinPath(path, "apiKey") || strings.HasPrefix(p, headers+".") || strings.HasPrefix(p, headers+"[")) &&
					from.Layer != base.Layer:
					withheld = append(withheld, withheldValue{path: p, from: from, profile: path})
					return ""
				}
			case map[string]any:
				for _, k := range sortedKeys(t) {
					t[k] = walk(t[k], joinPath(p, k))
				}
			case []any:
				for i := range t {
					t[i] = walk(t[i], fmt.Sprintf("%s[%d]", p, i))
				}
			}
			return v
		}
		walk(prof, path)
	}
	sort.Slice(withheld, func(i, j int) bool { return withheld[i].path < withheld[j].path })
	return guarded, withheld
}

// withheldWarnings explains, for the active profile only, each value the credential rule
// did not use.
func (s *Settings) withheldWarnings(profilePath string) []Issue {
	base, ok := s.guarded[profilePath]
	if !ok {
		return nil
	}
	var out []Issue
	for _, w := range s.withheld {
		if w.profile != profilePath {
			continue
		}
		msg := fmt.Sprintf("not used: %s, a project settings file, sets %s, and only a key written literally in that file is sent to an endpoint a project file chose",
			base.Display, joinPath(profilePath, "baseURL"))
		if w.varName != "" {
			msg = fmt.Sprintf("$ENV:%s is not substituted: %s, a project settings file, sets %s, and credentials from the environment are never sent to an endpoint a project file chose (write the key literally in that file, or set baseURL in user settings)",
				w.varName, base.Display, joinPath(profilePath, "baseURL"))
		}
		out = append(out, Issue{Severity: SeverityWarning, File: w.from.Display, Path: w.path, Message: msg})
	}
	return out
}
