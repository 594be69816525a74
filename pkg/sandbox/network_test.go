//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/sandbox/netproxy"
)

// withProxyEnv puts Claude Code's proxy variables in place of the caller's.
func TestWithProxyEnv(t *testing.T) {
	got := withProxyEnv([]string{"PATH=/bin", "HTTPS_PROXY=http://corp:8080", "https_proxy=x", "HOME=/h"})
	want := map[string]string{"PATH": "/bin", "HOME": "/h", "HTTP_PROXY": "http://localhost:3128",
		"HTTPS_PROXY": "http://localhost:3128", "http_proxy": "http://localhost:3128", "https_proxy": "http://localhost:3128",
		"ALL_PROXY": "http://localhost:3128", "all_proxy": "http://localhost:3128", "NO_PROXY": "localhost,127.0.0.1,::1",
		"FTP_PROXY": "socks5h://localhost:1080"}
	seen := map[string]int{}
	for _, kv := range got {
		k, v, _ := strings.Cut(kv, "=")
		seen[k]++
		if w, ok := want[k]; ok && w != v {
			t.Errorf("%s = %q, want %q", k, v, w)
		}
	}
	for k := range want {
		if seen[k] != 1 {
			t.Errorf("%s set %d times, want once", k, seen[k])
		}
	}
}

// With a network allow-list, real commands in the sandbox reach an allowed host through
// the proxy (plain HTTP, CONNECT, SOCKS5), are refused a denied one with the proxy's
// 403, and cannot connect to anything directly: the namespace has only loopback. Both
// ways a command runs: a sandbox per command and the session's server.
func TestNetworkAllowList(t *testing.T) {
	if ok, why := Available(); !ok {
		t.Skipf("no sandbox on this kernel: %s", why)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl to make requests with")
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	defer upstream.Close()
	_, port, _ := net.SplitHostPort(upstream.Listener.Addr().String())
	// The proxy resolves every allowed name to the loopback test server (the real
	// dialer refuses local addresses a name resolves to; netproxy tests that).
	proxy := &netproxy.Proxy{Rules: netproxy.Rules{Allow: []string{"allowed.test", "*.wild.test"}},
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, upstream.Listener.Addr().String())
		}}
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	stop, err := proxy.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	p := Policy{Network: &Network{ProxySocket: sock}}
	dir := t.TempDir()
	cases := []struct {
		name, script, want string
	}{
		{"plain allowed", "curl -sS http://allowed.test/", "hello from allowed.test"},
		{"connect allowed", "curl -sS -p http://allowed.test/", "hello from allowed.test"},
		{"socks allowed", "curl -sS --noproxy '' --socks5-hostname localhost:1080 http://x.wild.test/", "hello from x.wild.test"},
		{"all_proxy", "env -u http_proxy -u HTTP_PROXY curl -sS http://y.wild.test/", "hello from y.wild.test"},
		{"plain denied", "curl -sS http://denied.test/",
			"robota sandbox: connection refused: denied.test is not in sandbox.network.allowedDomains"},
		{"connect denied", "curl -sS -p http://denied.test/ 2>&1; echo rc=$?", "403"},
		{"socks denied", "curl -sS --noproxy '' --socks5-hostname localhost:1080 http://denied.test/ 2>&1; echo rc=$?", "rc=97"},
		{"direct loopback", "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo CONNECTED || echo REFUSED", "REFUSED"},
		{"direct outside", "exec 3<>/dev/tcp/192.0.2.1/80 && echo CONNECTED || echo REFUSED", "REFUSED"},
		{"only loopback", "cat /proc/net/dev | awk 'NR>2{print $1}' | tr -d '\\n'", "lo:"},
	}
	run := func(t *testing.T, runner func(script string) string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				out := runner(tc.script)
				if !strings.Contains(out, tc.want) || strings.Contains(out, "CONNECTED") {
					t.Errorf("%s:\n%s\nwant %q", tc.script, out, tc.want)
				}
			})
		}
	}
	t.Run("command", func(t *testing.T) {
		run(t, func(script string) string { out, _ := runIn(t, p, dir, script); return out })
		// The first process stays to run the bridges; the command's exit code is still
		// the sandbox's.
		if _, code := runIn(t, p, dir, "exit 7"); code != 7 {
			t.Errorf("exit code %d, want 7", code)
		}
	})
	t.Run("server", func(t *testing.T) {
		s := NewServer(p)
		defer s.Close()
		run(t, func(script string) string { out, _ := runInServer(t, s, dir, script); return out })
	})
	// Without a network policy the sandbox shares robota's network: the test server is
	// reached directly.
	out, _ := runIn(t, Policy{}, dir, "exec 3<>/dev/tcp/127.0.0.1/"+port+" && echo CONNECTED || echo REFUSED")
	if !strings.Contains(out, "CONNECTED") {
		t.Errorf("without a network policy, a direct connection failed:\n%s", out)
	}
}
