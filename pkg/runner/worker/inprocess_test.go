package worker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// denyPaths denies Write calls whose input names a denied path; everything else is allowed.
type denyPaths struct{ denied string }

func (d denyPaths) Evaluate(_ context.Context, req session.PermissionRequest, _ session.PermissionMode) session.PermissionDecision {
	if req.ToolName == "Write" && strings.Contains(string(req.Input), d.denied) {
		return session.PermissionDecision{Behavior: session.BehaviorDeny, Reason: "matched deny rule Write(" + d.denied + ")"}
	}
	return session.PermissionDecision{Behavior: session.BehaviorAllow, Reason: "allowed"}
}

// The in-process runner is a Worker used directly with a session's SubagentHost: the
// subagent's loop and tools run in this process, its model calls and tool decisions go
// through the parent session.
func TestInProcessAgentJobThroughAParentSession(t *testing.T) {
	dir := t.TempDir()
	ok, secret := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "secret.txt")
	p, err := script.New([]byte(`
turns:
  - toolCalls:
      - {id: w1, name: Write, input: {file_path: "`+ok+`", content: "notes\n"}}
      - {id: w2, name: Write, input: {file_path: "`+secret+`", content: "x"}}
  - text: "wrote the notes"
    usage: {inputTokens: 40, outputTokens: 4}
`), "inprocess.yaml")
	if err != nil {
		t.Fatal(err)
	}
	parent, err := session.New(context.Background(), session.Config{Provider: p, Model: "m", Cwd: dir, Evaluator: denyPaths{denied: "secret.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	host := parent.SubagentHost(session.SubagentHostConfig{Cwd: dir})
	var evs []runnerapi.Event
	err = worker.New(nil).Start(context.Background(), runnerapi.Job{ID: "sub-1", Host: host,
		Agent: &runnerapi.AgentJob{AgentType: "general-purpose", Prompt: "take notes", Cwd: dir}},
		func(ev runnerapi.Event) error { evs = append(evs, ev); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted || last.Output != "wrote the notes" {
		t.Fatalf("terminal = %+v", last)
	}
	if data, err := os.ReadFile(ok); err != nil || string(data) != "notes\n" {
		t.Fatalf("notes.txt = %q, %v", data, err)
	}
	if _, err := os.Stat(secret); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the parent's deny rule did not hold: secret.txt exists (%v)", err)
	}
	if d := host.PermissionDenials(); len(d) != 1 || d[0].ToolUseID != "w2" {
		t.Fatalf("denials = %+v", d)
	}
	if u := parent.SubagentUsage(); u.InputTokens < 40 || u.OutputTokens < 4 {
		t.Fatalf("parent's subagent usage = %+v", u)
	}
}
