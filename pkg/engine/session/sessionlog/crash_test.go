package sessionlog_test

import (
	"bufio"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

const crashHelperEnv = "ROBOTA_SESSIONLOG_CRASH_HELPER_DIR"

// TestLoggerCrashHelper is not a test: with crashHelperEnv set it logs events of varying
// size (some with payload files) until it is killed.
func TestLoggerCrashHelper(t *testing.T) {
	dir := os.Getenv(crashHelperEnv)
	if dir == "" {
		t.Skip("helper process for TestLoggerCrashSafety")
	}
	l, err := sessionlog.Open(dir, "crash", sessionlog.Options{InlineThreshold: 4096})
	if err != nil {
		os.Stderr.WriteString(err.Error())
		os.Exit(3)
	}
	os.Stdout.WriteString("ready\n")
	for i := 0; ; i++ {
		data := map[string]any{"i": i, "text": strings.Repeat("y", (i*7919)%9000)}
		if err := l.Append(sessionlog.EventTextDelta, data); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
	}
}

// TestLoggerCrashSafety kills a logging process with SIGKILL 20 times. After every kill
// all complete lines parse, at most the last line is partial, sequences are contiguous
// across restarts (the reopened log truncates the partial line), and every payload
// reference resolves.
func TestLoggerCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 20 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := sessionlog.LogPath(dir, "crash")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	partials := 0
	for kill := 1; kill <= 20; kill++ {
		cmd := exec.Command(exe, "-test.run=^TestLoggerCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if l, _ := bufio.NewReader(out).ReadString('\n'); l != "ready\n" {
			_ = cmd.Process.Kill()
			t.Fatalf("helper did not start: %q", l)
		}
		time.Sleep(time.Duration(rng.IntN(20_000)) * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		c, err := sessionlog.ReadLogFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range c.Skipped {
			if !s.Partial || i != len(c.Skipped)-1 {
				t.Fatalf("kill %d: line %d does not parse: %v", kill, s.Line, s.Err)
			}
			partials++
		}
		for i, e := range c.Entries {
			if e.Sequence != int64(i+1) {
				t.Fatalf("kill %d: line %d has sequence %d", kill, e.Line, e.Sequence)
			}
		}
		v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir))
		if !v.OK {
			t.Fatalf("kill %d: %+v", kill, v.Issues[0])
		}
	}
	c, _ := sessionlog.ReadLogFile(path)
	t.Logf("%d entries after 20 kills; %d kills left a partial last line", len(c.Entries), partials)
	if len(c.Entries) == 0 {
		t.Fatal("the helper never logged")
	}
}
