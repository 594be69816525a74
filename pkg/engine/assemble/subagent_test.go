package assemble

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// A subagent of an assembled session, run by a worker (in process here; the same code
// runs in robota-worker): the session's deny rule holds for it, and its ask reaches the
// session's clients as a permission_request, whose answer lets its tool run.
func TestSubagentUsesTheSessionsRulesAndAsksItsClients(t *testing.T) {
	dir := t.TempDir()
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: w1, name: Write, input: {file_path: "`+filepath.Join(dir, "secret.txt")+`", content: "x"}}]
  - toolCalls: [{id: b1, name: Bash, input: {command: "touch made.txt"}}]
  - text: "sub done"
`)
	s := newTestSession(t, p, Options{Cwd: dir, Deny: []string{"Write(secret.txt)"}})
	sub := s.Subscribe()
	host := s.Session().SubagentHost(session.SubagentHostConfig{Cwd: dir})
	done := make(chan []runnerapi.Event, 1)
	go func() {
		var evs []runnerapi.Event
		err := worker.New(nil).Start(context.Background(), runnerapi.Job{ID: "agent-1", Host: host,
			Agent: &runnerapi.AgentJob{Prompt: "work", Cwd: dir}}, func(ev runnerapi.Event) error { evs = append(evs, ev); return nil })
		if err != nil {
			t.Error(err)
		}
		done <- evs
	}()
	asked := until(t, sub, func(ev Event) bool { return ev.Type == EventPermissionRequest })
	req := asked[len(asked)-1].Permission
	if req.ToolName != "Bash" || req.ToolUseID != "b1" {
		t.Fatalf("the session's clients were asked about %+v, want the subagent's Bash b1", req)
	}
	if err := s.RespondPermission(req.RequestID, session.ApprovalAllow, ""); err != nil {
		t.Fatal(err)
	}
	var evs []runnerapi.Event
	select {
	case evs = <-done:
	case <-contextDone(t):
		t.Fatal("the subagent did not finish")
	}
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted || last.Output != "sub done" {
		t.Fatalf("terminal = %+v", last)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil {
		t.Fatalf("the approved Bash did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "secret.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the session's deny rule did not hold for the subagent (stat: %v)", err)
	}
	if d := host.PermissionDenials(); len(d) != 1 || d[0].ToolUseID != "w1" {
		t.Fatalf("subagent denials = %+v", d)
	}
}

func contextDone(t *testing.T) <-chan struct{} {
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	t.Cleanup(cancel)
	return ctx.Done()
}
