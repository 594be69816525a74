package worker

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/robota-sdk/robota-go/pkg/runner/pipe"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// Serve runs the worker plugin server until the engine goes away. Logs are
// hclog JSON on stderr (@message, @level, @timestamp), which the engine's
// go-plugin client parses and re-logs. Started without the engine's handshake
// cookie, go-plugin prints that this is a plugin and exits 1.
func Serve() {
	logger := newLogger()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: workerplugin.Handshake,
		Plugins:         workerplugin.PluginSet(New(logger)),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts,
				grpc.MaxRecvMsgSize(workerplugin.MaxMessageBytes),
				grpc.MaxSendMsgSize(workerplugin.MaxMessageBytes))
			return grpc.NewServer(opts...)
		},
		Logger: logger,
	})
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// ServeStdio serves the same Runner to robota over stdin and stdout (pkg/runner/pipe)
// until stdin closes, and returns the exit status. Logs go to stderr as with Serve.
func ServeStdio() int {
	if err := pipe.Serve(context.Background(), os.Stdin, os.Stdout, New(newLogger())); err != nil {
		fmt.Fprintf(os.Stderr, "robota-worker: %v\n", err)
		return 1
	}
	return 0
}

func newLogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "robota-worker",
		Level:      hclog.LevelFromString(envOr("ROBOTA_WORKER_LOG_LEVEL", "info")),
		Output:     os.Stderr,
		JSONFormat: true,
	})
}
