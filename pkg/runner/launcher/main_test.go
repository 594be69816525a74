package launcher

import (
	"os"
	"slices"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/runner/worker"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// legacyWorkerArg makes the test binary serve as a worker that ignores the TLS
// identity the engine hands over, as a robota-worker older than that does: go-plugin's
// AutoMTLS then makes the worker's certificate.
const legacyWorkerArg = "-robota-test-legacy-worker"

// TestMain lets the test binary serve as robota-worker when the launcher starts it
// (testWorker), so the tests run the real worker without building it.
func TestMain(m *testing.M) {
	if os.Getenv(workerplugin.Handshake.MagicCookieKey) == workerplugin.Handshake.MagicCookieValue {
		if slices.Contains(os.Args[1:], legacyWorkerArg) {
			_ = os.Unsetenv(workerplugin.TLSFDEnv)
		}
		worker.Serve()
		os.Exit(0)
	}
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// testWorker is the command that starts the test binary as a worker.
func testWorker(args ...string) Command {
	return Command{Path: os.Args[0], Args: args}
}
