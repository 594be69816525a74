package remote

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"
)

// ConnConfig says how to reach NATS: comma-separated nats:// or tls:// URLs, a
// credentials file (JWT + nkey seed, `nsc` style) and the TLS files for mutual TLS.
type ConnConfig struct {
	URLs                   string
	Creds                  string
	TLSCA, TLSCert, TLSKey string
	// Name is the client name the server shows.
	Name string
	Log  *zap.Logger
	// OnDisconnect and OnReconnect, if set, are told when the connection is lost and
	// back.
	OnDisconnect func(error)
	OnReconnect  func()
}

// ErrRefused is returned when the server refused the credentials.
var ErrRefused = errors.New("NATS refused the credentials")

// Connect dials NATS. It fails within a few seconds when no server answers (the error
// names the URLs) and reconnects forever once connected.
func Connect(cfg ConnConfig, extra ...nats.Option) (*nats.Conn, error) {
	log := cfg.Log
	if log == nil {
		log = zap.NewNop()
	}
	opts := []nats.Option{
		nats.Name(cfg.Name), nats.Timeout(3 * time.Second), nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond), nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.PingInterval(2 * time.Second), nats.MaxPingsOutstanding(2),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err == nil { // our own Close
				return
			}
			log.Warn("lost the connection to NATS", zap.String("urls", cfg.URLs), zap.Error(err))
			if cfg.OnDisconnect != nil {
				cfg.OnDisconnect(err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) {
			log.Info("reconnected to NATS", zap.String("urls", cfg.URLs))
			if cfg.OnReconnect != nil {
				cfg.OnReconnect()
			}
		}),
	}
	if cfg.Creds != "" {
		o, err := credsOption(cfg.Creds)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if cfg.TLSCA != "" {
		opts = append(opts, nats.RootCAs(cfg.TLSCA))
	}
	if cfg.TLSCert != "" || cfg.TLSKey != "" {
		if cfg.TLSCert == "" || cfg.TLSKey == "" {
			return nil, errors.New("NATS client TLS needs both a certificate and a key")
		}
		opts = append(opts, nats.ClientCert(cfg.TLSCert, cfg.TLSKey))
	}
	opts = append(opts, extra...)
	nc, err := nats.Connect(cfg.URLs, opts...)
	if err != nil {
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization") ||
			strings.Contains(strings.ToLower(err.Error()), "authentication") {
			return nil, fmt.Errorf("%w at %s: %v", ErrRefused, cfg.URLs, err)
		}
		return nil, fmt.Errorf("cannot reach NATS at %s: %w", cfg.URLs, err)
	}
	return nc, nil
}

// credsUser returns the user of a USER:PASSWORD credentials file (ok false for any
// other file, which credsOption judges).
func credsUser(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	text := strings.TrimSpace(string(b))
	user, pw, ok := strings.Cut(text, ":")
	if !ok || user == "" || pw == "" || strings.Contains(text, "\n") || strings.Contains(text, "BEGIN NATS") {
		return "", false
	}
	return user, true
}

// credsOption reads a credentials file: a NATS user JWT with its nkey seed (what `nsc`
// writes for an operator-mode cluster), or USER:PASSWORD on one line (what the engine's
// embedded server writes for each host, hosts/NAME.creds).
func credsOption(path string) (nats.Option, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("NATS credentials: %w", err)
	}
	text := strings.TrimSpace(string(b))
	if strings.Contains(text, "BEGIN NATS USER JWT") {
		return nats.UserCredentials(path), nil
	}
	user, pw, ok := strings.Cut(text, ":")
	if !ok || user == "" || pw == "" || strings.ContainsAny(text, "\n") {
		return nil, fmt.Errorf("NATS credentials %s: want a NATS user JWT and seed, or USER:PASSWORD on one line", path)
	}
	return nats.UserInfo(user, pw), nil
}
