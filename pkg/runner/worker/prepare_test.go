package worker

import (
	"context"
	"errors"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Prepare sets up an agent job's tools and loop and keeps nothing: no job appears, and
// a job after it runs as usual. A cancelled context prepares nothing.
func TestPrepareLeavesNoJobBehind(t *testing.T) {
	w := New(nil)
	if err := w.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadLog(context.Background(), "prepare", 0, 1); !errors.Is(err, runnerapi.ErrUnknownJob) {
		t.Fatalf("ReadLog after Prepare = %v, want ErrUnknownJob: Prepare must not register a job", err)
	}
	w.mu.Lock()
	n := len(w.jobs.byID)
	w.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d jobs in the table after Prepare, want 0", n)
	}
	host := &scriptHost{script: []llm.ChatResponse{textTurn("after prepare")}}
	evs := runJob(t, w, runnerapi.Job{ID: "prepare", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}}, nil)
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted || last.Output != "after prepare" {
		t.Fatalf("a job after Prepare ended %+v", last)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Prepare(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Prepare with a cancelled context = %v, want context.Canceled", err)
	}
}
