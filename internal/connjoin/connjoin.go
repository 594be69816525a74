// Package connjoin joins two connections, for the sandbox's bridges and the network
// proxy: bytes flow both ways until both directions end.
package connjoin

import (
	"io"
	"net"
)

// Join copies a to b and b to a until both copies end; a side that ends half-closes the
// other's write side (when it can), so a reply still flows after a request's end.
// The caller closes the connections.
func Join(a, b net.Conn) {
	done := make(chan struct{}, 2)
	copyTo := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		done <- struct{}{}
	}
	go copyTo(a, b)
	go copyTo(b, a)
	<-done
	<-done
}
