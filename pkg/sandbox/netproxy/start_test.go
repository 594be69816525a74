package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// Start serves robota's filter on one socket for both protocols, unless a settings port
// names the user's own proxy: that socket is then joined to it as it is.
func TestStart(t *testing.T) {
	own, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	go func() {
		for {
			c, err := own.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = http.ReadRequest(bufio.NewReader(c))
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nown proxy")
			}()
		}
	}()
	ownPort := own.Addr().(*net.TCPAddr).Port
	connect := func(t *testing.T, socket string) string {
		c, err := net.Dial("unix", socket)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprint(c, "CONNECT denied.test:443 HTTP/1.1\r\nHost: denied.test:443\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, b)
	}
	for _, tc := range []struct {
		name              string
		httpPort, socks   int
		wantHTTP, wantSOC string
	}{
		{"robota's", 0, 0, "403 robota sandbox", "403 robota sandbox"},
		{"own http proxy", ownPort, 0, "200 own proxy", "403 robota sandbox"},
		{"own socks proxy", 0, ownPort, "403 robota sandbox", "200 own proxy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(Rules{Allow: []string{"allowed.test"}}, tc.httpPort, tc.socks)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop()
			if tc.httpPort == 0 && tc.socks == 0 && s.SOCKSSocket != s.HTTPSocket {
				t.Errorf("robota's proxy serves both protocols on one socket, got %s and %s", s.HTTPSocket, s.SOCKSSocket)
			}
			if got := connect(t, s.HTTPSocket); !strings.HasPrefix(got, tc.wantHTTP) {
				t.Errorf("http socket: %q, want %q", got, tc.wantHTTP)
			}
			if got := connect(t, s.SOCKSSocket); !strings.HasPrefix(got, tc.wantSOC) {
				t.Errorf("socks socket: %q, want %q", got, tc.wantSOC)
			}
		})
	}
}
