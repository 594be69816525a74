package worker

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// Serve runs the worker plugin server until the engine goes away. Logs are
// hclog JSON on stderr (@message, @level, @timestamp), which the engine's
// go-plugin client parses and re-logs. Started without the engine's handshake
// cookie, go-plugin prints that this is a plugin and exits 1. TLS: see
// tlsProvider.
func Serve() {
	logger := newLogger()
	exitOnTerm()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: workerplugin.Handshake,
		Plugins:         workerplugin.PluginSet(New(logger)),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts,
				grpc.MaxRecvMsgSize(workerplugin.MaxMessageBytes),
				grpc.MaxSendMsgSize(workerplugin.MaxMessageBytes))
			return grpc.NewServer(opts...)
		},
		Logger:      logger,
		TLSProvider: workerplugin.TLSProvider(),
	})
}

// exitOnTerm makes SIGTERM (what the kernel sends when the engine dies: see
// workerproc.Attrs) kill the process groups of the worker's jobs before the worker
// exits, so none outlives it.
func exitOnTerm() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	go func() {
		<-ch
		killChildGroups()
		os.Exit(128 + int(syscall.SIGTERM))
	}()
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func newLogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "robota-worker",
		Level:      hclog.LevelFromString(envOr("ROBOTA_WORKER_LOG_LEVEL", "info")),
		Output:     os.Stderr,
		JSONFormat: true,
	})
}
