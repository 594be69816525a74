package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
	"github.com/robota-sdk/robota-go/pkg/sandbox/netproxy"
)

// isolateFor runs a job's commands in its command sandbox (nil: as they are). The engine
// asked for the sandbox, so a worker that cannot make one refuses the command rather
// than run it unconfined; with a network allow-list, likewise when its proxy cannot
// start. The paths are looked at as each command starts: one that an earlier command of
// the job made (git init's hooks) is covered from the next command on.
//
// A command's call may carry its own policy (runnerapi.SandboxFrom): the engine walks
// its rules again for each command it lets run, so a denied file an earlier command
// brought in is hidden from the next. Without one (an engine that sends none, a process
// job) the job's policy, made as it started, holds.
func isolateFor(sb *runnerapi.Sandbox) func(ctx context.Context, shell string, argv []string, dir string, env []string, command string) (*exec.Cmd, error) {
	if sb == nil {
		return nil
	}
	return func(ctx context.Context, shell string, argv []string, dir string, env []string, command string) (*exec.Cmd, error) {
		use := sb
		if now, ok := runnerapi.SandboxFrom(ctx); ok {
			use = now
		}
		if sandbox.Excluded(use.ExcludedCommands, command) {
			return nil, nil
		}
		p := sandbox.Policy{Hide: use.Hide, ReadOnly: use.ReadOnly}.Abs()
		if use.Network != nil {
			n, err := networkProxy(use.Network)
			if err != nil {
				return nil, fmt.Errorf("the session confines commands' network to an allow-list, whose proxy this worker cannot start: %w", err)
			}
			p.Network = n
		}
		cmd, err := p.Command(shell, argv, dir, env)
		if err != nil {
			return nil, fmt.Errorf("the session runs commands in the command sandbox, which this worker cannot make: %w", err)
		}
		return cmd, nil
	}
}

// proxies are the network proxies this worker runs, one per allow-list its jobs carry
// (a session's jobs carry the same one), kept for the life of the process: a job's
// command may outlive the job's tool call, never the worker. The map is made by the
// first proxy, not in a package init (issue 29).
var (
	proxiesMu sync.Mutex
	proxies   map[string]*sandbox.Network
)

func networkProxy(n *runnerapi.SandboxNetwork) (*sandbox.Network, error) {
	key, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	proxiesMu.Lock()
	defer proxiesMu.Unlock()
	if nw, ok := proxies[string(key)]; ok {
		return nw, nil
	}
	served, err := netproxy.Start(netproxy.Rules{Allow: n.Allow, Deny: n.Deny}, n.HTTPProxyPort, n.SOCKSProxyPort)
	if err != nil {
		return nil, err
	}
	nw := &sandbox.Network{ProxySocket: served.HTTPSocket}
	if served.SOCKSSocket != served.HTTPSocket {
		nw.SocksSocket = served.SOCKSSocket
	}
	if proxies == nil {
		proxies = map[string]*sandbox.Network{}
	}
	proxies[string(key)] = nw
	return nw, nil
}
