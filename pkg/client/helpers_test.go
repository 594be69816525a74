package client_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
	"github.com/robota-sdk/robota-go/pkg/engine/server"
)

// testWait bounds every wait: order comes from the streams, the bound only turns a
// hang into a failure.
const testWait = 30 * time.Second

func noEnv(string) (string, bool) { return "", false }

// serveEngine serves the real EngineService (a fresh Manager, no user settings or
// keys) on lis and stops it when the test ends.
func serveEngine(t *testing.T, lis net.Listener, opts ...grpc.ServerOption) {
	t.Helper()
	mgr, err := manager.New(manager.Config{Home: t.TempDir(), Env: noEnv, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(append(server.ServerOptions(), opts...)...)
	server.New(mgr).Register(g)
	go func() { _ = g.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		_ = mgr.Shutdown(ctx)
		g.Stop()
	})
}

// bufEngine serves the engine over an in-memory connection and returns a client of it.
func bufEngine(t *testing.T) *client.Client {
	t.Helper()
	lis := bufconn.Listen(256 << 10)
	serveEngine(t, lis)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return client.New(conn)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	t.Cleanup(cancel)
	return ctx
}

// project makes a temp project directory holding script.yaml.
func project(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func scriptSession(t *testing.T, c *client.Client, dir string) client.SessionInfo {
	t.Helper()
	info, err := c.CreateSession(testCtx(t), client.SessionOptions{Cwd: dir, Provider: "script", Script: "script.yaml"})
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	return info
}

// drain reads a prompt's events to its end (io.EOF), calling on for each.
func drain(t *testing.T, p *client.Prompt, on func(client.Event)) []client.Event {
	t.Helper()
	var out []client.Event
	for {
		e, err := p.Next()
		if err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("prompt %s: %v (after %d events)", p.ID, err, len(out))
		}
		out = append(out, e)
		if on != nil {
			on(e)
		}
	}
}
