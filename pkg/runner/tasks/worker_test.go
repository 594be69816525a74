package tasks

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// The manager over the real process runner (in this process, without go-plugin): a
// watchdog kills the process group and the output so far stays readable.
func TestWatchdogsOverRealProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shell processes")
	}
	tests := []struct {
		name   string
		cmd    string
		wd     Watchdog
		reason TimeoutReason
		output string // the log starts with this
	}{
		{"output limit", `i=0; while :; do echo "line $i"; i=$((i+1)); sleep 0.01; done`, Watchdog{OutputLimit: 60}, TimeoutOutputLimit, "line 0\nline 1\n"},
		{"max runtime", `echo begin; exec sleep 60`, Watchdog{MaxRuntime: 300 * time.Millisecond}, TimeoutMaxRuntime, "begin\n"},
		{"idle", `echo begin; sleep 60`, Watchdog{IdleTimeout: 300 * time.Millisecond}, TimeoutIdle, "begin\n"},
		{"repetition", `while :; do echo "retrying"; sleep 0.01; done`, Watchdog{RepetitionThreshold: 5}, TimeoutRepetition, "retrying\nretrying\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, Config{Runner: worker.New(hclog.NewNullLogger())})
			req := processReq(tt.cmd)
			req.Job.Process.Cwd = t.TempDir()
			req.Watchdog = tt.wd
			task, err := m.Spawn(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Wait(t.Context(), task.ID)
			if err != nil {
				t.Fatal(err)
			}
			if g := got[0]; g.State != StateFailed || g.TimeoutReason != tt.reason || !strings.HasPrefix(g.Error, "watchdog "+string(tt.reason)) {
				t.Fatalf("task = %s %s %q", g.State, g.TimeoutReason, g.Error)
			}
			// The job ends (its process group killed), and its output so far is readable.
			if err := m.Shutdown(t.Context(), "test over"); err != nil {
				t.Fatal(err)
			}
			// A killed child of the shell is reaped by init, not by us: give it a moment.
			pid := got[0].PID
			err = syscall.Kill(-pid, 0)
			for deadline := time.Now().Add(5 * time.Second); err == nil && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
				err = syscall.Kill(-pid, 0)
			}
			if !errors.Is(err, syscall.ESRCH) {
				t.Errorf("process group %d still there: %v", pid, err)
			}
			page, err := m.ReadLog(t.Context(), task.ID, 0, 0)
			if err != nil || !strings.HasPrefix(string(page.Data), tt.output) {
				t.Errorf("log = %q, %v", page.Data, err)
			}
		})
	}
}
