package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
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
	server    *server.Server
	conn      *nats.Conn
	disp      *remote.Dispatcher
	stopWatch func()
}

func (s *natsSetup) close() {
	if s.stopWatch != nil {
		s.stopWatch()
	}
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
		scfg := natsserver.Config{Listen: cfg.Listen, StoreDir: filepath.Join(dir, "jetstream"),
			TLSCert: cfg.TLSCert, TLSKey: cfg.TLSKey, TLSCA: cfg.TLSCA, EnginePassword: enginePW, Hosts: hosts}
		ns, err := natsserver.Start(scfg)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNATS, err)
		}
		s.server = ns
		s.stopWatch = watchHostCreds(ns, scfg, hostsDir, hostCredsPoll, log)
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

// hostCredsPoll is how often the embedded server's hosts' credentials files are read.
const hostCredsPoll = 2 * time.Second

// watchHostCreds rereads dir's NAME.creds files every interval and, when they changed,
// reloads the embedded server's users: a file an operator added (NAME:PASSWORD, mode
// 0600) lets that host connect without restarting the engine, and a file removed
// disconnects its host and refuses it from then on. A directory that does not read
// cleanly leaves the users as they were (logged). The returned func stops watching.
func watchHostCreds(ns *server.Server, cfg natsserver.Config, dir string, interval time.Duration, log *zap.Logger) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		current := cfg.Hosts
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			hosts, err := natsserver.LoadHostCreds(dir)
			if err != nil {
				log.Warn("the hosts' credentials did not read; their users stay as they were", zap.Error(err))
				continue
			}
			added, removed := diffHosts(current, hosts)
			if len(added) == 0 && len(removed) == 0 {
				continue
			}
			cfg.Hosts = hosts
			if err := natsserver.Reload(ns, cfg); err != nil {
				log.Warn("could not apply the hosts' changed credentials", zap.Error(err))
				continue
			}
			current = hosts
			log.Info("host credentials changed", zap.Strings("added", added), zap.Strings("removed", removed))
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// diffHosts lists the hosts of b that a lacks or whose password changed (added) and
// those of a that b lacks (removed), sorted.
func diffHosts(a, b map[string]string) (added, removed []string) {
	for name, pw := range b {
		if old, ok := a[name]; !ok || old != pw {
			added = append(added, name)
		}
	}
	for name := range a {
		if _, ok := b[name]; !ok {
			removed = append(removed, name)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}
