package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"

	"github.com/robota-sdk/robota-go/internal/engineproc"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// runEngine shows the daemon side: robota-engine over gRPC, a session in it driven by
// a client in another language, and its supervised go-plugin workers running real
// processes.
func runEngine(bin, examples string, first int) error {
	tmp, err := os.MkdirTemp("", "robota-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	step(first+0, "Start robota-engine on a private unix socket")
	sock := filepath.Join(tmp, "engine.sock")
	eng, err := engineproc.Start(bin, sock, nil, "--worker-check-interval", "200ms", "--state-dir", filepath.Join(tmp, "state"))
	if err != nil {
		return err
	}
	defer eng.Kill()
	if _, _, err := eng.WaitMsg(ctx, 0, "engine listening"); err != nil {
		return err
	}
	st, err := os.Stat(sock)
	if err != nil {
		return err
	}
	say("engine pid %d listening on unix://%s (mode %o)", eng.Cmd.Process.Pid, sock, st.Mode().Perm())
	ready, _, err := eng.WaitMsg(ctx, 0, "worker ready")
	if err != nil {
		return err
	}
	workerPID := ready.Int("pid")
	say("engine launched robota-worker pid %d through go-plugin (gRPC, mutual TLS) and pinged it", workerPID)

	step(first+1, "Talk to it over gRPC: health, reflection, the EngineService contract")
	conn, err := eng.Dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "robota.v1.EngineService"})
	if err != nil {
		return err
	}
	say("grpc.health.v1 Check(robota.v1.EngineService) = %s", h.GetStatus())
	services, err := listServices(ctx, conn)
	if err != nil {
		return err
	}
	say("reflection lists: %s", strings.Join(services, ", "))

	step(first+2, "A client in another language drives a session in the engine, and approves a Write")
	if err := runForeignClient(ctx, examples, sock, tmp); err != nil {
		return err
	}

	step(first+3, "Run a real background process in a worker process")
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n\nfunc main() { println(\"hi\") }\n"), 0o644); err != nil {
		return err
	}
	w, err := launcher.Launch(launcher.Command{Path: filepath.Join(bin, "robota-worker")}, zap.NewNop(), 10*time.Second)
	if err != nil {
		return err
	}
	defer w.Kill()
	say("launched robota-worker pid %d; job: ls, grep and wc over a scratch project", w.PID)
	err = w.Runner.Start(ctx, runnerapi.Job{ID: "demo-1", Process: &runnerapi.ProcessJob{
		Command: "ls -l && grep -n func main.go && wc -c main.go", Cwd: project,
	}}, func(ev runnerapi.Event) error {
		switch ev.Kind {
		case runnerapi.EventStarted:
			say("#%d started (shell pid %d)", ev.Sequence, ev.PID)
		case runnerapi.EventTextDelta:
			for _, line := range strings.Split(strings.TrimRight(ev.Text, "\n"), "\n") {
				say("#%d | %s", ev.Sequence, line)
			}
		default:
			say("#%d %s exit=%d %s%s", ev.Sequence, ev.Kind, ev.ExitCode, ev.Error, ev.Reason)
		}
		return nil
	})
	if err != nil {
		return err
	}

	step(first+4, "Crash a worker: the engine's supervisor notices and replaces it")
	if err := syscall.Kill(workerPID, syscall.SIGKILL); err != nil {
		return err
	}
	say("kill -9 %d", workerPID)
	crash, idx, err := eng.WaitMsg(ctx, 0, "worker crashed")
	if err != nil {
		return err
	}
	say("engine log: %q pid=%d error=%v", crash.Msg(), crash.Int("pid"), crash["error"])
	again, _, err := eng.WaitMsg(ctx, idx, "worker ready")
	if err != nil {
		return err
	}
	say("engine log: %q pid=%d", again.Msg(), again.Int("pid"))

	step(first+5, "Stop the engine with SIGTERM")
	start := time.Now()
	if err := eng.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	code, err := eng.Wait(10 * time.Second)
	if err != nil {
		return err
	}
	_, sockErr := os.Stat(sock)
	say("exit status %d after %s; socket removed: %v; worker %d alive: %v", code, time.Since(start).Round(time.Millisecond),
		os.IsNotExist(sockErr), again.Int("pid"), engineproc.ProcessAlive(again.Int("pid")))

	return nil
}

func listServices(ctx context.Context, conn *grpc.ClientConn) ([]string, error) {
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = stream.CloseSend() }()
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
	}); err != nil {
		return nil, err
	}
	resp, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	return names, nil
}
