package daemon

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/oklog/run"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/robota-sdk/robota-go/pkg/engine/server"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// Config configures the daemon.
type Config struct {
	Listen Address
	// TLSCert and TLSKey are PEM files; both are required for a TCP listener.
	TLSCert, TLSKey string
	// Worker is the worker command; an empty Path runs no workers.
	Worker launcher.Command
	// Workers is the worker pool size.
	Workers int
	// WorkerCheckInterval is how often workers are checked (default 1s).
	WorkerCheckInterval time.Duration
	// ShutdownGrace bounds GracefulStop before Stop cuts streams (default 10s).
	ShutdownGrace time.Duration
	Log           *zap.Logger
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
	tlsOn := cfg.TLSCert != "" || cfg.TLSKey != ""
	if tlsOn && (cfg.TLSCert == "" || cfg.TLSKey == "") {
		return errors.New("TLS needs both --tls-cert and --tls-key")
	}
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(server.UnaryInterceptor),
		grpc.ChainStreamInterceptor(server.StreamInterceptor),
		grpc.MaxRecvMsgSize(workerplugin.MaxMessageBytes),
		grpc.MaxSendMsgSize(workerplugin.MaxMessageBytes),
	}
	if tlsOn {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return fmt.Errorf("load TLS key pair (%s, %s): %w", cfg.TLSCert, cfg.TLSKey, err)
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(&tls.Config{
			Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})))
	}
	ln, err := listen(cfg.Listen, tlsOn)
	if err != nil {
		return err
	}
	srv := grpc.NewServer(opts...)
	healthSrv := health.NewServer()
	healthpb.RegisterHealthServer(srv, healthSrv)
	reflection.Register(srv)
	server.New().Register(srv)
	healthSrv.SetServingStatus("robota.v1.EngineService", healthpb.HealthCheckResponse_SERVING)

	var g run.Group
	g.Add(run.SignalHandler(ctx, syscall.SIGINT, syscall.SIGTERM))
	g.Add(func() error {
		log.Info("engine listening", zap.Stringer("address", cfg.Listen), zap.Bool("tls", tlsOn))
		if cfg.Listening != nil {
			cfg.Listening(ln.Addr())
		}
		return srv.Serve(ln)
	}, func(error) {
		healthSrv.Shutdown()
		gracefulStop(srv, cfg.ShutdownGrace, log)
	})
	if cfg.Worker.Path != "" && cfg.Workers > 0 {
		sup := launcher.NewSupervisor(launcher.SupervisorConfig{
			Command: cfg.Worker, Workers: cfg.Workers, CheckInterval: cfg.WorkerCheckInterval,
		}, log)
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
