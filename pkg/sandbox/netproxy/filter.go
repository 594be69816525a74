// Package netproxy is the filtering proxy of the command sandbox's network allow-list
// (Claude Code's sandbox.network.allowedDomains): sandboxed commands, in a network
// namespace of their own, reach the outside only through it. One listener serves HTTP
// (CONNECT tunnels and plain requests in absolute form) and SOCKS5 (CONNECT), told
// apart by the first byte, as Claude Code's proxy does. A destination passes when an
// allow entry matches it and no deny entry does; every other is refused: HTTP with a 403
// naming the host and the setting, SOCKS5 with "connection not allowed by ruleset".
package netproxy

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Rules are the allow-list and the deny-list, in Claude Code's syntax: "example.com"
// matches that host only, "*.example.com" every host below it (not example.com itself),
// and a ":port" suffix ("example.com:443", "[::1]:8080") limits an entry to that port.
// Deny entries win over allow entries; a bare "*" denies everything.
type Rules struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// The settings that name the lists, for refusals to point at.
const (
	allowSetting = "sandbox.network.allowedDomains (or a WebFetch(domain:...) allow rule)"
	denySetting  = "sandbox.network.deniedDomains (or a WebFetch(domain:...) deny rule)"
)

// Decide says whether host:port may be reached, and why not.
func (r Rules) Decide(host string, port int) (bool, string) {
	h, ok := canonicalHost(host)
	if !ok {
		return false, fmt.Sprintf("malformed host %q", host)
	}
	for _, e := range r.Deny {
		if matches(e, h, port) {
			return false, fmt.Sprintf("%s is denied by %s entry %q", h, denySetting, e)
		}
	}
	for _, e := range r.Allow {
		if matches(e, h, port) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("%s is not in %s", h, allowSetting)
}

// allowsLiteral reports whether an allow entry names the IP address ip itself (with
// port, if the entry has one): only then may a name resolve to a loopback or private
// address (see guardedDial).
func (r Rules) allowsLiteral(ip net.IP, port int) bool {
	for _, e := range r.Allow {
		host, p := splitPort(e)
		if a := net.ParseIP(host); a != nil && a.Equal(ip) && (p == 0 || p == port) {
			return true
		}
	}
	return false
}

// matches reports whether entry matches the canonical host h at port.
func matches(entry, h string, port int) bool {
	pattern, p := splitPort(strings.TrimSpace(entry))
	if p != 0 && p != port {
		return false
	}
	pattern = strings.TrimSuffix(strings.ToLower(pattern), ".")
	switch {
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		// A wildcard never matches an IP literal: "*.1.2.3" must not pass 4.1.2.3.
		return net.ParseIP(h) == nil && strings.HasSuffix(h, pattern[1:])
	}
	if a := net.ParseIP(pattern); a != nil {
		b := net.ParseIP(h)
		return b != nil && a.Equal(b)
	}
	return h == pattern
}

// splitPort splits an entry's ":port" suffix (0: none). IPv6 literals are bracketed
// when they carry a port; an unbracketed string with two colons is an address whole.
func splitPort(e string) (string, int) {
	if strings.HasPrefix(e, "[") {
		end := strings.Index(e, "]")
		if end < 0 {
			return e, 0
		}
		host, rest := e[1:end], e[end+1:]
		if p, ok := strings.CutPrefix(rest, ":"); ok {
			if n, err := strconv.Atoi(p); err == nil && n > 0 && n < 65536 {
				return host, n
			}
		}
		return host, 0
	}
	i := strings.LastIndex(e, ":")
	if i < 0 || strings.Count(e, ":") > 1 {
		return e, 0
	}
	n, err := strconv.Atoi(e[i+1:])
	if err != nil || n <= 0 || n > 65535 {
		return e, 0
	}
	return e[:i], n
}

// canonicalHost lowercases host, drops a trailing dot and IPv6 brackets, and refuses
// what is no host name or address (control characters, spaces, slashes: a name the
// resolver would read differently from the matcher).
func canonicalHost(host string) (string, bool) {
	h := strings.TrimSuffix(strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")), ".")
	if h == "" || len(h) > 253 {
		return "", false
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), true
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", false
		}
	}
	return h, true
}
