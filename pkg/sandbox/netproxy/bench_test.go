package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
)

// The proxy's per-connection cost: a CONNECT through it (over its Unix socket, as the
// sandbox's bridge reaches it) and one byte echoed, against dialing the echo server
// directly. It reports; no timing is asserted.
func BenchmarkConnection(b *testing.B) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	addr := echo.Addr().String()
	roundTrip := func(c net.Conn, r *bufio.Reader) {
		if _, err := c.Write([]byte{'x'}); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadByte(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			roundTrip(c, bufio.NewReader(c))
			c.Close()
		}
	})
	b.Run("proxy", func(b *testing.B) {
		sock := filepath.Join(b.TempDir(), "p.sock")
		stop, err := (&Proxy{Rules: Rules{Allow: []string{"127.0.0.1"}}}).ListenUnix(sock)
		if err != nil {
			b.Fatal(err)
		}
		defer stop()
		for b.Loop() {
			c, err := net.Dial("unix", sock)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr)
			r := bufio.NewReader(c)
			resp, err := http.ReadResponse(r, &http.Request{Method: http.MethodConnect})
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("CONNECT: %v %v", resp, err)
			}
			roundTrip(c, r)
			c.Close()
		}
	})
}
