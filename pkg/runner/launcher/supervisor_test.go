package launcher

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// A worker command that exits at once fails every launch. Each failure must
// push the slot's next attempt out (1s, 2s, 4s …), however often tend runs.
func TestSupervisorBacksOffAFailingSlot(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	s := NewSupervisor(SupervisorConfig{Command: Command{Path: "/bin/false"}, Workers: 1, MaxBackoff: 4 * time.Second}, zap.New(core))
	clock := time.Unix(1_700_000_000, 0)
	s.now = func() time.Time { return clock }
	var backoff time.Duration
	var next time.Time
	attempts := func() int { return logs.FilterMessage("worker launch failed").Len() }
	steps := []struct {
		advance      time.Duration
		wantAttempts int
		wantBackoff  time.Duration
	}{
		{0, 1, time.Second},
		{0, 1, time.Second}, // same instant: no new attempt
		{999 * time.Millisecond, 1, time.Second},
		{time.Millisecond, 2, 2 * time.Second},
		{time.Second, 2, 2 * time.Second},
		{time.Second, 3, 4 * time.Second},
		{4 * time.Second, 4, 4 * time.Second}, // capped at MaxBackoff
	}
	for i, st := range steps {
		clock = clock.Add(st.advance)
		for range 3 { // several ticks at the same instant
			s.tend(context.Background(), 0, &backoff, &next)
		}
		if got := attempts(); got != st.wantAttempts || backoff != st.wantBackoff {
			t.Fatalf("step %d: %d launch attempts, backoff %s; want %d, %s", i, got, backoff, st.wantAttempts, st.wantBackoff)
		}
	}
	if w := s.Workers(); len(w) != 0 {
		t.Fatalf("a failing command produced workers %v", w)
	}
}

func TestSupervisorRunStopsDuringAStuckLaunch(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := NewSupervisor(SupervisorConfig{
		Command:      Command{Path: "/bin/sh", Args: []string{"-c", "echo $$ > " + pidFile + "; exec sleep 60"}},
		Workers:      1,
		StartTimeout: time.Minute,
	}, zap.NewNop())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	pid := waitPIDFile(t, pidFile)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run waited for the handshake timeout instead of stopping")
	}
	waitGone(t, pid)
}

func TestLaunchContextKillsAStuckWorkerWhenCancelled(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		waitPIDFile(t, pidFile)
		cancel()
	}()
	_, err := LaunchContext(ctx, Command{Path: "/bin/sh", Args: []string{"-c", "echo $$ > " + pidFile + "; exec sleep 60"}},
		zap.NewNop(), time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("LaunchContext = %v, want context.Canceled", err)
	}
	pid, _ := strconv.Atoi(readTrim(pidFile))
	waitGone(t, pid)
}

func TestWorkerEnvIsAllowlisted(t *testing.T) {
	got := workerEnv([]string{
		"PATH=/bin", "HOME=/h", "USER=u", "LANG=C", "LC_ALL=C", "TMPDIR=/t", "TZ=UTC", "TERM=xterm",
		"SHELL=/bin/sh", "XDG_RUNTIME_DIR=/run/u", "ROBOTA_WORKER_LOG_LEVEL=debug",
		"ANTHROPIC_API_KEY=sk", "OPENAI_API_KEY=sk", "AWS_SECRET_ACCESS_KEY=s", "GITHUB_TOKEN=t",
		"PLUGIN_CLIENT_CERT=c", "EDITOR=vi", "noequals",
	})
	want := "PATH=/bin HOME=/h USER=u LANG=C LC_ALL=C TMPDIR=/t TZ=UTC TERM=xterm SHELL=/bin/sh XDG_RUNTIME_DIR=/run/u ROBOTA_WORKER_LOG_LEVEL=debug"
	if strings.Join(got, " ") != want {
		t.Fatalf("workerEnv = %v\nwant %s", got, want)
	}
}

func readTrim(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

// waitPIDFile waits until the worker command has written its pid.
func waitPIDFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if pid, err := strconv.Atoi(readTrim(path)); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("worker command never wrote its pid")
	return 0
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stuck worker pid %d still alive after the launch was interrupted", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A worker that completes the handshake but never answers fails its first
// ping; that must back off like a failed launch (review B19), not relaunch
// on every tick.
func TestSupervisorBacksOffAWorkerThatFailsItsFirstPing(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	// Announces a gRPC server on a port nobody listens on, then idles.
	fake := Command{Path: "/bin/sh", Args: []string{"-c", `echo "1|1|tcp|127.0.0.1:1|grpc"; exec sleep 30`}}
	s := NewSupervisor(SupervisorConfig{Command: fake, Workers: 1}, zap.New(core))
	clock := time.Unix(1_700_000_000, 0)
	s.now = func() time.Time { return clock }
	var backoff time.Duration
	var next time.Time
	for range 3 {
		s.tend(context.Background(), 0, &backoff, &next)
	}
	failed := logs.FilterMessage("worker launch failed").All()
	if len(failed) != 1 || backoff != time.Second || !next.Equal(clock.Add(time.Second)) {
		t.Fatalf("%d launch attempts, backoff %s, next try %s; want 1 attempt and a 1s backoff", len(failed), backoff, next.Sub(clock))
	}
	if msg := failed[0].ContextMap()["error"]; !strings.Contains(msg.(string), "first ping") {
		t.Fatalf("launch failure = %v, want the first ping named", msg)
	}
}
