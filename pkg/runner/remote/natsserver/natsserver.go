// Package natsserver runs nats-server with JetStream inside robota-engine
// (`--nats embedded`), for one machine or as the first node of a small setup. It is
// linked into robota-engine only: robota and robota-worker never import it.
//
// Guarantees: the JetStream store lives under the given directory; a listen address
// that is not loopback is refused without TLS (a certificate, its key and a client CA:
// clients must present certificates), so no job crosses a network in plaintext. Every
// party has its own user: the engine one with every right, each host agent one named
// after it whose rights are HostPermissions (its own subjects and inboxes only), with a
// password kept in its own credentials file (HostCreds).
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

	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
)

// Config configures the embedded server.
type Config struct {
	// Listen is HOST:PORT (default 127.0.0.1:4222; port 0 picks a free one).
	Listen string
	// StoreDir holds the JetStream store.
	StoreDir string
	// TLSCert, TLSKey and TLSCA enable mutual TLS; required off loopback.
	TLSCert, TLSKey, TLSCA string
	// EnginePassword is the password of the user "engine" (every right). Required.
	EnginePassword string
	// Hosts maps each host agent's name (its user) to its password; its rights are
	// HostPermissions(name). Empty: no host agent can connect (yet).
	Hosts map[string]string
}

// EngineUser is the engine's user; no host agent may take its name.
const EngineUser = "engine"

// HostPermissions are host agent name's rights (wire.HostPublish, wire.HostSubscribe):
// pull from the hosts' consumer and ack its messages; claim jobs, report events, call
// the engine and heartbeat on its own subjects; subscribe only to its own jobs' control
// subjects and its own inboxes. It cannot read the job stream's subject, the engine's
// subjects or inboxes, another host's subjects or inboxes, or change the stream.
func HostPermissions(name string) *server.Permissions {
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: wire.HostPublish(name)},
		Subscribe: &server.SubjectPermission{Allow: wire.HostSubscribe(name)},
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
	opts, err := options(cfg)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.StoreDir, 0o700); err != nil {
		return nil, fmt.Errorf("JetStream store: %w", err)
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

// Reload applies cfg (the one ns was started with, with other Hosts) to a running
// server: new hosts may connect at once, and a host no longer listed is disconnected
// (the server re-checks every connection on a reload) and refused from then on.
func Reload(ns *server.Server, cfg Config) error {
	opts, err := options(cfg)
	if err != nil {
		return err
	}
	if err := ns.ReloadOptions(opts); err != nil {
		return fmt.Errorf("reload the embedded NATS server's users: %w", err)
	}
	return nil
}

// options are the server's options for cfg.
func options(cfg Config) (*server.Options, error) {
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
	if cfg.EnginePassword == "" {
		return nil, errors.New("the embedded NATS server needs the engine's password")
	}
	users := []*server.User{{Username: EngineUser, Password: cfg.EnginePassword}}
	for name, pw := range cfg.Hosts {
		if !ValidHostName(name) || pw == "" {
			return nil, fmt.Errorf("the embedded NATS server: host %q needs a valid name and a password", name)
		}
		users = append(users, &server.User{Username: name, Password: pw, Permissions: HostPermissions(name)})
	}
	if cfg.StoreDir == "" {
		return nil, errors.New("the embedded NATS server needs a state directory for JetStream")
	}
	opts := &server.Options{
		ServerName: "robota-engine", Host: host, Port: port, JetStream: true, StoreDir: cfg.StoreDir,
		NoSigs: true, NoLog: true, MaxPayload: 8 << 20,
		Users: users,
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
	return opts, nil
}

// Loopback reports whether host names only the local machine.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ValidHostName reports whether name may name a host agent's user: wire.ValidHostName,
// and not the engine's user.
func ValidHostName(name string) bool { return wire.ValidHostName(name) && name != EngineUser }

// HostsDir is where the hosts' credentials files live under the engine's NATS state.
func HostsDir(natsDir string) string { return filepath.Join(natsDir, "hosts") }

// credsExt ends every host credentials file's name.
const credsExt = ".creds"

// HostCreds returns host name's credentials file under dir (NAME:PASSWORD on one line,
// mode 0600), creating it with a fresh password the first time: the file an operator
// copies to that host's machine (`robota-worker host --creds FILE`). Each host has its
// own, so one host's file neither lets it act as another nor survives its removal.
func HostCreds(dir, name string) (path, password string, err error) {
	if !ValidHostName(name) {
		return "", "", fmt.Errorf("host name %q: want 1 to 64 of A-Z, a-z, 0-9, '_' and '-', not %q", name, EngineUser)
	}
	path = filepath.Join(dir, name+credsExt)
	if _, pw, err := readCreds(path); err == nil {
		return path, pw, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", "", err
	}
	password = RandomPassword()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	// O_EXCL: two engines sharing a state directory never hand out two passwords.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", fmt.Errorf("write %s's credentials: %w", name, err)
	}
	_, err = f.WriteString(name + ":" + password + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", fmt.Errorf("write %s's credentials: %w", name, err)
	}
	return path, password, nil
}

// LoadHostCreds reads every NAME.creds file in dir: host name → password. A file whose
// user is not its name, or that others can read, is refused (it was edited by hand or
// copied in loosely: better no host than the wrong one). A missing dir holds none.
func LoadHostCreds(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the hosts' credentials: %w", err)
	}
	out := map[string]string{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), credsExt)
		if !ok || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("the hosts' credentials: %w", err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("%s: readable by others (mode %v); chmod 600 it", path, st.Mode().Perm())
		}
		user, pw, err := readCreds(path)
		if err != nil {
			return nil, err
		}
		if user != name || !ValidHostName(name) {
			return nil, fmt.Errorf("%s: its user is %q, want the file's name %q", path, user, name)
		}
		out[name] = pw
	}
	return out, nil
}

// readCreds reads a USER:PASSWORD file.
func readCreds(path string) (user, password string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	user, password, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
	if !ok || user == "" || password == "" || strings.ContainsAny(password, "\n") {
		return "", "", fmt.Errorf("%s: want USER:PASSWORD on one line", path)
	}
	return user, password, nil
}

// RandomPassword is 128 random bits in hex.
func RandomPassword() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
