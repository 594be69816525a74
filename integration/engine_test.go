package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/internal/engineproc"
)

// startEngine runs robota-engine on a fresh socket and waits until it listens
// and its worker is ready. The engine is killed when the test ends.
func startEngine(t *testing.T, extra ...string) (*engineproc.Proc, engineproc.LogEntry) {
	t.Helper()
	sock := filepath.Join(shortTempDir(t), "e.sock")
	p, err := engineproc.Start(binDir, sock, nil, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill()
		_, _ = p.Wait(5 * time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, _, err := p.WaitMsg(ctx, 0, "engine listening"); err != nil {
		t.Fatal(err)
	}
	ready, _, err := p.WaitMsg(ctx, 0, "worker ready")
	if err != nil {
		t.Fatal(err)
	}
	return p, ready
}

func TestEngineSocketIsMode0600(t *testing.T) {
	p, _ := startEngine(t)
	st, err := os.Stat(p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("%s is not a socket: %v", p.Socket, st.Mode())
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Fatalf("socket mode = %o, want 600", perm)
	}
}

func TestEngineHealthIsServing(t *testing.T) {
	p, _ := startEngine(t)
	conn, err := p.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, svc := range []string{"", "robota.v1.EngineService"} {
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil {
			t.Fatalf("health check %q: %v", svc, err)
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health %q = %v, want SERVING", svc, resp.GetStatus())
		}
	}
}

func TestEngineReflectionListsEngineService(t *testing.T) {
	p, _ := startEngine(t)
	conn, err := p.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
	}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	for _, want := range []string{"robota.v1.EngineService", "grpc.health.v1.Health"} {
		if !contains(names, want) {
			t.Errorf("reflection services %v lack %s", names, want)
		}
	}
}

// Issue 14 §1: the engine serves the slash commands (they answered Unimplemented before).
func TestEngineExecutesCommands(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte("turns:\n  - text: hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, c := engineClient(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: dir, Provider: "script", Script: "script.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetSession().GetSessionId()
	res, err := c.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: id, Name: "rename", Args: "release work"})
	if err != nil || !res.GetSuccess() || res.GetMessage() != "Session renamed to release work" {
		t.Fatalf("/rename = %v, %v", res, err)
	}
	list, err := c.ListCommands(ctx, &robotav1.ListCommandsRequest{SessionId: id})
	if err != nil || len(list.GetCommands()) < 16 {
		t.Fatalf("ListCommands = %v, %v", list, err)
	}
	_, err = c.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: id, Name: "frobnicate"})
	if status.Code(err) != codes.NotFound || !strings.Contains(status.Convert(err).Message(), "/frobnicate") {
		t.Fatalf("unknown command error = %v, want NotFound naming it", err)
	}
}

func TestEngineSIGTERMExitsZeroWithin5s(t *testing.T) {
	p, ready := startEngine(t)
	workerPID := ready.Int("pid")
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, err := p.Wait(5 * time.Second)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, p.RawLog())
	}
	if code != 0 {
		t.Fatalf("exit code %d after SIGTERM, want 0\nlog:\n%s", code, p.RawLog())
	}
	t.Logf("engine exited 0 in %s", time.Since(start))
	if _, err := os.Stat(p.Socket); err == nil {
		t.Errorf("socket %s left behind after graceful stop", p.Socket)
	}
	waitGone(t, workerPID, 3*time.Second)
}

func TestEngineLaunchesAndPingsWorker(t *testing.T) {
	_, ready := startEngine(t)
	pid := ready.Int("pid")
	if pid <= 0 {
		t.Fatalf("worker ready entry has no pid: %v", ready)
	}
	cmdline, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "cmdline"))
	if err != nil {
		t.Fatalf("worker pid %d: %v", pid, err)
	}
	if !strings.Contains(string(cmdline), "robota-worker") {
		t.Fatalf("pid %d runs %q, want robota-worker", pid, cmdline)
	}
}

func TestEngineDetectsKilledWorkerAndReplacesIt(t *testing.T) {
	p, ready := startEngine(t, "--worker-check-interval", "200ms")
	pid := ready.Int("pid")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	crash, idx, err := p.WaitMsg(ctx, 0, "worker crashed")
	if err != nil {
		t.Fatal(err)
	}
	if crash.Int("pid") != pid {
		t.Fatalf("crash report names pid %d, want %d", crash.Int("pid"), pid)
	}
	again, _, err := p.WaitMsg(ctx, idx, "worker ready")
	if err != nil {
		t.Fatal(err)
	}
	if again.Int("pid") == pid || !engineproc.ProcessAlive(again.Int("pid")) {
		t.Fatalf("replacement worker pid %d (old %d) is not a new live process", again.Int("pid"), pid)
	}
}

func TestEngineKill9LeavesNoWorker(t *testing.T) {
	p, ready := startEngine(t)
	pid := ready.Int("pid")
	if !engineproc.ProcessAlive(pid) {
		t.Fatalf("worker %d not alive before the kill", pid)
	}
	if err := p.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid, 5*time.Second)
}

func TestEngineRefusesTCPWithoutTLS(t *testing.T) {
	out, err := exec.Command(filepath.Join(binDir, "robota-engine"), "--listen", "tcp://127.0.0.1:0", "--workers", "0").CombinedOutput()
	if err == nil {
		t.Fatalf("engine started on TCP without TLS:\n%s", out)
	}
	if !strings.Contains(string(out), "tcp listener requires TLS") {
		t.Fatalf("output does not explain the TLS requirement:\n%s", out)
	}
}

func TestEngineRefusesTCPWithoutClientCA(t *testing.T) {
	out, err := exec.Command(filepath.Join(binDir, "robota-engine"), "--listen", "tcp://127.0.0.1:0", "--workers", "0",
		"--tls-cert", "cert.pem", "--tls-key", "key.pem").CombinedOutput()
	if err == nil {
		t.Fatalf("engine started on TCP without client certificate authentication:\n%s", out)
	}
	if !strings.Contains(string(out), "tcp listener requires TLS") || !strings.Contains(string(out), "missing --tls-client-ca") {
		t.Fatalf("output does not name the missing --tls-client-ca:\n%s", out)
	}
}

// Workers hold no secrets (DESIGN Decision 4): an engine holding an API key
// in its environment must not pass it to the worker it launches.
func TestEngineWorkerDoesNotInheritSecrets(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "x-engine-only")
	t.Setenv("SOME_SERVICE_AUTH_TOKEN", "x-engine-only")
	p, ready := startEngine(t)
	engineEnv := readEnviron(t, p.Cmd.Process.Pid)
	if !strings.Contains(engineEnv, "ANTHROPIC_API_KEY=x-engine-only") {
		t.Fatalf("test setup: the engine itself lacks ANTHROPIC_API_KEY")
	}
	workerEnv := readEnviron(t, ready.Int("pid"))
	for _, leaked := range []string{"ANTHROPIC_API_KEY", "SOME_SERVICE_AUTH_TOKEN", "x-engine-only"} {
		if strings.Contains(workerEnv, leaked) {
			t.Errorf("worker environment has %s:\n%s", leaked, workerEnv)
		}
	}
	if !strings.Contains(workerEnv, "\nPATH=") && !strings.HasPrefix(workerEnv, "PATH=") {
		t.Errorf("worker environment lacks PATH:\n%s", workerEnv)
	}
}

// readEnviron returns /proc/PID/environ with one variable a line.
func readEnviron(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "environ"))
	if err != nil {
		t.Fatalf("environ of pid %d: %v", pid, err)
	}
	return strings.ReplaceAll(string(b), "\x00", "\n")
}

func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for engineproc.ProcessAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("worker pid %d still alive %s later", pid, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
