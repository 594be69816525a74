package config

import (
	"encoding/json"
	"slices"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// sandboxNetworkSchema is Claude Code's sandbox.network object (Claude Code 2.1's
// settings schema; pkg/sandbox's doc says what robota makes of each key).
func sandboxNetworkSchema() *node {
	return object(map[string]*node{
		"allowedDomains":          arrayOf(str()),
		"deniedDomains":           arrayOf(str()),
		"allowManagedDomainsOnly": boolean(),
		"allowUnixSockets":        arrayOf(str()),
		"allowAllUnixSockets":     boolean(),
		"allowLocalBinding":       boolean(),
		"allowMachLookup":         arrayOf(str()),
		"httpProxyPort":           port(),
		"socksProxyPort":          port(),
		"tlsTerminate":            anyJSON(),
	})
}

func port() *node {
	return &node{kind: kindNumber, check: func(v any) string {
		n, err := v.(json.Number).Int64()
		if err != nil || n < 1 || n > 65535 {
			return "want a port number (1-65535), got " + v.(json.Number).String()
		}
		return ""
	}}
}

// NoEffectPaths are keys below a top-level key that robota accepts without acting on
// them, with why; each one a file sets is a warning naming the file and the key.
func NoEffectPaths() map[string]string { return noEffectPathsTable.Get() }

// noEffectPathsTable is built on first use (internal/lazy).
var noEffectPathsTable = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"sandbox.network.allowManagedDomainsOnly": "robota has no managed settings; every file's allowedDomains counts",
		"sandbox.network.allowMachLookup":         "macOS only in Claude Code; robota's sandbox is Linux's",
		"sandbox.network.allowUnixSockets":        "macOS only in Claude Code (ignored on Linux there too); robota does not block Unix sockets",
		"sandbox.network.tlsTerminate":            "robota's proxy does not terminate TLS: it filters by host name",
	}
}}

// SandboxNetwork is what the settings say of the command sandbox's network, with
// Claude Code's meaning (pkg/sandbox's doc).
type SandboxNetwork struct {
	// Restricted: some file sets sandbox.network.allowedDomains (even to []) or a proxy
	// port; commands then reach the network only through the proxy.
	Restricted bool
	// Allowed and Denied merge every file's allowedDomains and deniedDomains (not the
	// higher file's list alone: Claude Code merges them from every settings source).
	// WebFetch(domain:...) rules are added by the caller, which has the rules.
	Allowed, Denied []string
	// HTTPProxyPort and SOCKSProxyPort name the user's own proxies on 127.0.0.1 to use
	// instead of robota's (which then do the filtering); 0: robota's.
	HTTPProxyPort, SOCKSProxyPort int
}

// SandboxNetwork reads sandbox.network from every layer.
func (s *Settings) SandboxNetwork() SandboxNetwork {
	var out SandboxNetwork
	for _, l := range s.layers {
		sb, _ := l.tree["sandbox"].(map[string]any)
		nw, _ := sb["network"].(map[string]any)
		if nw == nil {
			continue
		}
		if list, ok := nw["allowedDomains"]; ok {
			out.Restricted = true
			out.Allowed = appendStrings(out.Allowed, list)
		}
		out.Denied = appendStrings(out.Denied, nw["deniedDomains"])
		for key, dst := range map[string]*int{"httpProxyPort": &out.HTTPProxyPort, "socksProxyPort": &out.SOCKSProxyPort} {
			if n, ok := nw[key].(json.Number); ok {
				if v, err := n.Int64(); err == nil {
					*dst, out.Restricted = int(v), true // a higher file's port wins
				}
			}
		}
	}
	return out
}

func appendStrings(dst []string, v any) []string {
	for _, e := range asSlice(v) {
		if s, ok := e.(string); ok && !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}
