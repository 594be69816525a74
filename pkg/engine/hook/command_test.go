package hook

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBackgroundChildrenDoNotOutliveTheHook: a hook that exits normally after starting
// a background child still has its whole process group killed.
func TestBackgroundChildrenDoNotOutliveTheHook(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	resp, err := NewCommandExecutor(t.TempDir()).Execute(context.Background(), cmdHook(script(t, "spawn.sh", pidFile)), []byte("{}"))
	if err != nil || resp.ExitCode != 0 || strings.TrimSpace(resp.Stdout) != "started" {
		t.Fatalf("response %+v, error %v", resp, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q", b)
	}
	waitGone(t, pid)
}
