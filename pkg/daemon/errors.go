package daemon

import "errors"

var (
	// ErrTLSRequired refuses a TCP listener without mutual TLS: the engine
	// runs tools with the user's rights, so anyone who can reach the port must
	// prove who they are with a certificate the user's CA signed.
	ErrTLSRequired = errors.New("tcp listener requires TLS with client certificates (--tls-cert, --tls-key and --tls-client-ca)")
	// ErrSocketDirNotPrivate refuses a socket directory someone else could
	// write to (and so replace the socket, or plant one the client trusts).
	ErrSocketDirNotPrivate = errors.New("socket directory is not private")
)
