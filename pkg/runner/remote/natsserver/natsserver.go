// Package natsserver runs nats-server with JetStream inside robota-engine
// (`--nats embedded`), for one machine or as the first node of a small setup. It is
// linked into robota-engine only: robota and robota-worker never import it.
//
// Guarantees: the JetStream store lives under the given directory; a listen address
// that is not loopback is refused without TLS (a certificate, its key and a client CA:
// clients must present certificates), so no job crosses a network in plaintext.
package natsserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Config configures the embedded server.
type Config struct {
	// Listen is HOST:PORT (default 127.0.0.1:4222; port 0 picks a free one).
	Listen string
	// StoreDir holds the JetStream store.
	StoreDir string
	// TLSCert, TLSKey and TLSCA enable mutual TLS; required off loopback.
	TLSCert, TLSKey, TLSCA string
	// EnginePassword is the password of the user "engine" (every right); HostPassword
	// the one of the user "host", whose rights are HostPermissions. Both required.
	EnginePassword, HostPassword string
}

// Users of the embedded server.
const (
	EngineUser = "engine"
	HostUser   = "host"
)

// HostPermissions are a host agent's rights: pull from the hosts' consumer and ack its
// messages, claim jobs, report events, call the engine and heartbeat; subscribe only to
// job control subjects and its own inboxes. It cannot read the job stream's subjects
// directly, the engine's subjects (claims, events, calls) or change the stream.
func HostPermissions() *server.Permissions {
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			"robota.claim.*", "robota.ev.*", "robota.chat.*", "robota.tool.*", "robota.hb.*",
			"$JS.API.CONSUMER.INFO.ROBOTA_JOBS.hosts", "$JS.API.CONSUMER.MSG.NEXT.ROBOTA_JOBS.hosts",
			"$JS.ACK.ROBOTA_JOBS.hosts.>",
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{"robota.ctl.*", "_INBOX.>"}},
		// A host answers the engine's "execute this tool" requests on their reply subjects.
		Response: &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute},
	}
}

// ErrPlaintext refuses a non-loopback listener without TLS.
var ErrPlaintext = errors.New("the embedded NATS server listens off loopback only with TLS")

// DefaultListen is --nats-listen's default.
const DefaultListen = "127.0.0.1:4222"

// Start starts the server and waits until it accepts connections.
func Start(cfg Config) (*server.Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	host, portText, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("--nats-listen %q: %w", cfg.Listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("--nats-listen %q: bad port", cfg.Listen)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	tlsOn := cfg.TLSCert != "" || cfg.TLSKey != "" || cfg.TLSCA != ""
	if !tlsOn && !Loopback(host) {
		return nil, fmt.Errorf("%w: --nats-listen %s needs --nats-tls-cert, --nats-tls-key and --nats-tls-ca", ErrPlaintext, cfg.Listen)
	}
	if cfg.EnginePassword == "" || cfg.HostPassword == "" {
		return nil, errors.New("the embedded NATS server needs the engine's and the hosts' passwords")
	}
	if cfg.StoreDir == "" {
		return nil, errors.New("the embedded NATS server needs a state directory for JetStream")
	}
	if err := os.MkdirAll(cfg.StoreDir, 0o700); err != nil {
		return nil, fmt.Errorf("JetStream store: %w", err)
	}
	opts := &server.Options{
		ServerName: "robota-engine", Host: host, Port: port, JetStream: true, StoreDir: cfg.StoreDir,
		NoSigs: true, NoLog: true, MaxPayload: 8 << 20,
		Users: []*server.User{
			{Username: EngineUser, Password: cfg.EnginePassword},
			{Username: HostUser, Password: cfg.HostPassword, Permissions: HostPermissions()},
		},
	}
	if tlsOn {
		if cfg.TLSCert == "" || cfg.TLSKey == "" || cfg.TLSCA == "" {
			return nil, errors.New("the embedded NATS server's TLS needs --nats-tls-cert, --nats-tls-key and --nats-tls-ca")
		}
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey, CaFile: cfg.TLSCA, Verify: true})
		if err != nil {
			return nil, fmt.Errorf("the embedded NATS server's TLS: %w", err)
		}
		opts.TLSConfig, opts.TLS, opts.TLSVerify, opts.TLSTimeout = tc, true, true, 2
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded NATS server on %s did not start", cfg.Listen)
	}
	return ns, nil
}

// Loopback reports whether host names only the local machine.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HostCreds returns the hosts' credentials file under dir (user:password, mode 0600),
// creating it with a fresh password the first time: the file an operator copies to the
// host agents' machines (`robota-worker host --creds FILE`).
func HostCreds(dir string) (path, password string, err error) {
	path = filepath.Join(dir, "host.creds")
	if b, err := os.ReadFile(path); err == nil {
		user, pw, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
		if ok && user == HostUser && pw != "" {
			return path, pw, nil
		}
		return "", "", fmt.Errorf("%s: want %s:PASSWORD", path, HostUser)
	}
	password = RandomPassword()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(path, []byte(HostUser+":"+password+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("write the hosts' credentials: %w", err)
	}
	return path, password, nil
}

// RandomPassword is 128 random bits in hex.
func RandomPassword() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
