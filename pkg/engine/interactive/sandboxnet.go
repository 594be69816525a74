package interactive

import (
	"fmt"
	"slices"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
	"github.com/robota-sdk/robota-go/pkg/sandbox/netproxy"
)

// networkOf is the allow-list the settings confine commands' network to, nil when they
// name none: Claude Code's sandbox.network.allowedDomains and deniedDomains, with the
// hosts of the WebFetch(domain:...) allow and deny rules added, as Claude Code adds them.
func networkOf(n config.SandboxNetwork, ev *permission.Evaluator) *runnerapi.SandboxNetwork {
	if !n.Restricted {
		return nil
	}
	allow, deny := ev.WebFetchDomains()
	return &runnerapi.SandboxNetwork{
		Allow: dedupe(append(slices.Clone(n.Allowed), allow...)), Deny: dedupe(append(slices.Clone(n.Denied), deny...)),
		HTTPProxyPort: n.HTTPProxyPort, SOCKSProxyPort: n.SOCKSProxyPort,
	}
}

func dedupe(s []string) []string {
	var out []string
	for _, e := range s {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// prepare makes the session's policy once: its paths, and with an allow-list, the
// proxy its commands' network goes through. A proxy that cannot start fails every
// command rather than let one run with the network open.
func (c *commandSandbox) prepare() error {
	c.once.Do(func() { c.policy = c.build() })
	c.netOnce.Do(func() {
		if c.network == nil {
			return
		}
		served, err := netproxy.Start(netproxy.Rules{Allow: c.network.Allow, Deny: c.network.Deny},
			c.network.HTTPProxyPort, c.network.SOCKSProxyPort)
		if err != nil {
			c.netErr = fmt.Errorf("the sandbox network's proxy: %w", err)
			return
		}
		c.served = served
		c.policy.Network = &sandbox.Network{ProxySocket: served.HTTPSocket}
		if served.SOCKSSocket != served.HTTPSocket {
			c.policy.Network.SocksSocket = served.SOCKSSocket
		}
	})
	return c.netErr
}
