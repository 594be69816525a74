package assemble

import (
	"os"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/providers/openaicompat"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

// TestMain lets this test binary host the command sandbox (its first process re-runs
// the binary), so tests run real commands in it.
func TestMain(m *testing.M) {
	sandbox.RunIfSandbox()
	// robota's own main installs this registry (pkg/cli runs the OpenAI types in
	// robota-provider); these tests build them in process.
	registry.SetDefault(registry.NewBuiltin(openaicompat.Open))
	os.Exit(m.Run())
}
