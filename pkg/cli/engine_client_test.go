package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
	"github.com/robota-sdk/robota-go/pkg/engine/server"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// socketEngine serves the real EngineService on a unix socket and returns its address.
func socketEngine(t *testing.T) string {
	t.Helper()
	return socketEngineRunning(t, nil)
}

// socketEngineRunning is socketEngine whose sessions run their subagents and background
// commands on runner (nil: none).
func socketEngineRunning(t *testing.T, runner tasks.Runner) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	lis, err := net.Listen("unix", filepath.Join(dir, "e.sock"))
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(manager.Config{Home: t.TempDir(), Env: func(string) (string, bool) { return "", false },
		StateDir: t.TempDir(), Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(server.ServerOptions()...)
	server.New(mgr).Register(g)
	go func() { _ = g.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = mgr.Shutdown(ctx)
		g.Stop()
	})
	return "unix://" + lis.Addr().String()
}

// A session robota --engine resumes while another client has it live stays live for
// that client; a session the run created is closed (saved, freed) when the run ends.
func TestEngineRunClosesOnlyItsOwnSessions(t *testing.T) {
	addr := socketEngine(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("name: t\nturns:\n  - text: \"hello there\"\n    repeat: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(addr, client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	other, err := c.CreateSession(ctx, client.SessionOptions{Cwd: dir, Provider: "script", Script: "s.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	run := func(extra ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		args := append([]string{"-p", "hi", "--engine", addr, "--cwd", dir, "--provider", "script", "--script", "s.yaml", "--output-format", "json"}, extra...)
		if code := mainWith(args, devnull, &out, &errb); code != 0 {
			t.Fatalf("robota %q exited %d: %s", args, code, errb.String())
		}
		return out.String(), errb.String()
	}

	out, _ := run("--resume", other.ID)
	if !strings.Contains(out, `"result":"hello there"`) || !strings.Contains(out, other.ID) {
		t.Fatalf("resumed run printed %s", out)
	}
	if info, err := c.GetSession(ctx, other.ID); err != nil || !info.Live {
		t.Fatalf("the other client's session after the run: %+v, %v; want it still live", info, err)
	}

	out, _ = run()
	var mine string
	if i := strings.Index(out, `"session_id":"`); i >= 0 {
		mine, _, _ = strings.Cut(out[i+len(`"session_id":"`):], `"`)
	}
	info, err := c.GetSession(ctx, mine)
	if err != nil || info.Live || info.MessageCount == 0 {
		t.Fatalf("the run's own session %q after the run: %+v, %v; want it saved and closed", mine, info, err)
	}
}

func TestEngineTLSFlagsNeedAnEngine(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"-p", "hi", "--tls-ca", "ca.pem"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--engine tcp://") {
		t.Fatalf("--tls-ca without --engine: exit %d, stderr %q; want 2 naming --engine", code, errb.String())
	}
}
