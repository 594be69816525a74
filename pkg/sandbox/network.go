package sandbox

import (
	"slices"
	"strconv"
	"strings"
)

// Network is the network part of a Policy: the command runs in a network namespace of
// its own (only loopback), and the sandbox's first process bridges 127.0.0.1:ProxyPort
// and 127.0.0.1:SocksPort inside it to the Unix socket ProxySocket, where robota's
// filtering proxy (pkg/sandbox/netproxy) listens outside the namespace. The socket is a
// file, reachable from inside by its path as the rest of the filesystem is.
type Network struct {
	ProxySocket string `json:"proxySocket"`
	// SocksSocket, when set, is where SocksPort leads instead (a SOCKS proxy of the
	// user's own, Claude Code's socksProxyPort, beside robota's HTTP one, or the reverse).
	SocksSocket string `json:"socksSocket,omitempty"`
}

// The ports inside the namespace, Claude Code's on Linux: its HTTP proxy on 3128, its
// SOCKS5 proxy on 1080. Both reach the one proxy, which tells the protocols apart.
const (
	ProxyPort = 3128
	SocksPort = 1080
)

// proxyEnv is what a command in a network sandbox is told about the proxy, as Claude
// Code sets it: HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (upper and lower case) name the
// HTTP proxy, which also speaks SOCKS5; FTP and rsync go through SOCKS. NO_PROXY lists
// loopback only: inside the namespace nothing else is reachable directly, so every other
// destination must go through the proxy to be reached at all.
func proxyEnv() []string {
	httpURL := "http://localhost:" + strconv.Itoa(ProxyPort)
	socks := "localhost:" + strconv.Itoa(SocksPort)
	noProxy := "localhost,127.0.0.1,::1"
	return []string{
		"SANDBOX_RUNTIME=1",
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy,
		"HTTP_PROXY=" + httpURL, "HTTPS_PROXY=" + httpURL, "http_proxy=" + httpURL, "https_proxy=" + httpURL,
		"ALL_PROXY=" + httpURL, "all_proxy=" + httpURL,
		"GRPC_PROXY=" + httpURL, "grpc_proxy=" + httpURL,
		"FTP_PROXY=socks5h://" + socks, "ftp_proxy=socks5h://" + socks,
		"RSYNC_PROXY=" + socks,
	}
}

// withProxyEnv is env with proxyEnv in place of any value it had for those names.
func withProxyEnv(env []string) []string {
	add := proxyEnv()
	names := make(map[string]bool, len(add))
	for _, kv := range add {
		names[kv[:strings.IndexByte(kv, '=')]] = true
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return names[name]
	})
	return append(out, add...)
}
