package client

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// Message size limits, the mirror of pkg/engine/server's: what the server may send
// is what the client must accept.
const (
	maxRecvMessageBytes = 16 << 20
	maxSendMessageBytes = 8 << 20
)

// TLSFiles are the PEM files of a tcp:// connection: the client's certificate and
// key (robota-engine requires one signed by its --tls-client-ca) and the CA bundle
// that signed the engine's certificate.
type TLSFiles struct {
	CertFile, KeyFile, CAFile string
}

func (f TLSFiles) empty() bool { return f.CertFile == "" && f.KeyFile == "" && f.CAFile == "" }

// DialOptions tune Dial.
type DialOptions struct {
	// TLS is required for tcp:// and refused for unix:// (a socket is protected by
	// its file mode, as robota-engine serves it).
	TLS TLSFiles
	// Extra are further grpc.DialOptions (interceptors, a custom dialer in tests).
	Extra []grpc.DialOption
}

// Target is a parsed engine address.
type Target struct {
	Network string // "unix" or "tcp"
	Path    string // the socket path, for unix
	Host    string // host:port, for tcp
}

func (t Target) String() string {
	if t.Network == "unix" {
		return "unix://" + t.Path
	}
	return "tcp://" + t.Host
}

// ParseTarget parses unix:///ABS/PATH, unix:/ABS/PATH or tcp://HOST:PORT.
func ParseTarget(s string) (Target, error) {
	switch {
	case strings.HasPrefix(s, "unix://"), strings.HasPrefix(s, "unix:"):
		path := strings.TrimPrefix(strings.TrimPrefix(s, "unix:"), "//")
		if !filepath.IsAbs(path) {
			return Target{}, fmt.Errorf("%w %q: the socket path must be absolute (unix:///ABS/PATH)", ErrBadTarget, s)
		}
		return Target{Network: "unix", Path: filepath.Clean(path)}, nil
	case strings.HasPrefix(s, "tcp://"):
		hp := strings.TrimPrefix(s, "tcp://")
		if _, port, err := net.SplitHostPort(hp); err != nil || port == "" || strings.Contains(hp, "/") {
			return Target{}, fmt.Errorf("%w %q: want tcp://HOST:PORT", ErrBadTarget, s)
		}
		return Target{Network: "tcp", Host: hp}, nil
	}
	return Target{}, fmt.Errorf("%w %q: want unix:///ABS/PATH or tcp://HOST:PORT", ErrBadTarget, s)
}

// Dial connects to the engine at target. The connection is made lazily: an engine
// that is not there shows as ErrUnavailable on the first call.
func Dial(target string, opts DialOptions) (*Client, error) {
	t, err := ParseTarget(target)
	if err != nil {
		return nil, err
	}
	var creds credentials.TransportCredentials
	var grpcTarget string
	switch t.Network {
	case "unix":
		if !opts.TLS.empty() {
			return nil, fmt.Errorf("%w: %s is a unix socket: TLS files apply to tcp:// only", ErrTLSConfig, t)
		}
		creds, grpcTarget = insecure.NewCredentials(), "unix://"+t.Path
	default:
		conf, err := clientTLS(t, opts.TLS)
		if err != nil {
			return nil, err
		}
		creds, grpcTarget = credentials.NewTLS(conf), "passthrough:///"+t.Host
	}
	dopts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRecvMessageBytes), grpc.MaxCallSendMsgSize(maxSendMessageBytes)),
		// A fixed receive window (the largest message) instead of grpc-go's BDP
		// estimate: no bandwidth probe (a PING and its answer) follows every response.
		grpc.WithInitialWindowSize(maxRecvMessageBytes),
		grpc.WithInitialConnWindowSize(maxRecvMessageBytes),
	}, opts.Extra...)
	conn, err := grpc.NewClient(grpcTarget, dopts...)
	if err != nil {
		return nil, fmt.Errorf("dial engine %s: %w", t, err)
	}
	return &Client{rpc: robotav1.NewEngineServiceClient(conn), conn: conn}, nil
}

// clientTLS builds the mutual-TLS configuration of a tcp:// connection.
func clientTLS(t Target, f TLSFiles) (*tls.Config, error) {
	var missing []string
	for _, x := range []struct{ name, v string }{{"cert", f.CertFile}, {"key", f.KeyFile}, {"CA", f.CAFile}} {
		if x.v == "" {
			missing = append(missing, x.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s needs mutual TLS: missing the client %s file", ErrTLSConfig, t, strings.Join(missing, ", "))
	}
	cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("%w: load key pair (%s, %s): %w", ErrTLSConfig, f.CertFile, f.KeyFile, err)
	}
	pem, err := os.ReadFile(f.CAFile)
	if err != nil {
		return nil, fmt.Errorf("%w: read CA: %w", ErrTLSConfig, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: CA file %s holds no PEM certificate", ErrTLSConfig, f.CAFile)
	}
	host, _, _ := net.SplitHostPort(t.Host)
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS12}, nil
}
