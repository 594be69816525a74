package launcher

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/internal/procbench"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// The spawn benchmarks (issue 12, §6) time, from the engine's side, how long a job
// takes to get going in a worker:
//   - cold: launch robota-worker (exec, handshake, mutual TLS) and start a job in it,
//     until its started event; "automtls" is the same with go-plugin's own AutoMTLS,
//     the launch this package replaced;
//   - warm: take a started worker from a Pool and start a job in it. "process" starts
//     `true` (its started event follows the worker's fork and exec of /bin/sh);
//     "roundtrip" is one RPC instead (ReadLog of an unknown job), the floor of a
//     spawn from the pool;
//   - the baseline: exec of a hello-world Go binary to its exit, built with the same
//     flags, measured in the same run, paired with every spawn.
// "agent" (cold: BenchmarkAgentSpawnCold) starts an agent job whose model call goes back
// over the host service and is answered at once. Each reports p50
// in ms and its ratio to the baseline's p50 (x-of-exec).
//
// The binaries are built with $ROBOTA_BENCH_TAGS (default grpcnotrace) and
// $ROBOTA_BENCH_CGO (default 0), as `make build` does, or robota-worker is taken
// from $ROBOTA_BIN_DIR.

type benchBinaries struct{ worker, hello string }

// benchDir holds the binaries built for the benchmarks; TestMain removes it.
var benchDir string

var benchBins = sync.OnceValues(func() (benchBinaries, error) {
	dir, err := os.MkdirTemp("", "robota-spawn-bench-")
	if err != nil {
		return benchBinaries{}, err
	}
	benchDir = dir
	bins := benchBinaries{worker: filepath.Join(dir, "robota-worker"), hello: filepath.Join(dir, "hello")}
	cfg := procbench.BuildConfig{Tags: envOr("ROBOTA_BENCH_TAGS", "grpcnotrace"), CGO: envOr("ROBOTA_BENCH_CGO", "0")}
	if binDir := os.Getenv("ROBOTA_BIN_DIR"); binDir != "" {
		bins.worker = filepath.Join(binDir, "robota-worker")
	} else if err := procbench.Build(context.Background(), "../../..", "./cmd/worker", bins.worker, cfg); err != nil {
		return bins, err
	}
	return bins, procbench.Build(context.Background(), "../../..", "./internal/procbench/hello", bins.hello, cfg)
})

func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok {
		return v
	}
	return def
}

func binaries(b *testing.B) benchBinaries {
	b.Helper()
	bins, err := benchBins()
	if err != nil {
		b.Fatal(err)
	}
	return bins
}

// paired runs spawn b.N times, each after prepare and an exec of the baseline, and
// reports both p50s and their ratio. spawn returns the duration it measured.
func paired(b *testing.B, prepare func(), spawn func(b *testing.B) time.Duration) {
	bins := binaries(b)
	execHello := func() time.Duration {
		t0 := time.Now()
		if err := exec.Command(bins.hello).Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	execHello() // page cache
	var spawns, execs []time.Duration
	b.ResetTimer()
	for range b.N {
		prepare()
		execs = append(execs, execHello())
		spawns = append(spawns, spawn(b))
	}
	b.StopTimer()
	s, e := p50(spawns), p50(execs)
	b.ReportMetric(ms(s), "p50-ms")
	b.ReportMetric(ms(e), "exec-p50-ms")
	b.ReportMetric(float64(s)/float64(e), "x-of-exec")
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("%d spawns; load average %s", b.N, strings.TrimSpace(string(load))) // the machine's noise
	}
}

func p50(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// startTrue starts `true` in r and returns once its started event arrived, with a
// function that waits for the job's end.
func startTrue(b *testing.B, r runnerapi.Runner) (wait func()) {
	return startJob(b, r, runnerapi.Job{ID: "bench", Process: &runnerapi.ProcessJob{Command: "true"}})
}

// instantHost answers an agent job's model call at once, with no tool call: the job's
// cost is the worker's and the wire's, not a model's.
type instantHost struct{}

func (instantHost) Chat(context.Context, llm.ChatRequest, llm.Callbacks) (llm.ChatResponse, error) {
	return llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("done")}},
		StopReason: llm.StopReasonEndTurn}, nil
}

func (instantHost) RunTool(context.Context, runnerapi.ToolCall, runnerapi.ToolExec) llm.ToolResult {
	return llm.ToolFailure("no tools in this benchmark")
}

// startAgent starts an agent job in r whose model call goes back to the engine over the
// host service, like startTrue.
func startAgent(b *testing.B, r runnerapi.Runner) (wait func()) {
	return startJob(b, r, runnerapi.Job{ID: "bench-agent", Host: instantHost{},
		Agent: &runnerapi.AgentJob{Prompt: "go", Cwd: os.TempDir()}})
}

// startJob starts job in r and returns once its started event arrived, with a function
// that waits for the job's end, which must be completed.
func startJob(b *testing.B, r runnerapi.Runner, job runnerapi.Job) (wait func()) {
	started := make(chan struct{})
	done := make(chan error, 1)
	var last runnerapi.Event
	go func() {
		var once sync.Once
		done <- r.Start(context.Background(), job, func(ev runnerapi.Event) error {
			last = ev
			if ev.Kind == runnerapi.EventStarted {
				once.Do(func() { close(started) })
			}
			return nil
		})
	}()
	select {
	case <-started:
	case err := <-done:
		b.Fatalf("job %s ended before it started: %v", job.ID, err)
	}
	return func() {
		if err := <-done; err != nil || last.Kind != runnerapi.EventCompleted {
			b.Fatalf("job %s ended with %v (last event %v)", job.ID, err, last.Kind)
		}
	}
}

// BenchmarkExecTinyGoBinary is the baseline: exec of a hello-world Go binary.
func BenchmarkExecTinyGoBinary(b *testing.B) {
	bins := binaries(b)
	b.ResetTimer()
	var execs []time.Duration
	for range b.N {
		t0 := time.Now()
		if err := exec.Command(bins.hello).Run(); err != nil {
			b.Fatal(err)
		}
		execs = append(execs, time.Since(t0))
	}
	b.ReportMetric(ms(p50(execs)), "p50-ms")
}

func BenchmarkWorkerSpawnCold(b *testing.B) {
	bins := binaries(b)
	for _, tc := range []struct {
		name   string
		launch func(Command) (*Worker, error)
	}{
		{"robota", func(cmd Command) (*Worker, error) {
			return LaunchContext(context.Background(), cmd, zap.NewNop(), 10*time.Second)
		}},
		{"automtls", launchAutoMTLS},
	} {
		b.Run(tc.name, func(b *testing.B) {
			paired(b, func() {}, func(b *testing.B) time.Duration {
				t0 := time.Now()
				w, err := tc.launch(Command{Path: bins.worker})
				if err != nil {
					b.Fatal(err)
				}
				wait := startTrue(b, w.Runner)
				d := time.Since(t0)
				wait()
				w.Kill()
				return d
			})
		})
	}
}

// BenchmarkAgentSpawnCold is the cold spawn of an agent job: launch robota-worker and
// start an agent job in it, until its started event (the job's host service is set up
// on the go-plugin broker first).
func BenchmarkAgentSpawnCold(b *testing.B) {
	bins := binaries(b)
	paired(b, func() {}, func(b *testing.B) time.Duration {
		t0 := time.Now()
		w, err := LaunchContext(context.Background(), Command{Path: bins.worker}, zap.NewNop(), 10*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		wait := startAgent(b, w.Runner)
		d := time.Since(t0)
		wait()
		w.Kill()
		return d
	})
}

// settle is how long a warm spawn's worker waits in the pool before the job comes.
const settle = 20 * time.Millisecond

func BenchmarkWorkerSpawnWarm(b *testing.B) {
	bins := binaries(b)
	for _, tc := range []struct {
		name string
		job  func(b *testing.B, w *Worker) (wait func())
	}{
		{"process", func(b *testing.B, w *Worker) func() { return startTrue(b, w.Runner) }},
		{"agent", func(b *testing.B, w *Worker) func() { return startAgent(b, w.Runner) }},
		{"roundtrip", func(b *testing.B, w *Worker) func() {
			if _, err := w.Runner.ReadLog(context.Background(), "none", 0, 1); !errors.Is(err, runnerapi.ErrUnknownJob) {
				b.Fatalf("ReadLog of an unknown job = %v, want ErrUnknownJob", err)
			}
			return func() {}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := NewPool(PoolConfig{Command: Command{Path: bins.worker}, Ready: 1}, zap.NewNop())
			defer p.Close()
			prepare := func() {
				for p.Idle() == 0 { // the refill after the last spawn
					time.Sleep(time.Millisecond)
				}
				// A pooled worker waits for its job; let this one's start-up and the
				// last one's exit settle, as they would between real spawns.
				time.Sleep(settle)
			}
			paired(b, prepare, func(b *testing.B) time.Duration {
				t0 := time.Now()
				w, err := p.Acquire(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				wait := tc.job(b, w)
				d := time.Since(t0)
				wait()
				w.Kill()
				return d
			})
		})
	}
}

// launchAutoMTLS is LaunchContext as it was: go-plugin's AutoMTLS, which makes P-521
// certificates on both sides at every launch.
func launchAutoMTLS(cmd Command) (*Worker, error) {
	c := exec.Command(cmd.Path, cmd.Args...)
	c.Env = workerEnv(os.Environ())
	c.SysProcAttr = workerAttrs()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  workerplugin.Handshake,
		Plugins:          workerplugin.PluginSet(nil),
		Cmd:              c,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Logger:           newHCLog(zap.NewNop(), "worker"),
	})
	proto, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, err
	}
	raw, err := proto.Dispense(workerplugin.PluginName)
	if err != nil {
		client.Kill()
		return nil, err
	}
	return &Worker{client: client, proto: proto, Runner: raw.(runnerapi.Runner)}, nil
}
