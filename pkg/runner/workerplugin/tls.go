package workerplugin

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// errNoEngineCert is returned when the engine handed over a TLS identity but no
// certificate of its own to require of clients.
var errNoEngineCert = errors.New("worker tls: no engine certificate in PLUGIN_CLIENT_CERT")

// TLSProvider returns the go-plugin TLSProvider for a plugin process (a worker, or
// robota's provider process) whose launcher handed it a TLS identity (TLSFDEnv), or
// nil, leaving go-plugin's AutoMTLS in charge, when there is none. The process makes
// no certificate: the engine made one for it, which is what keeps a cold start cheap. It still requires and
// verifies the engine's certificate on every connection.
func TLSProvider() func() (*tls.Config, error) {
	fdText := os.Getenv(TLSFDEnv)
	if fdText == "" {
		return nil
	}
	return func() (*tls.Config, error) {
		// Not for the worker's jobs: the descriptor is closed below.
		_ = os.Unsetenv(TLSFDEnv)
		fd, err := strconv.Atoi(fdText)
		if err != nil || fd < 3 {
			return nil, fmt.Errorf("worker tls: %s=%q is not an inherited descriptor", TLSFDEnv, fdText)
		}
		return serverTLS(os.NewFile(uintptr(fd), "robota-worker-tls"), os.Getenv("PLUGIN_CLIENT_CERT"))
	}
}

// serverTLS reads the worker's certificate and key (PEM) from f, closes it, and
// returns a config that presents them and requires clients to present
// engineCertPEM. The same config dials the engine's go-plugin broker, where the
// engine's certificate is the only root.
func serverTLS(f *os.File, engineCertPEM string) (*tls.Config, error) {
	material, err := io.ReadAll(io.LimitReader(f, 64<<10))
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("worker tls: read identity: %w", err)
	}
	cert, err := tls.X509KeyPair(material, material)
	if err != nil {
		return nil, fmt.Errorf("worker tls: identity: %w", err)
	}
	engine := x509.NewCertPool()
	if engineCertPEM == "" || !engine.AppendCertsFromPEM([]byte(engineCertPEM)) {
		return nil, errNoEngineCert
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    engine,
		RootCAs:      engine,
		MinVersion:   tls.VersionTLS13,
		ServerName:   "localhost",
	}, nil
}
