package providerplugin

import (
	"os"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// Serve runs the provider process's plugin server until robota goes away (go-plugin
// ends it when robota closes the connection; the launcher's parent-death signal when
// robota dies). Logs are hclog JSON on stderr, which robota's go-plugin client
// re-logs; they name configurations by provider, never their keys. Started without
// robota's handshake cookie, go-plugin says this is a plugin and exits 1. TLS: the
// identity the launcher hands over (workerplugin.TLSProvider).
func Serve(impl Backend) {
	logger := hclog.New(&hclog.LoggerOptions{
		Name:       "robota-provider",
		Level:      hclog.LevelFromString(envOr("ROBOTA_WORKER_LOG_LEVEL", "info")),
		Output:     os.Stderr,
		JSONFormat: true,
	})
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         PluginSet(impl),
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

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
