//go:build linux

package procbench

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// TestHelperTouch is not a test: run as a child by TestPeakRSS, it touches the number of
// MiB given in PROCBENCH_TOUCH_MIB and exits.
func TestHelperTouch(t *testing.T) {
	n := os.Getenv("PROCBENCH_TOUCH_MIB")
	if n == "" {
		t.Skip("helper process only")
	}
	mib, err := strconv.Atoi(n)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, mib<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	os.Exit(int(buf[len(buf)-4096]) - 1)
}

func TestPeakRSS(t *testing.T) {
	helper := func(mib string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperTouch$")
		cmd.Env = append(os.Environ(), "PROCBENCH_TOUCH_MIB="+mib)
		return cmd
	}
	small, err := PeakRSS(helper("1"))
	if err != nil {
		t.Fatal(err)
	}
	big, err := PeakRSS(helper("64"))
	if err != nil {
		t.Fatal(err)
	}
	// The child's own peak: the 64 MiB it touched, and nothing inherited that would hide
	// the 63 MiB difference.
	if big < 64<<10 || big-small < 60<<10 {
		t.Fatalf("peak RSS 1 MiB child = %d KiB, 64 MiB child = %d KiB", small, big)
	}
	if _, err := PeakRSS(exec.Command("false")); err == nil {
		t.Fatal("a failing command reported no error")
	}
}
