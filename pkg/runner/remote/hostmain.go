package remote

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/pool"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
)

// HostCommand is robota-worker's sub-command that runs a host agent.
const HostCommand = "host"

// HostMain is `robota-worker host`: it returns the exit status (0 after SIGTERM or
// SIGINT once the running jobs were handed back).
func HostMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("robota-worker host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cc ConnConfig
	fs.StringVar(&cc.URLs, "nats", "", "NATS server URLs, comma-separated (nats:// or tls://); required")
	fs.StringVar(&cc.Creds, "creds", "", "NATS credentials file: this host's NAME.creds from the engine's STATE_DIR/nats/hosts (its user names the host), or an nsc user JWT+seed")
	fs.StringVar(&cc.TLSCA, "tls-ca", "", "PEM CA bundle the NATS server's certificate must chain to")
	fs.StringVar(&cc.TLSCert, "tls-cert", "", "PEM client certificate for mutual TLS with NATS")
	fs.StringVar(&cc.TLSKey, "tls-key", "", "PEM private key of --tls-cert")
	name := fs.String("name", "", "this host's name, unique in the cluster (default: the user of a NAME.creds --creds file)")
	labels := fs.String("labels", "", "labels this host offers, k=v,... (os and arch are added)")
	slots := fs.Int("slots", 4, "jobs run at once")
	timeout := fs.Duration("job-timeout", DefaultJobTimeout, "heartbeat timeout: must match the engine's --nats-job-timeout")
	dev := fs.Bool("dev", false, "human-readable console logs instead of JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "robota-worker host: "+format+"\n", a...)
		return 2
	}
	if cc.Creds != "" {
		// A USER:PASSWORD file is one host's: its user is the host's name, the only name
		// the server lets it use. Saying so here beats permission errors later.
		if user, ok := credsUser(cc.Creds); ok {
			switch {
			case *name == "":
				*name = user
			case *name != user:
				return fail("--name %s does not match the credentials file %s, which is host %s's", *name, cc.Creds, user)
			}
		}
	}
	switch {
	case fs.NArg() > 0:
		return fail("unexpected arguments: %v", fs.Args())
	case cc.URLs == "":
		return fail("--nats is required")
	case !wire.ValidHostName(*name):
		return fail("--name is required: 1 to 64 of A-Z, a-z, 0-9, '_' and '-'")
	case *slots <= 0:
		return fail("--slots must be positive")
	}
	lbl, err := ParseLabels(*labels)
	if err != nil {
		return fail("%v", err)
	}
	var log *zap.Logger
	if *dev {
		log, err = zap.NewDevelopment()
	} else {
		log, err = zap.NewProduction()
	}
	if err != nil {
		return fail("logger: %v", err)
	}
	defer func() { _ = log.Sync() }()
	cc.Name, cc.Log = "robota-host "+*name, log
	sig, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// NATS closes the connection for good when the server refuses the credential again
	// on a reconnect (the host's credentials file was removed from the engine): the
	// agent then stops and says so, rather than pulling on a closed connection forever.
	ctx, closed := context.WithCancelCause(sig)
	defer closed(nil)
	nc, err := Connect(cc, append(HostOptions(*name),
		nats.ClosedHandler(func(c *nats.Conn) {
			if err := c.LastError(); err != nil {
				closed(fmt.Errorf("NATS closed the connection at %s: %w", cc.URLs, err))
			}
		}),
		// A refused publish or subscribe (permissions) is a setup error worth a line.
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			log.Warn("NATS refused an operation", zap.Error(err))
		}))...)
	if err != nil {
		fmt.Fprintf(stderr, "robota-worker host: %v\n", err)
		return 1
	}
	defer nc.Close()
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "robota-worker host: find robota-worker itself: %v\n", err)
		return 1
	}
	warm := launcher.NewPool(launcher.PoolConfig{Command: launcher.Command{Path: self}, Ready: 1}, log)
	defer warm.Close()
	workers := pool.New(pool.FromPool(warm))
	defer func() { _ = workers.Close() }()

	agent := NewAgent(AgentConfig{Conn: nc, Name: *name, Labels: lbl, Slots: *slots, JobTimeout: *timeout, Runner: workers, Log: log})
	if err := agent.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "robota-worker host: %v\n", err)
		return 1
	}
	if sig.Err() == nil && ctx.Err() != nil {
		fmt.Fprintf(stderr, "robota-worker host: %v\n", context.Cause(ctx))
		return 1
	}
	_ = nc.FlushTimeout(2 * time.Second)
	fmt.Fprintf(stdout, "robota-worker host %s: stopped\n", *name)
	return 0
}

// ParseLabels parses k=v,... and adds os and arch unless given.
func ParseLabels(s string) (map[string]string, error) {
	out := map[string]string{"os": runtime.GOOS, "arch": runtime.GOARCH}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--labels: %q is not k=v", kv)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}
