package worker

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

func TestChildrenOfListsLiveChildrenOnly(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if got := childrenOf(os.Getpid()); !slices.Contains(got, pid) {
		t.Fatalf("childrenOf(self) = %v, want the sleep %d among them", got, pid)
	}
	if got := childrenOf(pid); len(got) != 0 {
		t.Fatalf("childrenOf(sleep) = %v, want none", got)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got := childrenOf(os.Getpid()); slices.Contains(got, pid) {
		t.Fatalf("childrenOf(self) = %v still lists the reaped sleep %d", got, pid)
	}
}
