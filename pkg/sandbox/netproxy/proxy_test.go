package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	xproxy "golang.org/x/net/proxy"
)

func TestDecide(t *testing.T) {
	rules := Rules{
		Allow: []string{"example.com", "*.npmjs.org", "api.github.com:443", "[::1]:8080", "10.0.0.7", "*.corp.test"},
		Deny:  []string{"secret.corp.test", "*:22"},
	}
	for _, tc := range []struct {
		host string
		port int
		ok   bool
		why  string // a part of the refusal
	}{
		{"example.com", 80, true, ""},
		{"EXAMPLE.com.", 443, true, ""},
		{"www.example.com", 443, false, "www.example.com is not in sandbox.network.allowedDomains"},
		{"registry.npmjs.org", 443, true, ""},
		{"a.b.npmjs.org", 443, true, ""},
		{"npmjs.org", 443, false, "not in sandbox.network.allowedDomains"}, // *. is strict subdomains
		{"evilnpmjs.org", 443, false, "not in"},
		{"api.github.com", 443, true, ""},
		{"api.github.com", 80, false, "not in"}, // the entry names port 443
		{"::1", 8080, true, ""},
		{"[::1]", 8081, false, "not in"},
		{"10.0.0.7", 5432, true, ""},
		{"x.corp.test", 443, true, ""},
		{"secret.corp.test", 443, false, `denied by sandbox.network.deniedDomains (or a WebFetch(domain:...) deny rule) entry "secret.corp.test"`},
		{"example.com", 22, false, `entry "*:22"`},
		{"evil.com\x00.example.com", 443, false, "malformed host"},
		{"", 443, false, "malformed host"},
	} {
		t.Run(fmt.Sprintf("%s:%d", tc.host, tc.port), func(t *testing.T) {
			ok, why := rules.Decide(tc.host, tc.port)
			if ok != tc.ok || !strings.Contains(why, tc.why) {
				t.Errorf("Decide(%q, %d) = %v, %q; want %v, containing %q", tc.host, tc.port, ok, why, tc.ok, tc.why)
			}
		})
	}
	// A wildcard never matches an IP literal.
	if ok, _ := (Rules{Allow: []string{"*.0.0.1"}}).Decide("127.0.0.1", 80); ok {
		t.Error("*.0.0.1 allowed 127.0.0.1")
	}
}

// startProxy serves rules on a loopback listener; every destination dials upstream.
func startProxy(t *testing.T, rules Rules, upstream string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Rules: rules, Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, upstream)
	}}
	go func() { _ = p.Serve(l) }()
	t.Cleanup(func() { _ = l.Close() })
	return l.Addr().String()
}

// get fetches http://target/ through the proxy at addr by way (plain, connect, socks)
// and returns the status and body.
func get(t *testing.T, addr, way, target string) (int, string) {
	t.Helper()
	switch way {
	case "plain":
		u, _ := url.Parse("http://" + addr)
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
		resp, err := c.Get("http://" + target + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	case "connect":
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		return request(t, c, br, target)
	case "socks":
		d, err := xproxy.SOCKS5("tcp", addr, nil, xproxy.Direct)
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.Dial("tcp", target)
		if err != nil {
			return http.StatusForbidden, err.Error()
		}
		defer c.Close()
		return request(t, c, bufio.NewReader(c), target)
	}
	t.Fatalf("no way %q", way)
	return 0, ""
}

func request(t *testing.T, c net.Conn, br *bufio.Reader, target string) (int, string) {
	t.Helper()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestProxy(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	defer upstream.Close()
	addr := startProxy(t, Rules{Allow: []string{"allowed.test", "*.wild.test"}, Deny: []string{"no.wild.test"}},
		upstream.Listener.Addr().String())
	for _, tc := range []struct {
		way, target string
		status      int
		body        string
	}{
		{"plain", "allowed.test", 200, "hello from allowed.test"},
		{"plain", "allowed.test:8080", 200, "hello from allowed.test:8080"},
		{"plain", "denied.test", 403, "robota sandbox: connection refused: denied.test is not in sandbox.network.allowedDomains"},
		{"plain", "a.wild.test", 200, "hello from a.wild.test"},
		{"plain", "wild.test", 403, "wild.test is not in sandbox.network.allowedDomains"},
		{"plain", "no.wild.test", 403, "no.wild.test is denied by sandbox.network.deniedDomains"},
		{"connect", "allowed.test:443", 200, "hello from allowed.test:443"},
		{"connect", "denied.test:443", 403, "denied.test is not in sandbox.network.allowedDomains"},
		{"connect", "b.wild.test:443", 200, "hello from b.wild.test:443"},
		{"socks", "allowed.test:80", 200, "hello from allowed.test:80"},
		{"socks", "denied.test:80", 403, "not allowed by ruleset"},
	} {
		t.Run(tc.way+" "+tc.target, func(t *testing.T) {
			status, body := get(t, addr, tc.way, tc.target)
			if status != tc.status || !strings.Contains(body, tc.body) {
				t.Errorf("got %d %q, want %d containing %q", status, body, tc.status, tc.body)
			}
		})
	}
}

// A name the allow-list passes may not resolve to a local address the list does not
// name: the proxy runs outside the sandbox, beside robota's own services.
func TestGuardedDialRefusesLocalAddresses(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	for _, tc := range []struct {
		allow []string
		ok    bool
	}{
		{[]string{"localhost"}, false},
		{[]string{"localhost", "127.0.0.1:" + port}, true},
		{[]string{"localhost", "127.0.0.1"}, true},
	} {
		p := &Proxy{Rules: Rules{Allow: tc.allow}}
		c, err := p.guardedDial(context.Background(), "tcp4", net.JoinHostPort("localhost", port))
		if (err == nil) != tc.ok {
			t.Errorf("allow %q: dial localhost err = %v, want ok %v", tc.allow, err, tc.ok)
		}
		if c != nil {
			c.Close()
		}
	}
}
