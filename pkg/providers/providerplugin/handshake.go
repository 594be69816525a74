package providerplugin

import (
	"context"

	plugin "github.com/hashicorp/go-plugin"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/compat"
)

// PluginName is the key under which the provider backend is dispensed.
const PluginName = "provider"

// Handshake is shared by robota and robota-provider. Bump ProtocolVersion on any
// incompatible change to ProviderService.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "ROBOTA_PROVIDER_PLUGIN",
	MagicCookieValue: "5b0d7c2e-robota-provider-v1",
}

// Backend makes model calls with the OpenAI-compatible provider each configuration
// describes. The provider process serves one; robota's side of the plugin is one.
type Backend interface {
	Chat(ctx context.Context, cfg compat.Config, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error)
}

// PluginSet returns the plugin map of a provider process serving impl, or of robota's
// client side when impl is nil.
func PluginSet(impl Backend) plugin.PluginSet {
	return plugin.PluginSet{PluginName: &GRPCPlugin{Impl: impl}}
}
