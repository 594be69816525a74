package server

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// testWait bounds every wait: ordering comes from the streams, the bound only turns a
// hang into a failure.
const testWait = 30 * time.Second

// engine is an EngineService served over an in-memory connection.
type engine struct {
	t      *testing.T
	mgr    *manager.Manager
	lis    *bufconn.Listener
	client robotav1.EngineServiceClient
	state  string // StateDir, shared by a restarted engine
}

func noEnv(string) (string, bool) { return "", false }

// startEngine serves a fresh Manager (no user settings, no API keys in its environment)
// whose state lives in state (a new temp dir when empty).
func startEngine(t *testing.T, state string, tune func(*manager.Config)) *engine {
	t.Helper()
	if state == "" {
		state = t.TempDir()
	}
	cfg := manager.Config{Home: t.TempDir(), Env: noEnv, StateDir: state}
	if tune != nil {
		tune(&cfg)
	}
	mgr, err := manager.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(256 << 10)
	g := grpc.NewServer(ServerOptions()...)
	New(mgr).Register(g)
	go func() { _ = g.Serve(lis) }()
	e := &engine{t: t, mgr: mgr, lis: lis, state: state}
	e.client = robotav1.NewEngineServiceClient(e.dial())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		_ = mgr.Shutdown(ctx)
		g.Stop()
	})
	return e
}

// dial opens another client connection (another client of the same engine).
func (e *engine) dial(opts ...grpc.DialOption) *grpc.ClientConn {
	e.t.Helper()
	opts = append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return e.lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	}, opts...)
	conn, err := grpc.NewClient("passthrough:///bufnet", opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { conn.Close() })
	return conn
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	t.Cleanup(cancel)
	return ctx
}

// project makes a temp project directory holding script.yaml.
func project(t *testing.T, script string) string {
	t.Helper()
	return projectIn(t, t.TempDir(), script)
}

// memoryProject is project in memory (/dev/shm when the machine has it): its saves'
// fsyncs cost nothing, for a test about timing that a slow disk would decide.
func memoryProject(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "robota-test"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			dir = d
		}
	}
	return projectIn(t, dir, script)
}

func projectIn(t *testing.T, dir, script string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// create makes a script session in dir.
func (e *engine) create(dir string, mod func(*robotav1.CreateSessionRequest)) *robotav1.SessionInfo {
	e.t.Helper()
	req := &robotav1.CreateSessionRequest{Cwd: dir, Provider: "script", Script: "script.yaml"}
	if mod != nil {
		mod(req)
	}
	resp, err := e.client.CreateSession(testCtx(e.t), req)
	if err != nil {
		e.t.Fatalf("CreateSession: %v", err)
	}
	return resp.GetSession()
}

// submitted is what a Submit stream delivered.
type submitted struct {
	accepted *robotav1.SubmitAccepted
	events   []*robotav1.SessionEvent
	messages int // SubmitResponse messages received
	err      error
}

func (s submitted) text() string {
	var b strings.Builder
	for _, e := range s.events {
		b.WriteString(e.GetTextDelta().GetText())
	}
	return b.String()
}

func (s submitted) last() *robotav1.SessionEvent {
	if len(s.events) == 0 {
		return nil
	}
	return s.events[len(s.events)-1]
}

// submit runs a prompt and reads its stream to the end.
func (e *engine) submit(id, prompt string) submitted {
	e.t.Helper()
	stream, err := e.client.Submit(testCtx(e.t), &robotav1.SubmitRequest{SessionId: id, Prompt: prompt})
	if err != nil {
		return submitted{err: err}
	}
	return drainSubmit(stream, nil)
}

// drainSubmit reads a Submit stream; onEvent, if set, sees each event as it comes.
func drainSubmit(stream robotav1.EngineService_SubmitClient, onEvent func(*robotav1.SessionEvent)) submitted {
	var out submitted
	for {
		resp, err := stream.Recv()
		if err != nil {
			if status.Code(err) != codes.OK && err.Error() != "EOF" {
				out.err = err
			}
			return out
		}
		if a := resp.GetAccepted(); a != nil {
			out.accepted = a
		}
		out.messages++
		for _, ev := range resp.GetEvents() {
			out.events = append(out.events, ev)
			if onEvent != nil {
				onEvent(ev)
			}
		}
	}
}

// recvUntil reads a Submit stream until one of its events matches, and returns it.
func recvUntil(t *testing.T, s robotav1.EngineService_SubmitClient, match func(*robotav1.SessionEvent) bool) *robotav1.SessionEvent {
	t.Helper()
	for {
		resp, err := s.Recv()
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range resp.GetEvents() {
			if match(ev) {
				return ev
			}
		}
	}
}

func wantCode(t *testing.T, what string, err error, code codes.Code, msgHas string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("%s: error %v, want %v", what, err, code)
	}
	if msgHas != "" && !strings.Contains(status.Convert(err).Message(), msgHas) {
		t.Fatalf("%s: message %q does not name %q", what, status.Convert(err).Message(), msgHas)
	}
}

// kinds lists the events' kinds ("text_delta", "tool_end" …).
func kinds(evs []*robotav1.SessionEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, kind(e))
	}
	return out
}

func kind(e *robotav1.SessionEvent) string {
	switch e.GetEvent().(type) {
	case *robotav1.SessionEvent_TextDelta:
		return "text_delta"
	case *robotav1.SessionEvent_Thinking:
		return "thinking"
	case *robotav1.SessionEvent_ToolStart:
		return "tool_start"
	case *robotav1.SessionEvent_ToolEnd:
		return "tool_end"
	case *robotav1.SessionEvent_PermissionRequest:
		return "permission_request"
	case *robotav1.SessionEvent_PermissionResolved:
		return "permission_resolved"
	case *robotav1.SessionEvent_ContextUpdate:
		return "context_update"
	case *robotav1.SessionEvent_Compact:
		return "compact"
	case *robotav1.SessionEvent_Complete:
		return "complete"
	case *robotav1.SessionEvent_Error:
		return "error"
	case *robotav1.SessionEvent_Interrupted:
		return "interrupted"
	}
	return "?"
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
