package workerplugin

import (
	plugin "github.com/hashicorp/go-plugin"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// PluginName is the key under which the runner is dispensed.
const PluginName = "runner"

// MaxMessageBytes bounds one gRPC message in either direction. Job logs and
// agent transcripts can be large; gRPC's 4 MiB default is raised on both sides.
const MaxMessageBytes = 64 << 20

// Handshake is shared by the engine and every worker binary. Bump
// ProtocolVersion on any incompatible change to RunnerService.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "ROBOTA_WORKER_PLUGIN",
	MagicCookieValue: "8c1f0e1d-robota-worker-runner-v1",
}

// PluginSet returns the plugin map for a worker serving impl, or for the
// engine's client side when impl is nil.
func PluginSet(impl runnerapi.Runner) plugin.PluginSet {
	return plugin.PluginSet{PluginName: &GRPCPlugin{Impl: impl}}
}

// TLSFDEnv names the file descriptor through which the engine hands a worker its
// TLS identity (DESIGN.md decision 4 keeps secrets out of the environment, so the
// private key travels through an inherited pipe, never an environment variable).
// The pipe holds PEM blocks: the worker's certificate, then its private key. The
// engine's own certificate, which the worker requires of every client, comes in
// go-plugin's PLUGIN_CLIENT_CERT as with AutoMTLS. A worker started without this
// variable falls back to go-plugin's AutoMTLS and makes its own certificate.
const TLSFDEnv = "ROBOTA_WORKER_TLS_FD"
