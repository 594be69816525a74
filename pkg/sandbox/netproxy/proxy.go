package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/internal/connjoin"
)

// Proxy serves the sandbox's proxy protocols on listeners, letting through what Rules
// allows.
type Proxy struct {
	Rules Rules
	// Dial connects to an allowed destination; nil is guardedDial (tests dial fakes).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	once      sync.Once
	transport *http.Transport
}

// dialTimeout bounds a connection to a destination.
const dialTimeout = 30 * time.Second

func (p *Proxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if p.Dial != nil {
		return p.Dial(ctx, network, addr)
	}
	return p.guardedDial(ctx, network, addr)
}

// guardedDial resolves the host itself and dials an address it checked: an allowed name
// that resolves to a loopback, private, link-local or unspecified address is refused
// unless the allow-list names that address, so a name cannot lead a command to robota's
// own or the local network's services.
func (p *Proxy) guardedDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, _ := strconv.Atoi(portStr)
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	var last error = fmt.Errorf("%s: no address", host)
	d := net.Dialer{Timeout: dialTimeout}
	for _, ip := range ips {
		if local(ip) && !p.Rules.allowsLiteral(ip, port) {
			last = fmt.Errorf("%s resolves to the local address %s, which %s does not name", host, ip, allowSetting)
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), portStr))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

func local(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast()
}

// ListenUnix serves the proxy on a Unix socket at path (its directory made private to
// this user); stop closes it.
func (p *Proxy) ListenUnix(path string) (stop func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	go func() { _ = p.Serve(l) }()
	return func() { _ = l.Close(); _ = os.Remove(path) }, nil
}

// Serve accepts connections on l until it is closed.
func (p *Proxy) Serve(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go p.handle(c)
	}
}

// handle serves one client connection: SOCKS5 when it starts with version 5, else HTTP.
func (p *Proxy) handle(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	if first[0] == 5 {
		p.socks(c, br)
		return
	}
	p.httpConn(c, br)
}

// httpConn serves HTTP requests until the client is done: a CONNECT becomes a tunnel, a
// request in absolute form is forwarded.
func (p *Proxy) httpConn(c net.Conn, br *bufio.Reader) {
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if req.Method == http.MethodConnect {
			p.connect(c, br, req)
			return
		}
		if !p.forward(c, req) {
			return
		}
	}
}

func (p *Proxy) connect(c net.Conn, br *bufio.Reader, req *http.Request) {
	host, port, ok := hostPort(req.Host, 443)
	if !ok {
		refuse(c, http.StatusBadRequest, fmt.Sprintf("bad CONNECT target %q", req.Host))
		return
	}
	if ok, why := p.Rules.Decide(host, port); !ok {
		refuse(c, http.StatusForbidden, why)
		return
	}
	up, err := p.dial(req.Context(), "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		refuse(c, http.StatusBadGateway, fmt.Sprintf("cannot reach %s: %v", req.Host, err))
		return
	}
	defer up.Close()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// What the client sent after its CONNECT (a TLS hello) is already buffered.
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	connjoin.Join(c, up)
}

// forward sends one plain request to its destination and its response back; it reports
// whether the client connection may carry another.
func (p *Proxy) forward(c net.Conn, req *http.Request) bool {
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		refuse(c, http.StatusBadRequest, "a proxy request needs an absolute http:// URL (https goes through CONNECT)")
		return false
	}
	host, port, ok := hostPort(req.URL.Host, 80)
	if !ok {
		refuse(c, http.StatusBadRequest, fmt.Sprintf("bad host %q", req.URL.Host))
		return false
	}
	if ok, why := p.Rules.Decide(host, port); !ok {
		refuse(c, http.StatusForbidden, why)
		return !req.Close
	}
	p.once.Do(func() {
		p.transport = &http.Transport{DialContext: p.dial, Proxy: nil, DisableCompression: true,
			MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}
	})
	out := req.Clone(req.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		refuse(c, http.StatusBadGateway, fmt.Sprintf("cannot reach %s: %v", req.URL.Host, err))
		return false
	}
	defer resp.Body.Close()
	resp.Close = req.Close
	if err := resp.Write(c); err != nil {
		return false
	}
	return !req.Close
}

// refuse answers a request the proxy will not carry, naming why.
func refuse(c net.Conn, code int, why string) {
	body := "robota sandbox: " + why + "\n"
	errTag := "robota-sandbox"
	if code == http.StatusForbidden {
		body = "robota sandbox: connection refused: " + why + "\n"
		errTag = "blocked-by-allowlist"
	}
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nX-Proxy-Error: %s\r\nContent-Length: %d\r\n\r\n%s",
		code, http.StatusText(code), errTag, len(body), body)
}

// hostPort splits a request's host[:port], port def when absent.
func hostPort(hp string, def int) (string, int, bool) {
	host, portStr, err := net.SplitHostPort(hp)
	if err != nil {
		if strings.Contains(err.Error(), "missing port") {
			return strings.Trim(hp, "[]"), def, hp != ""
		}
		return "", 0, false
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 || host == "" {
		return "", 0, false
	}
	return host, port, true
}
