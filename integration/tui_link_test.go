package integration

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRobotaDoesNotLinkNetRPC: DESIGN.md decision 10 holds with the TUI linked in:
// robota has no net/rpc server (go-plugin's worker side: its method registration,
// suitableMethods, and ServeConn), which comes with a reflect-method mark that keeps
// every method of every type alive. go-plugin's client side (net/rpc's Client) stays.
func TestRobotaDoesNotLinkNetRPC(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", filepath.Join(binDir, "robota")).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	syms := string(out)
	if !strings.Contains(syms, "charm.land/bubbletea/v2.") {
		t.Fatal("robota does not link the TUI (bubbletea): the check would prove nothing")
	}
	for _, line := range strings.Split(syms, "\n") {
		if strings.Contains(line, " net/rpc.suitableMethods") || strings.Contains(line, " net/rpc.(*Server)") {
			t.Fatalf("robota links net/rpc: %s", line)
		}
	}
}

// TestInteractiveNeedsATerminal: robota without -p and without a terminal says how to
// run headless, exit 2, instead of starting a UI nobody can use.
func TestInteractiveNeedsATerminal(t *testing.T) {
	cmd := exec.Command(filepath.Join(binDir, "robota"), "--provider", "script", "--script", "/nonexistent.yaml")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2; output %q", err, out)
	}
	if !strings.Contains(string(out), "needs a terminal") || !strings.Contains(string(out), "robota -p") {
		t.Fatalf("message does not say how to run headless: %q", out)
	}
}
