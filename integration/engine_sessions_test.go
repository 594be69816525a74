package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/internal/engineproc"
)

// engineClient starts robota-engine with its state in stateDir and returns a client.
func engineClient(t *testing.T, stateDir string) (*engineproc.Proc, robotav1.EngineServiceClient) {
	t.Helper()
	p, _ := startEngine(t, "--state-dir", stateDir)
	conn, err := p.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return p, robotav1.NewEngineServiceClient(conn)
}

func sigterm(t *testing.T, p *engineproc.Proc) {
	t.Helper()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(15 * time.Second); err != nil || code != 0 {
		t.Fatalf("engine after SIGTERM: exit %d, %v\nlog:\n%s", code, err, p.RawLog())
	}
}

// submitAnswering submits prompt and approves every permission request with answer;
// it returns the kinds of the events, in order, and the last event.
func submitAnswering(ctx context.Context, t *testing.T, c robotav1.EngineServiceClient, id, prompt string, answer robotav1.PermissionAnswer) ([]string, *robotav1.SessionEvent) {
	t.Helper()
	stream, err := c.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var last *robotav1.SessionEvent
	for {
		resp, err := stream.Recv()
		if err != nil {
			if err.Error() == "EOF" {
				return kinds, last
			}
			t.Fatalf("submit %q: %v", prompt, err)
		}
		for _, ev := range resp.GetEvents() {
			last = ev
			switch {
			case ev.GetPermissionRequest() != nil:
				kinds = append(kinds, "permission_request:"+ev.GetPermissionRequest().GetToolName())
				if _, err := c.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id,
					RequestId: ev.GetPermissionRequest().GetRequestId(), Answer: answer}); err != nil {
					t.Fatalf("RespondPermission: %v", err)
				}
			case ev.GetToolEnd() != nil:
				kinds = append(kinds, "tool_end:"+ev.GetToolEnd().GetTool().GetOutcome().String())
			case ev.GetComplete() != nil:
				kinds = append(kinds, "complete")
			case ev.GetError() != nil:
				kinds = append(kinds, "error:"+ev.GetError().GetMessage())
			case ev.GetInterrupted() != nil:
				kinds = append(kinds, "interrupted")
			}
		}
	}
}

// A session in a temp project: a Write the script asks for is approved over
// RespondPermission and lands on disk; after a SIGTERM and a restart the engine lists
// the session and resumes it with its history.
func TestEngineSessionApprovedWriteThenRestartAndResume(t *testing.T) {
	state, dir := t.TempDir(), t.TempDir()
	target := filepath.Join(dir, "hello.txt")
	script := fmt.Sprintf(`
turns:
  - when: {lastUserContains: "write"}
    toolCalls: [{id: w1, name: Write, input: {file_path: %q, content: "hello from the engine"}}]
  - when: {lastUserContains: "write"}
    text: "Written."
  - when: {lastUserContains: "again"}
    text: "Resumed with the history."
`, target)
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	p, c := engineClient(t, state)
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: dir, Provider: "script", Script: "script.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetSession().GetSessionId()
	kinds, last := submitAnswering(ctx, t, c, id, "write the file", robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW)
	if fmt.Sprint(kinds) != "[permission_request:Write tool_end:TOOL_OUTCOME_SUCCESS complete]" ||
		last.GetComplete().GetResult().GetResponse() != "Written." {
		t.Fatalf("events %v, last %v", kinds, last)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello from the engine" {
		t.Fatalf("file on disk %q, %v", b, err)
	}
	sigterm(t, p)

	_, c = engineClient(t, state)
	list, err := c.ListSessions(ctx, &robotav1.ListSessionsRequest{})
	if err != nil || len(list.GetSessions()) != 1 {
		t.Fatalf("ListSessions after restart: %v, %v", list, err)
	}
	if s := list.GetSessions()[0]; s.GetSessionId() != id || s.GetLive() || s.GetCwd() != dir || s.GetMessageCount() != 4 {
		t.Fatalf("stored session %v", s)
	}
	resumed, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: dir, Provider: "script", Script: "script.yaml", ResumeSessionId: id})
	if err != nil || resumed.GetSession().GetSessionId() != id || !resumed.GetSession().GetLive() {
		t.Fatalf("resume: %v, %v", resumed, err)
	}
	kinds, last = submitAnswering(ctx, t, c, id, "again", robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY)
	if fmt.Sprint(kinds) != "[complete]" || last.GetComplete().GetResult().GetResponse() != "Resumed with the history." {
		t.Fatalf("resumed prompt: events %v, last %v", kinds, last)
	}
	hist, err := c.GetHistory(ctx, &robotav1.GetHistoryRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, e := range hist.GetEntries() {
		if m := e.GetMessage(); m.GetRole() == robotav1.Role_ROLE_USER {
			users = append(users, m.GetParts()[0].GetText().GetText())
		}
	}
	if fmt.Sprint(users) != "[write the file again]" {
		t.Fatalf("user messages after resume %q", users)
	}
}

// SIGTERM while a prompt runs: the engine saves the live session (the prompt aborted, its
// partial answer kept) before it exits, and a restarted engine resumes it.
func TestEngineSIGTERMSavesLiveSessions(t *testing.T) {
	state, dir := t.TempDir(), t.TempDir()
	script := `
turns:
  - when: {lastUserContains: "long"}
    text: "Halfway there"
    hang: true
  - when: {lastUserContains: "next"}
    text: "Back again."
`
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, c := engineClient(t, state)
	var ids []string
	for range 2 {
		created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: dir, Provider: "script", Script: "script.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, created.GetSession().GetSessionId())
	}
	stream, err := c.Submit(ctx, &robotav1.SubmitRequest{SessionId: ids[0], Prompt: "a long task"})
	if err != nil {
		t.Fatal(err)
	}
	for { // the prompt runs once its text streams
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(resp.GetEvents(), func(ev *robotav1.SessionEvent) bool { return ev.GetTextDelta() != nil }) {
			break
		}
	}
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for { // the prompt's stream ends with interrupted
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("stream ended with %v before interrupted", err)
		}
		if slices.ContainsFunc(resp.GetEvents(), func(ev *robotav1.SessionEvent) bool { return ev.GetInterrupted() != nil }) {
			break
		}
	}
	if code, err := p.Wait(15 * time.Second); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, p.RawLog())
	}
	saved, _, err := p.WaitMsg(ctx, 0, "live sessions saved")
	if err != nil || saved.Int("sessions") != 2 {
		t.Fatalf("shutdown log %v, %v\n%s", saved, err, p.RawLog())
	}

	_, c = engineClient(t, state)
	list, err := c.ListSessions(ctx, &robotav1.ListSessionsRequest{Cwd: dir})
	if err != nil || len(list.GetSessions()) != 2 {
		t.Fatalf("sessions after restart %v, %v", list, err)
	}
	if _, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: dir, Provider: "script", Script: "script.yaml", ResumeSessionId: ids[0]}); err != nil {
		t.Fatal(err)
	}
	hist, err := c.GetHistory(ctx, &robotav1.GetHistoryRequest{SessionId: ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	var partial string
	for _, e := range hist.GetEntries() {
		if m := e.GetMessage(); m.GetRole() == robotav1.Role_ROLE_ASSISTANT {
			partial = m.GetParts()[0].GetText().GetText()
		}
	}
	if partial == "" {
		t.Fatalf("the interrupted answer was not saved: %v", hist.GetEntries())
	}
	kinds, _ := submitAnswering(ctx, t, c, ids[0], "next", robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY)
	if fmt.Sprint(kinds) != "[complete]" {
		t.Fatalf("prompt after resume: %v", kinds)
	}
}

// A client that stops reading its Watch stream is cut off with RESOURCE_EXHAUSTED once
// its bounded queue overflows (the engine's default bound, 8 MiB); the prompt and a
// second watcher go on unharmed.
func TestEngineStalledWatcherIsCutOff(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("0123456789abcdef", 6<<16) // 6 MiB
	script := fmt.Sprintf("turns:\n  - text: %q\n    chunkSize: 8192\n    delay: 1ms\n", big)
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p, c := engineClient(t, t.TempDir())
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: dir, Provider: "script", Script: "script.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetSession().GetSessionId()
	// The stalled client: small fixed windows, so its transport stops taking data early.
	conn, err := grpc.NewClient("unix://"+p.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stalledClient := robotav1.NewEngineServiceClient(conn)
	stalled, err := stalledClient.Watch(ctx, &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	watcher, err := c.Watch(ctx, &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	// A watch has subscribed once its response headers came.
	for _, w := range []robotav1.EngineService_WatchClient{stalled, watcher} {
		if _, err := w.Header(); err != nil {
			t.Fatal(err)
		}
	}
	watched := make(chan string, 1)
	go func() { // the second watcher reads as events come
		var b strings.Builder
		defer func() { watched <- b.String() }()
		for {
			resp, err := watcher.Recv()
			if err != nil {
				b.WriteString("\nERROR: " + err.Error())
				return
			}
			b.WriteString(resp.GetEvent().GetTextDelta().GetText())
			if resp.GetEvent().GetComplete() != nil {
				return
			}
		}
	}()
	kinds, last := submitAnswering(ctx, t, c, id, "flood", robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY)
	res := last.GetComplete().GetResult()
	if fmt.Sprint(kinds) != "[complete]" || !res.GetResponseTruncated() || !strings.HasPrefix(big, res.GetResponse()) || len(res.GetResponse()) != 1<<20 {
		t.Fatalf("submitting client: %v, response of %d bytes (truncated %v)", kinds, len(res.GetResponse()), res.GetResponseTruncated())
	}
	if w := <-watched; w != big {
		t.Fatalf("healthy watcher got %d of %d bytes (%.200s)", len(w), len(big), w[max(0, len(w)-200):])
	}
	got := 0
	for {
		resp, err := stalled.Recv()
		if err != nil {
			if status.Code(err) != codes.ResourceExhausted || !strings.Contains(status.Convert(err).Message(), "too slow") {
				t.Fatalf("stalled watcher ended with %v, want RESOURCE_EXHAUSTED", err)
			}
			break
		}
		got += len(resp.GetEvent().GetTextDelta().GetText())
	}
	if got >= len(big) {
		t.Fatalf("the stalled watcher received everything (%d bytes)", got)
	}
	if _, err := c.GetSession(ctx, &robotav1.GetSessionRequest{SessionId: id}); err != nil {
		t.Fatalf("session after the stalled watcher: %v", err)
	}
}
