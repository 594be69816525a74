package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/remote"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/natsserver"
)

// ErrNATS wraps every failure to set up NATS at start: Main prints it as one line.
var ErrNATS = errors.New("nats")

// EmbeddedNATS is --nats's value that runs nats-server inside the engine.
const EmbeddedNATS = "embedded"

// NATSConfig is the engine's NATS setup (DESIGN.md, "Across hosts").
type NATSConfig struct {
	// URLs is --nats: comma-separated server URLs, or EmbeddedNATS; empty: no NATS.
	URLs                   string
	Creds                  string
	TLSCA, TLSCert, TLSKey string
	// Listen is --nats-listen, for EmbeddedNATS.
	Listen string
	// Hosts is --nats-hosts, for EmbeddedNATS: the host agents to make credentials for
	// (STATE_DIR/nats/hosts/NAME.creds, kept across restarts). Hosts made earlier keep
	// theirs; removing a file revokes that host at the next start.
	Hosts []string
	// Dispatch is --dispatch (default local without NATS, auto with it).
	Dispatch remote.Mode
	// JobTimeout is the heartbeat timeout (--nats-job-timeout).
	JobTimeout time.Duration
	// QueueTimeout bounds a job's wait for a host that offers its labels.
	QueueTimeout time.Duration
	// ListeningNATS, if set, is told the embedded server's client URL.
	ListeningNATS func(url string)
}

// natsSetup is what startNATS made; close undoes it.
type natsSetup struct {
	server *server.Server
	conn   *nats.Conn
	disp   *remote.Dispatcher
}

func (s *natsSetup) close() {
	if s.disp != nil {
		s.disp.Close()
	}
	if s.conn != nil {
		s.conn.Close()
	}
	if s.server != nil {
		s.server.Shutdown()
		s.server.WaitForShutdown()
	}
}

// startNATS connects to (or runs) NATS and returns the engine's runner: a Router over
// the remote dispatcher, whose Local the caller sets when it has workers.
func startNATS(ctx context.Context, cfg NATSConfig, stateDir string, log *zap.Logger) (*natsSetup, *remote.Router, error) {
	s := &natsSetup{}
	cc := remote.ConnConfig{URLs: cfg.URLs, Creds: cfg.Creds, TLSCA: cfg.TLSCA, TLSCert: cfg.TLSCert, TLSKey: cfg.TLSKey,
		Name: "robota-engine", Log: log}
	var extra []nats.Option
	if cfg.URLs == EmbeddedNATS {
		dir := filepath.Join(stateDir, "nats")
		hostsDir := natsserver.HostsDir(dir)
		for _, name := range cfg.Hosts {
			if _, _, err := natsserver.HostCreds(hostsDir, name); err != nil {
				return nil, nil, fmt.Errorf("%w: --nats-hosts: %v", ErrNATS, err)
			}
		}
		hosts, err := natsserver.LoadHostCreds(hostsDir)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNATS, err)
		}
		creds := make(map[string]string, len(hosts))
		for name := range hosts {
			creds[name] = filepath.Join(hostsDir, name+".creds")
		}
		// The engine's password lives only in this process: its connection is in-process.
		enginePW := natsserver.RandomPassword()
		ns, err := natsserver.Start(natsserver.Config{Listen: cfg.Listen, StoreDir: filepath.Join(dir, "jetstream"),
			TLSCert: cfg.TLSCert, TLSKey: cfg.TLSKey, TLSCA: cfg.TLSCA, EnginePassword: enginePW, Hosts: hosts})
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNATS, err)
		}
		s.server = ns
		// The engine's own connection is in-process: no socket, so no TLS (the server
		// does not require it there); a tls:// URL would make the client try a handshake.
		cc = remote.ConnConfig{URLs: "nats://" + ns.Addr().String(), Name: "robota-engine", Log: log}
		extra = append(extra, nats.InProcessServer(ns), nats.UserInfo(natsserver.EngineUser, enginePW))
		log.Info("embedded NATS server listening", zap.String("url", ns.ClientURL()), zap.String("store", dir),
			zap.String("host_creds_dir", hostsDir), zap.Any("host_creds", creds))
		if len(hosts) == 0 {
			log.Warn("no host agent can connect to the embedded NATS server: name them with --nats-hosts", zap.String("host_creds_dir", hostsDir))
		}
		if cfg.ListeningNATS != nil {
			cfg.ListeningNATS(ns.ClientURL())
		}
	}
	var disp *remote.Dispatcher
	cc.OnDisconnect = func(err error) {
		if disp != nil {
			disp.Disconnected(err)
		}
	}
	nc, err := remote.Connect(cc, extra...)
	if err != nil {
		s.close()
		return nil, nil, fmt.Errorf("%w: %v", ErrNATS, err)
	}
	s.conn = nc
	mode := cfg.Dispatch
	if mode == "" {
		mode = remote.ModeAuto
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	disp, err = remote.NewDispatcher(sctx, remote.DispatcherConfig{Conn: nc, JobTimeout: cfg.JobTimeout,
		QueueTimeout: cfg.QueueTimeout, FailOnDisconnect: mode == remote.ModeRemote, Log: log})
	if err != nil {
		s.close()
		return nil, nil, fmt.Errorf("%w: JetStream at %s: %v", ErrNATS, cc.URLs, err)
	}
	s.disp = disp
	log.Info("remote dispatch over NATS JetStream", zap.String("nats", cfg.URLs), zap.String("dispatch", string(mode)),
		zap.Duration("job_timeout", cfg.JobTimeout))
	return s, &remote.Router{Remote: disp, Mode: mode}, nil
}
