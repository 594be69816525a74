package daemon

import (
	"flag"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/engine/manager"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
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
