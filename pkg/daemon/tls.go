package daemon

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
)

// serverTLS builds the listener's TLS configuration, or returns nil when none
// is configured (allowed on a unix socket only). With --tls-client-ca every
// client must present a certificate that chains to it.
func serverTLS(cfg Config) (*tls.Config, error) {
	var missing []string
	for _, f := range []struct{ flag, value string }{
		{"--tls-cert", cfg.TLSCert}, {"--tls-key", cfg.TLSKey}, {"--tls-client-ca", cfg.TLSClientCA},
	} {
		if f.value == "" {
			missing = append(missing, f.flag)
		}
	}
	switch {
	case cfg.Listen.Network == "tcp" && len(missing) > 0:
		return nil, fmt.Errorf("listen %s: %w: missing %s", cfg.Listen, ErrTLSRequired, strings.Join(missing, ", "))
	case len(missing) == 3:
		return nil, nil
	case cfg.TLSCert == "" || cfg.TLSKey == "":
		return nil, errors.New("TLS needs both --tls-cert and --tls-key")
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("load TLS key pair (%s, %s): %w", cfg.TLSCert, cfg.TLSKey, err)
	}
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if cfg.TLSClientCA != "" {
		pem, err := os.ReadFile(cfg.TLSClientCA)
		if err != nil {
			return nil, fmt.Errorf("read --tls-client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-client-ca %s holds no PEM certificate", cfg.TLSClientCA)
		}
		conf.ClientCAs, conf.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return conf, nil
}
