package launcher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// countingRunner records which calls a warm-up made.
type countingRunner struct {
	readLogErr error
	readLogs   int
}

func (r *countingRunner) Start(context.Context, runnerapi.Job, func(runnerapi.Event) error) error {
	return errors.New("not started in a warm-up")
}
func (r *countingRunner) Cancel(context.Context, string, string) (bool, error) { return false, nil }
func (r *countingRunner) Send(context.Context, string, string) error           { return nil }
func (r *countingRunner) ReadLog(context.Context, string, int64, int64) (runnerapi.LogPage, error) {
	r.readLogs++
	return runnerapi.LogPage{}, r.readLogErr
}

// preparingRunner is a countingRunner that can prepare.
type preparingRunner struct {
	countingRunner
	prepareErr error
	prepares   int
}

func (r *preparingRunner) Prepare(context.Context) error {
	r.prepares++
	return r.prepareErr
}

func TestWarmUpPreparesWorkersThatCan(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		runner               runnerapi.Runner
		wantErr              string
		wantPrepares, wantRL int
	}{
		{"prepared", &preparingRunner{}, "", 1, 0},
		{"prepare fails", &preparingRunner{prepareErr: errors.New("host unreachable")}, "host unreachable", 1, 0},
		{"no Prepare: one round trip", &countingRunner{readLogErr: fmt.Errorf("x: %w", runnerapi.ErrUnknownJob)}, "", 0, 1},
		{"no Prepare: the round trip fails", &countingRunner{readLogErr: errors.New("broken pipe")}, "first call: broken pipe", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := warmUp(context.Background(), &Worker{Runner: tc.runner, PID: 42})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("warmUp = %v, want error %q", err, tc.wantErr)
			}
			var prepares, readLogs int
			switch r := tc.runner.(type) {
			case *preparingRunner:
				prepares, readLogs = r.prepares, r.readLogs
			case *countingRunner:
				readLogs = r.readLogs
			}
			if prepares != tc.wantPrepares || readLogs != tc.wantRL {
				t.Fatalf("warmUp made %d Prepare and %d ReadLog calls, want %d and %d", prepares, readLogs, tc.wantPrepares, tc.wantRL)
			}
		})
	}
}

// answerHost answers an agent job's model call at once.
type answerHost struct{}

func (answerHost) Chat(context.Context, llm.ChatRequest, llm.Callbacks) (llm.ChatResponse, error) {
	return llm.ChatResponse{Message: llm.NewAssistantMessage([]llm.Part{llm.TextPart("pooled answer")}, ""),
		StopReason: llm.StopReasonEndTurn}, nil
}

func (answerHost) RunTool(context.Context, runnerapi.ToolCall, runnerapi.ToolExec) llm.ToolResult {
	return llm.ToolFailure("no tools here")
}

// A pooled worker was prepared (its host service connection made, its agent set-up
// done once); its agent jobs run over that connection, one after another.
func TestPooledWorkerRunsAgentJobs(t *testing.T) {
	p := NewPool(PoolConfig{Command: testWorker(), Ready: 1, StartTimeout: 30 * time.Second}, zap.NewNop())
	defer p.Close()
	waitIdle(t, p, 1)
	w, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Kill()
	for _, id := range []string{"first", "second"} {
		var evs []runnerapi.Event
		err := w.Runner.Start(context.Background(), runnerapi.Job{ID: id, Host: answerHost{},
			Agent: &runnerapi.AgentJob{Prompt: "go", Cwd: t.TempDir()}},
			func(ev runnerapi.Event) error { evs = append(evs, ev); return nil })
		if err != nil {
			t.Fatalf("agent job %s: %v", id, err)
		}
		if len(evs) < 2 || evs[0].Kind != runnerapi.EventStarted || evs[0].PID != w.PID {
			t.Fatalf("agent job %s: events %+v, want started in worker pid %d first", id, evs, w.PID)
		}
		if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted || last.Output != "pooled answer" {
			t.Fatalf("agent job %s ended %+v", id, last)
		}
	}
}
