package daemon

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/engine/manager"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/remote"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/natsserver"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
)

// Options are robota-engine's command-line options.
type Options struct {
	Config
	Dev         bool
	ShowVersion bool
}

// ParseFlags parses robota-engine's arguments. Errors and -h output go to out.
func ParseFlags(args []string, out io.Writer) (Options, error) {
	fs := flag.NewFlagSet("robota-engine", flag.ContinueOnError)
	fs.SetOutput(out)
	var o Options
	listenFlag := fs.String("listen", "", "address to serve on: unix:///ABS/PATH (default $XDG_RUNTIME_DIR/robota/engine.sock or ~/.robota/engine.sock) or tcp://HOST:PORT (needs mutual TLS: --tls-cert, --tls-key, --tls-client-ca)")
	fs.StringVar(&o.TLSCert, "tls-cert", "", "PEM certificate for TLS (required with tcp://)")
	fs.StringVar(&o.TLSKey, "tls-key", "", "PEM private key for TLS (required with tcp://)")
	fs.StringVar(&o.TLSClientCA, "tls-client-ca", "", "PEM CA bundle; clients must present a certificate it signed (required with tcp://)")
	workerFlag := fs.String("worker", "", "worker binary (default: robota-worker next to this binary, then on PATH)")
	fs.IntVar(&o.Workers, "workers", 1, "worker processes to keep running (0 disables workers)")
	fs.DurationVar(&o.WorkerCheckInterval, "worker-check-interval", time.Second, "how often workers are health-checked")
	fs.DurationVar(&o.ShutdownGrace, "shutdown-grace", 10*time.Second, "how long in-flight RPCs may finish on shutdown")
	fs.StringVar(&o.Sessions.StateDir, "state-dir", "", "where the engine remembers the projects it served, so a restarted engine lists their sessions (default ~/.robota/engine)")
	fs.IntVar(&o.Sessions.MaxLive, "max-sessions", manager.DefaultMaxLive, "live sessions at most; CreateSession past it fails with RESOURCE_EXHAUSTED")
	fs.StringVar(&o.NATS.URLs, "nats", "", "NATS JetStream for workers across hosts: comma-separated nats:// or tls:// URLs of an existing cluster, or 'embedded' to run nats-server inside the engine")
	fs.StringVar(&o.NATS.Creds, "nats-creds", "", "NATS credentials file")
	fs.StringVar(&o.NATS.TLSCA, "nats-tls-ca", "", "PEM CA bundle for NATS TLS (with embedded: the CA host agents' certificates must chain to)")
	fs.StringVar(&o.NATS.TLSCert, "nats-tls-cert", "", "PEM certificate for NATS TLS (client certificate, or with embedded the server's)")
	fs.StringVar(&o.NATS.TLSKey, "nats-tls-key", "", "PEM private key of --nats-tls-cert")
	fs.StringVar(&o.NATS.Listen, "nats-listen", natsserver.DefaultListen, "HOST:PORT the embedded NATS server listens on (TLS required off loopback)")
	hosts := fs.String("nats-hosts", "", "with --nats embedded: host agent names, comma-separated; each gets its own credentials file STATE_DIR/nats/hosts/NAME.creds to copy to that host")
	dispatch := fs.String("dispatch", "", "where subagents and background commands run: local, remote or auto (default local without --nats, auto with it)")
	fs.DurationVar(&o.NATS.JobTimeout, "nats-job-timeout", remote.DefaultJobTimeout, "heartbeat timeout: a remote job whose host stops heartbeating runs again elsewhere after it")
	fs.DurationVar(&o.NATS.QueueTimeout, "nats-queue-timeout", remote.DefaultQueueTimeout, "how long a remote job waits for a host offering its labels before it fails")
	fs.IntVar(&o.Sessions.MaxBackgroundTasks, "max-background-tasks", 0, "subagents and background commands a session runs at once (default 4, or 64 with --nats)")
	fs.BoolVar(&o.Dev, "dev", false, "human-readable console logs instead of JSON")
	fs.BoolVar(&o.ShowVersion, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	var err error
	if *listenFlag == "" {
		o.Listen, err = DefaultAddress()
	} else {
		o.Listen, err = ParseAddress(*listenFlag)
	}
	if err != nil {
		return Options{}, err
	}
	o.Worker = launcher.Command{Path: *workerFlag}
	for _, name := range strings.Split(*hosts, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if !natsserver.ValidHostName(name) {
			return Options{}, fmt.Errorf("--nats-hosts: %q is not a host name (1 to 64 of A-Z, a-z, 0-9, '_' and '-'; not %q)", name, natsserver.EngineUser)
		}
		o.NATS.Hosts = append(o.NATS.Hosts, name)
	}
	if len(o.NATS.Hosts) > 0 && o.NATS.URLs != EmbeddedNATS {
		return Options{}, errors.New("--nats-hosts needs --nats embedded (with your own cluster, its configuration has the users)")
	}
	if *dispatch != "" {
		if o.NATS.Dispatch, err = remote.ParseMode(*dispatch); err != nil {
			return Options{}, err
		}
	}
	if o.NATS.URLs != "" && o.Sessions.MaxBackgroundTasks == 0 {
		o.Sessions.MaxBackgroundTasks = 64
	}
	switch {
	case o.NATS.URLs == "" && (o.NATS.Dispatch == remote.ModeRemote || o.NATS.Dispatch == remote.ModeAuto):
		return Options{}, fmt.Errorf("--dispatch %s needs --nats", o.NATS.Dispatch)
	case o.NATS.JobTimeout <= 0:
		return Options{}, errors.New("--nats-job-timeout must be positive")
	}
	return o, nil
}

// FindWorker resolves the worker binary when --worker was not given: beside the
// running executable first, so a bin/ directory works as a unit, then PATH
// (workerproc.Find, the lookup robota uses too).
func FindWorker() (string, error) { return workerproc.Find("") }

// NewLogger returns a JSON production logger, or a console one with dev.
func NewLogger(dev bool) (*zap.Logger, error) {
	if dev {
		return zap.NewDevelopment()
	}
	return zap.NewProduction()
}
