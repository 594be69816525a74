// Package integration tests the built binaries end to end: robota-engine,
// robota-worker and robota, as separate processes talking gRPC and go-plugin.
//
// The binaries come from $ROBOTA_BIN_DIR (make test sets it to bin/), or are
// built into a temporary directory when it is unset.
package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/robota-sdk/robota-go/internal/engineproc"
)

var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	binDir = os.Getenv("ROBOTA_BIN_DIR")
	if binDir == "" {
		dir, err := os.MkdirTemp("", "robota-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		for name, pkg := range map[string]string{
			"robota": "./cmd/cli", "robota-engine": "./cmd/engine", "robota-worker": "./cmd/worker", "robota-sandbox": "./cmd/sandbox",
			"robota-provider": "./cmd/provider",
		} {
			// Built as the Makefile builds them (tags, static).
			cmd := exec.Command("go", "build", "-tags", "grpcnotrace", "-o", filepath.Join(dir, name), pkg)
			cmd.Dir = ".."
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "build %s: %v\n", name, err)
				return 1
			}
		}
		binDir = dir
	}
	if err := engineproc.CheckBinaries(binDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// shortTempDir returns a temp dir short enough for a unix socket path (108 bytes).
func shortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
