package config

import (
	"fmt"
	"strings"
	"time"
)

// ResolvedProvider is the provider the session should use, after the spec's resolution
// order: command-line override, then currentProvider + providers[currentProvider], then
// the legacy `provider`. It names no concrete provider itself: with nothing configured,
// Configured is false and the caller falls back (API-key environment variables, a
// message saying how to configure one).
type ResolvedProvider struct {
	// Profile is the profile name, empty for the legacy object or a bare --provider type.
	Profile string
	Type    string
	Model   string
	APIKey  string
	BaseURL string
	// Timeout is the provider idle timeout; DefaultProviderTimeout when none is set.
	Timeout time.Duration
	// Options is the provider-owned options bag, passed through unread.
	Options map[string]any
	// Source is where the provider was chosen.
	Source Source
	// Configured is true when a flag or a settings layer chose a provider type.
	Configured bool
	// NoEnvCredentials, BaseURLSource and BaseURLKey are the profile's credential rule:
	// see ProviderProfile.
	NoEnvCredentials bool
	BaseURLSource    Source
	BaseURLKey       string
}

// ActiveProvider resolves the provider. Build has already rejected a currentProvider
// naming no profile, so resolution itself cannot fail.
func (s *Settings) ActiveProvider() ResolvedProvider {
	r := ResolvedProvider{Timeout: DefaultProviderTimeout}
	fill := func(p ProviderProfile) {
		r.Type, r.Model, r.APIKey, r.BaseURL = p.Type, p.Model, p.APIKey, p.BaseURL
		r.Options, r.Source = p.Options, p.Source
		r.NoEnvCredentials, r.BaseURLSource, r.BaseURLKey = p.NoEnvCredentials, p.BaseURLSource, p.BaseURLKey
		if p.Timeout > 0 {
			r.Timeout = p.Timeout
		}
	}
	switch name, path := s.activeProfile(); {
	case path == "override":
		r.Type, r.Source = s.provider.name, s.provider.src
	case path == "provider":
		fill(*s.LegacyProvider)
	case path != "":
		r.Profile = name
		fill(s.Providers[name])
	}
	if s.provider.model != "" {
		r.Model = s.provider.model
		if r.Source.Name == "" {
			r.Source = s.provider.src
		}
	}
	r.Configured = strings.TrimSpace(r.Type) != ""
	return r
}

// activeProfile names the profile in use and the key path of its settings: a profile
// name from --provider or currentProvider ("providers.NAME"), "override" for a bare
// --provider type, or "provider" for the legacy object ("" when none).
func (s *Settings) activeProfile() (name, path string) {
	if n := s.provider.name; n != "" {
		if _, ok := s.Providers[n]; ok {
			return n, joinPath("providers", n)
		}
		return "", "override"
	}
	if _, ok := s.Providers[s.CurrentProvider]; ok && s.CurrentProvider != "" {
		return s.CurrentProvider, joinPath("providers", s.CurrentProvider)
	}
	if s.LegacyProvider != nil {
		return "", "provider"
	}
	return "", ""
}

// activeEnvWarnings warns about `$ENV:` references of the active provider that name
// unset variables, and about values the credential rule withheld from it; those of unused
// profiles are not worth a warning.
func (s *Settings) activeEnvWarnings() []Issue {
	_, path := s.activeProfile()
	if path == "" || path == "override" {
		return nil
	}
	out := s.withheldWarnings(path)
	for _, p := range sortedKeys(s.unsetEnv) {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			out = append(out, Issue{Severity: SeverityWarning, File: s.originOf(p).Display, Path: p,
				Message: fmt.Sprintf("environment variable %s is not set", s.unsetEnv[p])})
		}
	}
	return out
}
