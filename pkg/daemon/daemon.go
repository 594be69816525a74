package daemon

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/oklog/run"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/robota-sdk/robota-go/pkg/engine/manager"
	"github.com/robota-sdk/robota-go/pkg/engine/server"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/pool"
	"github.com/robota-sdk/robota-go/pkg/runner/remote"
)

// Config configures the daemon.
type Config struct {
	Listen Address
	// TLSCert and TLSKey are the server's PEM key pair; TLSClientCA is the PEM
	// CA bundle client certificates must chain to. A TCP listener needs all
	// three (mutual TLS); a unix socket may use none.
	TLSCert, TLSKey, TLSClientCA string
	// Worker is the worker command; an empty Path runs no workers.
	Worker launcher.Command
	// Workers is the worker pool size.
	Workers int
	// WorkerCheckInterval is how often workers are checked (default 1s).
	WorkerCheckInterval time.Duration
	// ShutdownGrace bounds saving the live sessions, then again GracefulStop before
	// Stop cuts streams (default 10s each).
	ShutdownGrace time.Duration
	// Sessions configures the engine's sessions (StateDir: where the engine remembers
	// the projects it served; empty means ~/.robota/engine).
	Sessions manager.Config
	// NATS configures remote dispatch over NATS JetStream (empty URLs: none).
	NATS NATSConfig
	Log  *zap.Logger
	// Listening, if set, is called once the listener is open.
	Listening func(net.Addr)
}

// Run serves until ctx ends or SIGINT/SIGTERM arrives (both return nil), or an
// actor fails (its error is returned).
func Run(ctx context.Context, cfg Config) error {
	log := cfg.Log
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 10 * time.Second
	}
	tlsConf, err := serverTLS(cfg)
	if err != nil {
		return err
	}
	opts := server.ServerOptions()
	mutualTLS := tlsConf != nil && tlsConf.ClientAuth == tls.RequireAndVerifyClientCert
	if tlsConf != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsConf)))
	}
	if cfg.Sessions.StateDir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("engine state directory: %w", err)
		}
		cfg.Sessions.StateDir = filepath.Join(home, ".robota", "engine")
	}
	// NATS first: an unreachable server fails the start before any worker is launched.
	var router *remote.Router
	if cfg.NATS.URLs != "" {
		setup, r, err := startNATS(ctx, cfg.NATS, cfg.Sessions.StateDir, log)
		if err != nil {
			return err
		}
		defer setup.close()
		router = r
	}
	var sup *launcher.Supervisor
	if cfg.Worker.Path != "" && cfg.Workers > 0 {
		sup = launcher.NewSupervisor(launcher.SupervisorConfig{
			Command: cfg.Worker, Workers: cfg.Workers, CheckInterval: cfg.WorkerCheckInterval,
		}, log)
		// Subagents get a worker each from a warm pool (a spawn is one RPC); background
		// commands share the supervised worker, which is replaced when it dies.
		warm := launcher.NewPool(launcher.PoolConfig{Command: cfg.Worker, Ready: 1}, log)
		defer warm.Close()
		workers := pool.NewShared(pool.FromPool(warm), pool.FromSupervisor(sup))
		defer workers.Close()
		cfg.Sessions.Runner = workers
	}
	if router != nil {
		if cfg.Sessions.Runner != nil {
			router.Local = cfg.Sessions.Runner
		}
		cfg.Sessions.Runner = router
	}
	mgr, err := manager.New(cfg.Sessions)
	if err != nil {
		return err
	}
	ln, err := listen(cfg.Listen, mutualTLS)
	if err != nil {
		return err
	}
	srv := grpc.NewServer(opts...)
	healthSrv := health.NewServer()
	healthpb.RegisterHealthServer(srv, healthSrv)
	reflection.Register(srv)
	server.New(mgr).Register(srv)
	healthSrv.SetServingStatus("robota.v1.EngineService", healthpb.HealthCheckResponse_SERVING)

	var g run.Group
	g.Add(run.SignalHandler(ctx, syscall.SIGINT, syscall.SIGTERM))
	g.Add(func() error {
		log.Info("engine listening", zap.Stringer("address", cfg.Listen), zap.Bool("tls", tlsConf != nil),
			zap.Bool("client_certificates", mutualTLS))
		if cfg.Listening != nil {
			cfg.Listening(ln.Addr())
		}
		return srv.Serve(ln)
	}, func(error) {
		healthSrv.Shutdown()
		saveSessions(mgr, cfg.ShutdownGrace, log)
		gracefulStop(srv, cfg.ShutdownGrace, log)
	})
	if sup != nil {
		supCtx, cancel := context.WithCancel(context.Background())
		g.Add(func() error {
			if err := sup.Run(supCtx); !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		}, func(error) { cancel() })
	}
	err = g.Run()
	switch {
	case errors.Is(err, run.ErrSignal):
		log.Info("engine stopped", zap.String("cause", err.Error()))
		return nil
	case errors.Is(err, context.Canceled), err == nil:
		log.Info("engine stopped")
		return nil
	}
	return err
}

// saveSessions closes every live session (a running prompt is aborted, its partial
// answer kept) so each is saved before the engine exits; their Watch streams end.
func saveSessions(mgr *manager.Manager, grace time.Duration, log *zap.Logger) {
	n := mgr.LiveCount()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := mgr.Shutdown(ctx); err != nil {
		log.Error("saving live sessions on shutdown", zap.Error(err))
		return
	}
	log.Info("live sessions saved", zap.Int("sessions", n))
}

// gracefulStop lets in-flight RPCs finish for up to grace, then cuts them.
func gracefulStop(srv *grpc.Server, grace time.Duration, log *zap.Logger) {
	done := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		log.Warn("graceful stop timed out; closing remaining streams", zap.Duration("grace", grace))
		srv.Stop()
		<-done
	}
}
