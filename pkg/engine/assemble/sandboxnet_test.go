package assemble

import (
	"reflect"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// The sandbox network's lists are the settings' with the WebFetch(domain:...) rules
// added (Claude Code's meaning); without sandbox.network.allowedDomains (or a proxy
// port) the network is not confined, whatever the WebFetch rules say.
func TestNetworkOf(t *testing.T) {
	var rules []permission.Rule
	for _, r := range []struct {
		b    permission.Behavior
		text string
	}{{permission.Allow, "WebFetch(domain:docs.rs)"}, {permission.Allow, "WebFetch(domain:github.com)"},
		{permission.Deny, "WebFetch(domain:pastebin.com)"}} {
		rule, err := permission.NewRule(r.b, r.text, permission.Source{})
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, rule)
	}
	ev := permission.New(permission.Config{Rules: rules})
	for _, tc := range []struct {
		name string
		in   config.SandboxNetwork
		want *runnerapi.SandboxNetwork
	}{
		{"no allow-list", config.SandboxNetwork{}, nil},
		{"allow-list", config.SandboxNetwork{Restricted: true, Allowed: []string{"github.com", "*.npmjs.org"}, Denied: []string{"x.com"}},
			&runnerapi.SandboxNetwork{Allow: []string{"github.com", "*.npmjs.org", "docs.rs"}, Deny: []string{"x.com", "pastebin.com"}}},
		{"empty allow-list", config.SandboxNetwork{Restricted: true},
			&runnerapi.SandboxNetwork{Allow: []string{"docs.rs", "github.com"}, Deny: []string{"pastebin.com"}}},
		{"own proxy", config.SandboxNetwork{Restricted: true, HTTPProxyPort: 8888},
			&runnerapi.SandboxNetwork{Allow: []string{"docs.rs", "github.com"}, Deny: []string{"pastebin.com"}, HTTPProxyPort: 8888}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := networkOf(tc.in, ev); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("networkOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}
