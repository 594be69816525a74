package workerproc

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// KillStrays kills the processes marked with the dead worker's pid, and those only: not
// an unmarked process, not one marked by another worker whose pid shares a prefix.
func TestKillStraysKillsOnlyTheDeadWorkersJobs(t *testing.T) {
	const dead = 999_999_991 // above any pid_max: no live worker has it
	start := func(mark string) *exec.Cmd {
		cmd := exec.Command("sleep", "30")
		cmd.Env = append(os.Environ(), mark)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	marked := start(JobMarkerEnv + "=" + strconv.Itoa(dead))
	other := start(JobMarkerEnv + "=" + strconv.Itoa(dead) + "0")
	unmarked := start("ROBOTA_UNRELATED=" + strconv.Itoa(dead))

	if n := KillStrays(dead); n != 1 {
		t.Fatalf("KillStrays found %d processes, want the one marked", n)
	}
	waited := make(chan error, 1)
	go func() { waited <- marked.Wait() }()
	select {
	case err := <-waited:
		if ws, ok := marked.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("the marked process ended with %v, want SIGKILL", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the marked process still runs")
	}
	for _, c := range []*exec.Cmd{other, unmarked} {
		if err := c.Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("pid %d (%v) was killed: %v", c.Process.Pid, c.Env[len(c.Env)-1], err)
		}
	}
}
