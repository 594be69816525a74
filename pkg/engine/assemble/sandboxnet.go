package assemble

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

// policyNow is the policy a command starting now runs with: the paths as they are
// (current) and, with an allow-list, the network through the session's proxy.
func (c *commandSandbox) policyNow() (sandbox.Policy, error) {
	p := c.current()
	n, err := c.startNetwork()
	if err != nil {
		return sandbox.Policy{}, err
	}
	p.Network = n
	return p, nil
}

// startNetwork starts, once, the proxy the commands' network goes through with an
// allow-list (nil without one). A proxy that cannot start fails every command rather
// than let one run with the network open.
func (c *commandSandbox) startNetwork() (*sandbox.Network, error) {
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
		c.netPolicy = &sandbox.Network{ProxySocket: served.HTTPSocket}
		if served.SOCKSSocket != served.HTTPSocket {
			c.netPolicy.SocksSocket = served.SOCKSSocket
		}
	})
	return c.netPolicy, c.netErr
}
