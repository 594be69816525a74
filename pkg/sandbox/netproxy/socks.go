package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"

	"github.com/robota-sdk/robota-go/internal/connjoin"
)

// SOCKS5 (RFC 1928) replies the proxy sends.
const (
	socksSucceeded   = 0
	socksNotAllowed  = 2 // connection not allowed by ruleset
	socksUnreachable = 4
	socksBadCommand  = 7
	socksBadAddress  = 8
)

// socks serves one SOCKS5 CONNECT without authentication; the host a client names
// (socks5h) or the address it resolved is decided as an HTTP destination is.
func (p *Proxy) socks(c net.Conn, br *bufio.Reader) {
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	noAuth := false
	for _, m := range methods {
		noAuth = noAuth || m == 0
	}
	if !noAuth {
		_, _ = c.Write([]byte{5, 0xff})
		return
	}
	if _, err := c.Write([]byte{5, 0}); err != nil {
		return
	}
	var req [4]byte // version, command, reserved, address type
	if _, err := io.ReadFull(br, req[:]); err != nil {
		return
	}
	if req[1] != 1 { // CONNECT only
		socksReply(c, socksBadCommand)
		return
	}
	var host string
	switch req[3] {
	case 1, 4:
		ip := make(net.IP, map[byte]int{1: 4, 4: 16}[req[3]])
		if _, err := io.ReadFull(br, ip); err != nil {
			return
		}
		host = ip.String()
	case 3:
		n, err := br.ReadByte()
		if err != nil {
			return
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(br, name); err != nil {
			return
		}
		host = string(name)
	default:
		socksReply(c, socksBadAddress)
		return
	}
	var pb [2]byte
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return
	}
	port := int(binary.BigEndian.Uint16(pb[:]))
	if ok, _ := p.Rules.Decide(host, port); !ok {
		socksReply(c, socksNotAllowed)
		return
	}
	up, err := p.dial(context.Background(), "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		socksReply(c, socksUnreachable)
		return
	}
	defer up.Close()
	if !socksReply(c, socksSucceeded) {
		return
	}
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	connjoin.Join(c, up)
}

// socksReply sends a reply with an empty IPv4 bound address.
func socksReply(c net.Conn, code byte) bool {
	_, err := c.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err == nil
}
