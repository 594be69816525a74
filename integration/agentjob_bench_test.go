package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// roundHost answers an agent job's first model call with a Read of file and its second
// with text, and allows every tool call: one model/tool round and the answer.
type roundHost struct {
	file  string
	calls int
}

func (h *roundHost) Chat(_ context.Context, _ llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	h.calls++
	if h.calls == 1 {
		input, _ := json.Marshal(map[string]string{"file_path": h.file})
		return llm.ChatResponse{StopReason: llm.StopReasonToolUse, Message: llm.NewAssistantMessage(
			[]llm.Part{llm.ToolUsePart(llm.ToolCall{ID: "c1", Name: "Read", Input: input})}, "")}, nil
	}
	cb.TextDelta("done")
	return llm.ChatResponse{StopReason: llm.StopReasonEndTurn, Message: llm.NewAssistantMessage([]llm.Part{llm.TextPart("done")}, "")}, nil
}

func (h *roundHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	return exec(ctx, call.Input)
}

// BenchmarkAgentRoundInWorkerProcess: one agent job (two model calls through the
// engine's host service, one Read decided by the engine and run by the worker) in a
// launched robota-worker (AutoMTLS, warm: launched and its host service started before
// the timer) against the same job run in process by the same code, in the same run.
func BenchmarkAgentRoundInWorkerProcess(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	w, err := launcher.Launch(launcher.Command{Path: filepath.Join(binDir, "robota-worker")}, zap.NewNop(), 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Kill)
	inproc := worker.New(nil)
	run := func(r runnerapi.Runner) time.Duration {
		start := time.Now()
		var last runnerapi.Event
		err := r.Start(context.Background(), runnerapi.Job{ID: "bench", Host: &roundHost{file: file},
			Agent: &runnerapi.AgentJob{Prompt: "read", Cwd: dir, Tools: []string{"Read"}}},
			func(ev runnerapi.Event) error { last = ev; return nil })
		if err != nil || last.Kind != runnerapi.EventCompleted {
			b.Fatalf("job ended %+v, %v", last, err)
		}
		return time.Since(start)
	}
	run(inproc)
	run(w.Runner)
	var tIn, tWorker time.Duration
	b.ResetTimer()
	for range b.N {
		tIn += run(inproc)
		tWorker += run(w.Runner)
	}
	b.StopTimer()
	b.ReportMetric(float64(tWorker)/float64(tIn), "worker-x-of-inproc")
	b.ReportMetric(float64(tWorker-tIn)/float64(b.N)/1e3, "worker-overhead-us/job")
	b.ReportMetric(float64(tIn)/float64(b.N)/1e3, "inproc-us/job")
}
