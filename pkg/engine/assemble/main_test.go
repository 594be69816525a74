package assemble

import (
	"os"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

// TestMain lets this test binary host the command sandbox (its first process re-runs
// the binary), so tests run real commands in it.
func TestMain(m *testing.M) {
	sandbox.RunIfSandbox()
	os.Exit(m.Run())
}
