package assemble

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// A background command is a task: its state changes reach the session's subscribers as
// background_task events, and its final snapshot is saved with the session's record.
func TestBackgroundCommandIsATaskSavedWithTheSession(t *testing.T) {
	dir := t.TempDir()
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: bg, name: Bash, input: {command: "echo out", run_in_background: true}}]
  - text: "started"
`)
	s := newTestSession(t, p, Options{Cwd: dir, PermissionMode: "bypassPermissions", Runner: worker.New(nil)})
	sub := s.Subscribe()
	sent, _ := s.Submit("go")
	var end *TaskState
	promptDone := false
	until(t, sub, func(ev Event) bool {
		if ends(sent.PromptID)(ev) {
			promptDone = true
		}
		if ev.Type == EventBackgroundTask && ev.Task.State != nil && ev.Task.State.Status.Terminal() {
			end = ev.Task.State
		}
		return promptDone && end != nil
	})
	if end.TaskID != "bash_1" || end.Status != TaskCompleted || end.Kind != TaskProcess || end.ParentToolUseID != "bg" {
		t.Fatalf("final task state %+v", end)
	}
	id := s.ID()
	if err := s.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	rec, err := store.NewFileStore(store.ProjectDir(dir), store.Options{}).Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.BackgroundTasks) != 1 {
		t.Fatalf("record holds %d tasks, want 1", len(rec.BackgroundTasks))
	}
	var saved tasks.Task
	if err := json.Unmarshal(rec.BackgroundTasks[0], &saved); err != nil || saved.ID != "bash_1" || saved.State != tasks.StateCompleted {
		t.Fatalf("saved task %+v (%v)", saved, err)
	}
}

// A background command past the session's output limit fails naming the watchdog, and
// what it wrote so far stays readable.
func TestBackgroundCommandOutputLimit(t *testing.T) {
	dir := t.TempDir()
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: bg, name: Bash, input: {command: "yes robota | head -c 200000; sleep 30", run_in_background: true}}]
  - text: "started"
`)
	s := newTestSession(t, p, Options{Cwd: dir, PermissionMode: "bypassPermissions", Runner: worker.New(nil),
		TaskWatchdog: tasks.Watchdog{OutputLimit: 50000}})
	sub := s.Subscribe()
	if _, err := s.Submit("go"); err != nil {
		t.Fatal(err)
	}
	var end *TaskState
	until(t, sub, func(ev Event) bool {
		if ev.Type == EventBackgroundTask && ev.Task.State != nil && ev.Task.State.Status.Terminal() {
			end = ev.Task.State
		}
		return end != nil
	})
	if end.Status != TaskFailed || !strings.Contains(end.Error, "output_limit") {
		t.Fatalf("task ended %s: %q, want failed by the output_limit watchdog", end.Status, end.Error)
	}
	page, err := Of(s).Tasks().ReadLog(context.Background(), end.TaskID, 0, 1000)
	if err != nil || !strings.HasPrefix(string(page.Data), "robota\nrobota\n") {
		t.Fatalf("the output so far is not readable: %q, %v", page.Data, err)
	}
}
