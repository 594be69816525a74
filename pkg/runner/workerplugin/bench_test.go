package workerplugin_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// BenchmarkAgentRoundOverTheWire measures one agent job of two model calls and one tool
// round (a Read, decided by the host) run by a worker through go-plugin's gRPC
// connection and broker, against the same job run by the same worker in process, in the
// same run: wire-x-of-inproc is the ratio, wire-overhead-us/job the difference. (The
// connection is go-plugin's in-memory test connection without TLS; a launched worker
// adds AutoMTLS and a process boundary.)
func BenchmarkAgentRoundOverTheWire(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	script := []llm.ChatResponse{toolTurn("c1", "Read", map[string]string{"file_path": file}), textTurn("done")}
	inproc := worker.New(nil)
	wire := dispenseWorker(b, worker.New(nil))
	run := func(r runnerapi.Runner) time.Duration {
		start := time.Now()
		err := r.Start(context.Background(), runnerapi.Job{ID: "bench", Host: &engineHost{script: script},
			Agent: &runnerapi.AgentJob{Prompt: "read", Cwd: dir, Tools: []string{"Read"}}},
			func(ev runnerapi.Event) error {
				if ev.Kind == runnerapi.EventFailed {
					b.Fatalf("job failed: %+v", ev)
				}
				return nil
			})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	run(inproc) // warm both: the host service starts with the first agent job
	run(wire)
	var tIn, tWire time.Duration
	b.ResetTimer()
	for range b.N {
		tIn += run(inproc)
		tWire += run(wire)
	}
	b.StopTimer()
	b.ReportMetric(float64(tWire)/float64(tIn), "wire-x-of-inproc")
	b.ReportMetric(float64(tWire-tIn)/float64(b.N)/1e3, "wire-overhead-us/job")
	b.ReportMetric(float64(tIn)/float64(b.N)/1e3, "inproc-us/job")
}
