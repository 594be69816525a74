package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/internal/procbench"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/pool"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// The benchmarks measure remote dispatch beside baselines taken in the same run:
//
//   - BenchmarkDispatchLatency: a remote background command, submit → process started,
//     through the dispatcher, a host agent and its local robota-worker, against a bare
//     JetStream round trip (publish, pull, ack on a work-queue stream) plus the same
//     command started by a local worker pool as the engine runs it today. Reported:
//     p50s and x-of-baseline (target ≤ 2).
//   - BenchmarkThroughput: 1,000 short jobs over 3 host agents (their local runner
//     answers at once, so the dispatch path alone is measured) against 1,000 bare
//     messages of a job's size published and consumed (and acked) by 3 pull consumers:
//     the same count of work-queue messages. Each side's clock stops when its stream is
//     empty, so the server has taken every ack and removed every message. Bare
//     consumers ack faster than the server applies acks: stopped at its last callback,
//     the bare side's clock left 300 to 900 of its 1,000 messages in the stream and 5 to
//     7 ms of its server work to run in the jobs' time (the jobs' side left about 50
//     and 2 ms), and it counted 3.5 server messages a bare message where publish,
//     publish ack, delivery and ack make 4. The Makefile runs it 40 times (paired
//     rounds): the two p50s of ~18 rounds moved a run's figure by ±12 points on a
//     2-core machine, of 40 by ±4. Reported: jobs/s, msgs/s, pct-of-bare
//     (target ≥ 50), the process's CPU time per job and per bare message, and the
//     messages the server took in and sent out per job and per bare message.
//     The baseline is the cheapest use of the same stream kind: a file-stored
//     work-queue stream (as the jobs'), published with PublishAsync (no Nats-Msg-Id,
//     as the jobs now), consumed with Consume's prefetch (500 a pull) on the
//     publisher's own connection, acked from the callback. A job costs beyond it what
//     the contract asks: the engine's claim answer (an attempt number, refusals), its
//     start and result back to the engine, and hosts that pull no more than their
//     free slots, on a connection each.
//   - BenchmarkFailover: a job whose host dies (its connection closed), to its process
//     started again by a real robota-worker on another host, against the heartbeat
//     timeout + 1 s. Reported: failover-ms and x-of-budget (target ≤ 1).
//
// robota-worker is built as `make build` builds it ($ROBOTA_BENCH_TAGS, $ROBOTA_BENCH_CGO)
// or taken from $ROBOTA_BIN_DIR.

var benchWorker = sync.OnceValues(func() (string, error) {
	if dir := os.Getenv("ROBOTA_BIN_DIR"); dir != "" {
		return filepath.Join(dir, "robota-worker"), nil
	}
	dir, err := os.MkdirTemp("", "robota-remote-bench-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "robota-worker")
	cfg := procbench.BuildConfig{Tags: envOr("ROBOTA_BENCH_TAGS", "grpcnotrace"), CGO: envOr("ROBOTA_BENCH_CGO", "0")}
	return path, procbench.Build(context.Background(), "../../..", "./cmd/worker", path, cfg)
})

func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok {
		return v
	}
	return def
}

// localPool is the engine's local runner over robota-worker: a warm worker for agent
// jobs, a shared one for commands.
func localPool(b *testing.B) *pool.Pool {
	b.Helper()
	path, err := benchWorker()
	if err != nil {
		b.Fatal(err)
	}
	warm := launcher.NewPool(launcher.PoolConfig{Command: launcher.Command{Path: path}, Ready: 1}, zap.NewNop())
	p := pool.New(pool.FromPool(warm))
	b.Cleanup(func() {
		_ = p.Close()
		warm.Close()
	})
	return p
}

func p50(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// untilStarted runs job on r and returns how long it took to report the process started.
func untilStarted(b *testing.B, r runnerapi.Runner, job runnerapi.Job) time.Duration {
	b.Helper()
	t0 := time.Now()
	var took time.Duration
	err := r.Start(context.Background(), job, func(ev runnerapi.Event) error {
		if ev.Kind == runnerapi.EventStarted && took == 0 {
			took = time.Since(t0)
		}
		if ev.Kind == runnerapi.EventFailed {
			return fmt.Errorf("job failed: %s", ev.Error)
		}
		return nil
	})
	if err != nil || took == 0 {
		b.Fatalf("job %s: started after %s, %v", job.ID, took, err)
	}
	return took
}

// bareStream makes a work-queue stream and pull consumer beside the job stream.
func bareStream(b *testing.B, js jetstream.JetStream, name string) jetstream.Consumer {
	b.Helper()
	ctx := context.Background()
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{"bench." + name},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage}); err != nil {
		b.Fatal(err)
	}
	c, err := js.CreateOrUpdateConsumer(ctx, name, jetstream.ConsumerConfig{Durable: "c", AckPolicy: jetstream.AckExplicitPolicy, MaxAckPending: 100000})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkDispatchLatency(b *testing.B) {
	ns := startServer(b)
	d := newDispatcher(b, ns, DispatcherConfig{JobTimeout: 5 * time.Second})
	runAgent(b, ns, "h1", localPool(b), nil, nil)
	local := localPool(b)
	cons := bareStream(b, d.js, "BARE")
	ctx := context.Background()
	bare := func() time.Duration {
		t0 := time.Now()
		if _, err := d.js.Publish(ctx, "bench.BARE", []byte(`{"process":{"command":"true"}}`)); err != nil {
			b.Fatal(err)
		}
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		for m := range batch.Messages() {
			_ = m.Ack()
		}
		return time.Since(t0)
	}
	job := func(i int) runnerapi.Job {
		return runnerapi.Job{ID: fmt.Sprintf("bash_%d", i), Process: &runnerapi.ProcessJob{Command: "true"}}
	}
	// Warm: each side's shared worker is running before the first timed job.
	bare()
	untilStarted(b, local, job(-1))
	untilStarted(b, d, job(-2))
	var bares, locals, remotes []time.Duration
	b.ResetTimer()
	for i := range b.N {
		bares = append(bares, bare())
		locals = append(locals, untilStarted(b, local, job(2*i)))
		remotes = append(remotes, untilStarted(b, d, job(2*i+1)))
	}
	b.StopTimer()
	base := p50(bares) + p50(locals)
	b.ReportMetric(float64(p50(remotes).Microseconds())/1000, "remote-p50-ms")
	b.ReportMetric(float64(p50(bares).Microseconds())/1000, "bare-js-p50-ms")
	b.ReportMetric(float64(p50(locals).Microseconds())/1000, "local-p50-ms")
	b.ReportMetric(float64(p50(remotes))/float64(base), "x-of-baseline")
}

func BenchmarkThroughput(b *testing.B) {
	const jobs, hosts = 1000, 3
	ns := startServer(b)
	d := newDispatcher(b, ns, DispatcherConfig{JobTimeout: 5 * time.Second})
	for i := range hosts {
		nc := connect(b, ns, fmt.Sprintf("h%d", i))
		a := NewAgent(AgentConfig{Conn: nc, Name: fmt.Sprintf("h%d", i), Slots: 128, JobTimeout: 5 * time.Second, Runner: instant{}, Log: zap.NewNop()})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { _ = a.Run(ctx) }()
		b.Cleanup(cancel)
	}
	cons := bareStream(b, d.js, "BARET")
	ctx := context.Background()
	bareJS, err := d.js.Stream(ctx, "BARET")
	if err != nil {
		b.Fatal(err)
	}
	// The bare messages are the size of a job's message, so only the dispatch differs.
	body, err := json.Marshal(wire.FromRunner(wire.NewJobID(), runnerapi.Job{Process: &runnerapi.ProcessJob{Command: "ok:x"}}, nil))
	if err != nil {
		b.Fatal(err)
	}
	// Three consumers, as three hosts would pull, live for the whole benchmark as the
	// hosts do: a consumer stopped between rounds left its pull waiting on the server,
	// which handed the next round's messages to its gone inbox.
	var mu sync.Mutex
	taken, all := 0, make(chan struct{})
	for range hosts {
		cc, err := cons.Consume(func(m jetstream.Msg) {
			_ = m.Ack()
			mu.Lock()
			if taken++; taken == jobs {
				close(all)
			}
			mu.Unlock()
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(cc.Stop)
	}
	bare := func() time.Duration {
		mu.Lock()
		taken, all = 0, make(chan struct{})
		done := all
		mu.Unlock()
		t0 := time.Now()
		for range jobs {
			if _, err := d.js.PublishAsync("bench.BARET", body); err != nil {
				b.Fatal(err)
			}
		}
		<-d.js.PublishAsyncComplete()
		<-done
		untilEmpty(b, bareJS, 250*time.Microsecond)
		return time.Since(t0)
	}
	remote := func(round int) time.Duration {
		t0 := time.Now()
		var wg sync.WaitGroup
		for i := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				job := runnerapi.Job{ID: fmt.Sprintf("bash_%d_%d", round, i), Process: &runnerapi.ProcessJob{Command: "ok:x"}}
				done := false
				err := d.Start(ctx, job, func(ev runnerapi.Event) error {
					done = done || ev.Kind == runnerapi.EventCompleted
					return nil
				})
				if err != nil || !done {
					b.Errorf("job %s: %v, completed %v", job.ID, err, done)
				}
			}()
		}
		wg.Wait()
		untilEmpty(b, d.jobs, 250*time.Microsecond)
		return time.Since(t0)
	}
	// msgs counts the messages the server took in and sent out: what a job costs the
	// server beside a bare work-queue message.
	msgs := func() int64 {
		vz, err := ns.Varz(nil)
		if err != nil {
			b.Fatal(err)
		}
		return vz.InMsgs + vz.OutMsgs
	}
	var bares, remotes []time.Duration
	var bareCPU, remoteCPU time.Duration
	var bareMsgs, remoteMsgs int64
	b.ResetTimer()
	for i := range b.N {
		c0, m0 := cpuTime(), msgs()
		bares = append(bares, bare())
		c1, m1 := cpuTime(), msgs()
		remotes = append(remotes, remote(i))
		bareCPU, remoteCPU = bareCPU+c1-c0, remoteCPU+cpuTime()-c1
		bareMsgs, remoteMsgs = bareMsgs+m1-m0, remoteMsgs+msgs()-m1
	}
	b.StopTimer()
	b.ReportMetric(float64(remoteMsgs)/float64(b.N*jobs), "server-msgs/job")
	b.ReportMetric(float64(bareMsgs)/float64(b.N*jobs), "server-msgs/bare-msg")
	jr, br := float64(jobs)/p50(remotes).Seconds(), float64(jobs)/p50(bares).Seconds()
	b.ReportMetric(jr, "jobs/s")
	b.ReportMetric(br, "bare-msgs/s")
	b.ReportMetric(100*jr/br, "pct-of-bare")
	// CPU time of the whole process (server, engine and hosts) per job and per bare
	// message: less noisy than wall time on a shared machine, and what bounds the
	// throughput once the round trips overlap.
	b.ReportMetric(float64(remoteCPU.Microseconds())/float64(b.N*jobs), "cpu-us/job")
	b.ReportMetric(float64(bareCPU.Microseconds())/float64(b.N*jobs), "bare-cpu-us/msg")
}

// instant is the hosts' local runner in BenchmarkThroughput: it starts and completes
// each job at once and keeps nothing (the tests' shell records every job it ran, whose
// bookkeeping for 1,000s of jobs is no part of dispatch).
type instant struct{}

func (instant) Start(_ context.Context, _ runnerapi.Job, emit func(runnerapi.Event) error) error {
	_ = emit(runnerapi.Event{Kind: runnerapi.EventStarted, PID: 4242})
	return emit(runnerapi.Event{Kind: runnerapi.EventCompleted, Output: "x"})
}
func (instant) Cancel(context.Context, string, string) (bool, error) { return false, nil }
func (instant) Send(context.Context, string, string) error           { return nil }
func (instant) ReadLog(context.Context, string, int64, int64) (runnerapi.LogPage, error) {
	return runnerapi.LogPage{}, errors.New("no log")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkFailover(b *testing.B) {
	const timeout = time.Second
	ns := startServer(b)
	d := newDispatcher(b, ns, DispatcherConfig{JobTimeout: timeout})
	spare := localPool(b) // the job runs again in a real robota-worker, as on a host
	var took []time.Duration
	for i := range b.N {
		nc1 := connect(b, ns, fmt.Sprintf("dying%d", i%100))
		a1 := NewAgent(AgentConfig{Conn: nc1, Name: fmt.Sprintf("dying%d", i%100), Slots: 1, JobTimeout: timeout, Runner: newShell(), Log: zap.NewNop()})
		ctx1, cancel1 := context.WithCancel(context.Background())
		go func() { _ = a1.Run(ctx1) }()
		ev := newEvents()
		stopJob, done := start(d, processJob(fmt.Sprintf("bash_%d", i), "sleep 30"), ev)
		ev.next(b, runnerapi.EventStarted)
		nc2 := connect(b, ns, fmt.Sprintf("spare%d", i%100))
		a2 := NewAgent(AgentConfig{Conn: nc2, Name: fmt.Sprintf("spare%d", i%100), Slots: 1, JobTimeout: timeout, Runner: spare, Log: zap.NewNop()})
		ctx2, cancel2 := context.WithCancel(context.Background())
		go func() { _ = a2.Run(ctx2) }()
		t0 := time.Now()
		nc1.Close() // the host dies: no more progress acks, no hand-back
		ev.next(b, runnerapi.EventStarted)
		took = append(took, time.Since(t0))
		stopJob()
		<-done
		cancel1()
		cancel2()
	}
	b.ReportMetric(float64(p50(took).Milliseconds()), "failover-ms")
	b.ReportMetric(float64(p50(took))/float64(timeout+time.Second), "x-of-budget")
}
