package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// The issue's §4 figures. Each benchmark measures its baseline in the same run and
// reports the ratio the target is stated in (x-of-…); the absolute figures are reported
// beside it. Sessions live in /dev/shm when it exists, so the fsync of every saved turn
// does not drown what is measured.

func benchDir(b *testing.B) string {
	b.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "robota-bench")
		if err == nil {
			b.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return b.TempDir()
}

// benchEngine serves EngineService (and health) on a unix socket.
type benchEngine struct {
	mgr    *manager.Manager
	conn   *grpc.ClientConn
	client robotav1.EngineServiceClient
	health healthpb.HealthClient
	dir    string
	sock   string
}

func startBenchEngine(b *testing.B, tune func(*manager.Config), srv robotav1.EngineServiceServer) *benchEngine {
	b.Helper()
	cfg := manager.Config{Home: b.TempDir(), Env: noEnv, StateDir: b.TempDir()}
	if tune != nil {
		tune(&cfg)
	}
	mgr, err := manager.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "rbb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "e.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	g := grpc.NewServer(ServerOptions()...)
	healthpb.RegisterHealthServer(g, health.NewServer())
	if srv == nil {
		srv = New(mgr)
	}
	robotav1.RegisterEngineServiceServer(g, srv)
	go func() { _ = g.Serve(lis) }()
	e := &benchEngine{mgr: mgr, dir: benchDir(b), sock: sock}
	e.conn = e.dial(b)
	e.client = robotav1.NewEngineServiceClient(e.conn)
	e.health = healthpb.NewHealthClient(e.conn)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = mgr.Shutdown(ctx)
		g.Stop()
	})
	return e
}

func (e *benchEngine) dial(b *testing.B, opts ...grpc.DialOption) *grpc.ClientConn {
	b.Helper()
	conn, err := grpc.NewClient("unix://"+e.sock, append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	return conn
}

func (e *benchEngine) script(b *testing.B, name, yaml string) string {
	b.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

func (e *benchEngine) createRemote(b *testing.B, script string) string {
	b.Helper()
	resp, err := e.client.CreateSession(context.Background(), &robotav1.CreateSessionRequest{Cwd: e.dir, Provider: "script", Script: script})
	if err != nil {
		b.Fatal(err)
	}
	return resp.GetSession().GetSessionId()
}

// runRemote submits prompt and reads its stream to the end; it returns the text bytes.
func runRemote(b *testing.B, c robotav1.EngineServiceClient, id, prompt string, onEvent func(*robotav1.SessionEvent)) int {
	n, _ := runRemoteCounted(b, c, id, prompt, onEvent)
	return n
}

// runRemoteCounted is runRemote that also counts the stream's messages.
func runRemoteCounted(b *testing.B, c robotav1.EngineServiceClient, id, prompt string, onEvent func(*robotav1.SessionEvent)) (n, msgs int) {
	n, msgs, err := submitAndRead(c, id, prompt, onEvent)
	if err != nil {
		b.Fatal(err)
	}
	return n, msgs
}

// submitAndRead submits prompt and reads its stream to the end; it returns the text
// bytes and the stream's messages, and fails on an error event.
func submitAndRead(c robotav1.EngineServiceClient, id, prompt string, onEvent func(*robotav1.SessionEvent)) (n, msgs int, err error) {
	stream, err := c.Submit(context.Background(), &robotav1.SubmitRequest{SessionId: id, Prompt: prompt})
	if err != nil {
		return 0, 0, err
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return n, msgs, nil
		}
		if err != nil {
			return n, msgs, err
		}
		msgs++
		for _, ev := range resp.GetEvents() {
			n += len(ev.GetTextDelta().GetText())
			if onEvent != nil {
				onEvent(ev)
			}
			if ev.GetError() != nil {
				return n, msgs, fmt.Errorf("prompt failed: %s", ev.GetError().GetMessage())
			}
		}
	}
}

// runLocal runs prompt on the live session in process, as an embedder would.
func runLocal(b *testing.B, l *manager.Live, prompt string) {
	sub := l.Subscribe()
	defer sub.Close()
	sent, err := l.Submit(prompt)
	if err != nil {
		b.Fatal(err)
	}
	for {
		ev, err := sub.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if ev.PromptID == sent.PromptID && isEnd(ev) {
			if ev.Type == interactive.EventError {
				b.Fatalf("prompt failed: %s", ev.Result.Error)
			}
			return
		}
	}
}

// BenchmarkTurnOverheadGRPC: one script turn (zero delay) through gRPC on a unix socket
// against the same turn in process; the difference is reported in units of a bare
// grpc-go unary round trip (health Check) on the same connection. Target: ≤ 1.5.
// The client runs in this process: it shares the engine's Go scheduler (see
// BenchmarkTurnOverheadGRPCClientProcess).
func BenchmarkTurnOverheadGRPC(b *testing.B) {
	e := startBenchEngine(b, nil, nil)
	raw := startBenchEngine(b, nil, &rawStream{count: 5, size: 8})
	benchTurnOverhead(b, e, &inProcessClient{b: b, calls: grpcCalls{engine: e.client, health: e.health, raw: raw.client}})
}

// BenchmarkTurnOverheadGRPCClientProcess is BenchmarkTurnOverheadGRPC with the gRPC
// client in a process of its own, as the engine's clients are (robota --engine, a
// program in another language). In one process the client's and the engine's
// goroutines share one scheduler and one network poller: whether the engine's answer
// reaches the client on the same thread or through a thread parked in epoll depends
// on which of the two sides' goroutines last left a processor idle, which splits the
// turns into a fast and a slow mode whose shares move with the host's load (runtime
// trace: 8-35 µs per wake-up of a parked thread on this 2-vCPU VM). Here every call
// crosses processes, the unary baseline included.
func BenchmarkTurnOverheadGRPCClientProcess(b *testing.B) {
	e := startBenchEngine(b, nil, nil)
	raw := startBenchEngine(b, nil, &rawStream{count: 5, size: 8})
	benchTurnOverhead(b, e, startClientProcess(b, e.sock, raw.sock))
}

// turnClient makes the gRPC calls of the turn benchmark and times them.
type turnClient interface {
	// turn submits a prompt to session id and reads its stream to the end; it returns
	// the time and the number of messages the stream took.
	turn(id string) (time.Duration, int)
	unary() time.Duration
	rawStream() time.Duration
}

func benchTurnOverhead(b *testing.B, e *benchEngine, client turnClient) {
	script := e.script(b, "turn.yaml", "turns:\n  - text: \"ok\"\n    usage: {inputTokens: 10, outputTokens: 1}\n    repeat: true\n")
	var local *manager.Live
	var remote string
	fresh := func() { // sessions of equal length on both sides, bounded history
		if local != nil {
			_ = e.mgr.Close(context.Background(), local.ID(), "other")
			_ = e.mgr.Close(context.Background(), remote, "other")
		}
		var err error
		if local, err = e.mgr.Create(context.Background(), manager.CreateOptions{Cwd: e.dir, Provider: "script", Script: script}); err != nil {
			b.Fatal(err)
		}
		remote = e.createRemote(b, script)
	}
	fresh()
	runLocal(b, local, "warm")
	client.turn(remote)
	// Medians: the turn is dominated by the session's save, whose spikes (GC, other
	// processes) would otherwise swamp a difference of a few hundred microseconds.
	var tLocal, tRemote, tUnary, tRaw []time.Duration
	msgs := 0
	order := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for i := range b.N {
		if i > 0 && i%20 == 0 {
			fresh()
		}
		// Each turn's session log is written in the background after its turn has
		// answered; it is drained (untimed) before the next measurement, so no side
		// measures the other's log work. The four measurements run in a shuffled
		// order (seeded: the same every run): each is slowed or sped up by what ran
		// just before it (a drained log leaves the caches and the idle threads in
		// another state than a bare stream), and in a fixed or rotated order one side
		// would always follow the same neighbour (a fixed order moved this figure
		// between 1.3 and 2.0).
		ops := [4]func(){
			func() {
				t0 := time.Now()
				runLocal(b, local, "hi")
				tLocal = append(tLocal, time.Since(t0))
				drainLog(b, e.mgr, local.ID())
			},
			func() {
				d, m := client.turn(remote)
				tRemote = append(tRemote, d)
				msgs += m
				drainLog(b, e.mgr, remote)
			},
			func() { tUnary = append(tUnary, client.unary()) },
			func() { tRaw = append(tRaw, client.rawStream()) },
		}
		for _, k := range order.Perm(len(ops)) {
			ops[k]()
		}
	}
	// A bare server stream of five messages (what a turn sent before its events were
	// batched: accepted + 4 events), and the messages a turn takes now.
	b.ReportMetric(float64(median(tRaw).Nanoseconds()), "raw5msg-ns/stream")
	b.ReportMetric(float64(msgs)/float64(b.N), "msgs/turn")
	mLocal, mRemote, mUnary := median(tLocal), median(tRemote), median(tUnary)
	b.ReportMetric(float64(mLocal.Nanoseconds()), "inproc-ns/turn")
	b.ReportMetric(float64(mRemote.Nanoseconds()), "grpc-ns/turn")
	b.ReportMetric(float64(mUnary.Nanoseconds()), "unary-ns/rtt")
	b.ReportMetric(float64(mRemote-mLocal)/float64(mUnary), "overhead-x-of-unary")
}

// inProcessClient makes the calls from this process.
type inProcessClient struct {
	b     *testing.B
	calls grpcCalls
}

func (c *inProcessClient) turn(id string) (time.Duration, int) {
	d, m, err := c.calls.turn(id)
	if err != nil {
		c.b.Fatal(err)
	}
	return d, m
}

func (c *inProcessClient) unary() time.Duration {
	d, err := c.calls.unary()
	if err != nil {
		c.b.Fatal(err)
	}
	return d
}

func (c *inProcessClient) rawStream() time.Duration {
	d, err := c.calls.rawStream()
	if err != nil {
		c.b.Fatal(err)
	}
	return d
}

// grpcCalls are the turn benchmark's timed calls, wherever the client runs.
type grpcCalls struct {
	engine, raw robotav1.EngineServiceClient
	health      healthpb.HealthClient
}

func (c grpcCalls) turn(id string) (time.Duration, int, error) {
	t0 := time.Now()
	_, m, err := submitAndRead(c.engine, id, "hi", nil)
	return time.Since(t0), m, err
}

func (c grpcCalls) unary() (time.Duration, error) {
	t0 := time.Now()
	_, err := c.health.Check(context.Background(), &healthpb.HealthCheckRequest{})
	return time.Since(t0), err
}

func (c grpcCalls) rawStream() (time.Duration, error) {
	t0 := time.Now()
	w, err := c.raw.Watch(context.Background(), &robotav1.WatchRequest{SessionId: "raw"})
	for err == nil {
		_, err = w.Recv()
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return time.Since(t0), err
}

// drainLog waits until the live session id's log has written what its turns queued.
func drainLog(b *testing.B, mgr *manager.Manager, id string) {
	l, err := mgr.Get(id)
	if err != nil {
		b.Fatal(err)
	}
	if a := assemble.Of(l.InteractiveSession); a != nil {
		if err := a.SyncLog(); err != nil {
			b.Fatal(err)
		}
	}
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// rawStream serves Watch as a bare grpc-go server stream: count text deltas of size bytes.
type rawStream struct {
	robotav1.UnimplementedEngineServiceServer
	count, size int
}

func (r *rawStream) Watch(_ *robotav1.WatchRequest, s robotav1.EngineService_WatchServer) error {
	text := strings.Repeat("x", r.size)
	for i := range r.count {
		ev := &robotav1.SessionEvent{SessionId: "raw", Sequence: uint64(i + 1),
			Event: &robotav1.SessionEvent_TextDelta{TextDelta: &robotav1.TextDeltaEvent{Text: text}}}
		if err := s.Send(&robotav1.WatchResponse{Event: ev}); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkTextDeltaThroughput: text deltas from the script provider to a gRPC client
// (Submit) against a raw grpc-go server stream of the same message count and sizes.
// Target: x-of-raw ≥ 0.5. x-of-inproc compares with the same prompt run in process
// (no gRPC), which tells the adapter's share from the session's.
func BenchmarkTextDeltaThroughput(b *testing.B) {
	const chunks, size = 2000, 256
	e := startBenchEngine(b, nil, nil)
	raw := startBenchEngine(b, nil, &rawStream{count: chunks, size: size})
	script := e.script(b, "flood.yaml", fmt.Sprintf("turns:\n  - text: %q\n    chunkSize: %d\n    usage: {inputTokens: 10, outputTokens: 10}\n    repeat: true\n",
		strings.Repeat("y", chunks*size), size))
	var tEngine, tText, tRaw, tLocal time.Duration
	var bytes int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		id := e.createRemote(b, script)
		local, err := e.mgr.Create(context.Background(), manager.CreateOptions{Cwd: e.dir, Provider: "script", Script: script})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		// The raw stream first, and each session closed (its log's writer drained) before
		// the next measurement: what a session leaves for its log to write in the
		// background after its turn never runs during another measurement, above all
		// not during the baseline's.
		t2 := time.Now()
		w, err := raw.client.Watch(context.Background(), &robotav1.WatchRequest{SessionId: "raw"})
		if err != nil {
			b.Fatal(err)
		}
		rawBytes := 0
		for {
			resp, err := w.Recv()
			if err != nil {
				break
			}
			rawBytes += len(resp.GetEvent().GetTextDelta().GetText())
		}
		tRaw += time.Since(t2)
		tl := time.Now()
		runLocal(b, local, "go")
		tLocal += time.Since(tl)
		b.StopTimer()
		_ = e.mgr.Close(context.Background(), local.ID(), "other")
		b.StartTimer()
		t0 := time.Now()
		var lastText time.Time
		got := runRemote(b, e.client, id, "go", func(ev *robotav1.SessionEvent) {
			if ev.GetTextDelta() != nil {
				lastText = time.Now()
			}
		})
		t1 := time.Now()
		tText += lastText.Sub(t0)
		if got != chunks*size {
			b.Fatalf("received %d bytes, want %d", got, chunks*size)
		}
		tEngine += t1.Sub(t0)
		bytes += got
		b.StopTimer()
		_ = e.mgr.Close(context.Background(), id, "other")
		b.StartTimer()
		if rawBytes != got {
			b.Fatalf("raw stream %d bytes, engine %d", rawBytes, got)
		}
	}
	mb := float64(bytes) / (1 << 20)
	b.ReportMetric(mb/tEngine.Seconds(), "engine-MiB/s")
	b.ReportMetric(mb/tRaw.Seconds(), "raw-MiB/s")
	b.ReportMetric(mb/tLocal.Seconds(), "inproc-MiB/s")
	b.ReportMetric(tRaw.Seconds()/tEngine.Seconds(), "x-of-raw")
	// Not the target, an explanation of it: the same ratio up to the answer's last byte
	// at the client, before the turn's end-of-call work (the log's flush, the fsynced
	// save, the end event). The whole turn above is what the target is stated in.
	b.ReportMetric(tRaw.Seconds()/tText.Seconds(), "to-last-text-x-of-raw")
	// What gRPC costs over the same session run in process (1 = nothing).
	b.ReportMetric(tLocal.Seconds()/tEngine.Seconds(), "x-of-inproc")
}

func rssBytes(b *testing.B) int64 {
	b.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// BenchmarkIdleSessionsRSS: the RSS one idle live session adds, over 1,000 sessions made
// through CreateSession. Target: ≤ 50 KiB each (x-of-budget ≤ 1).
func BenchmarkIdleSessionsRSS(b *testing.B) {
	const sessions, budget = 1000, 50 << 10
	// Past the engine's default limit of live sessions (256): the figure is per session.
	e := startBenchEngine(b, func(c *manager.Config) { c.MaxLive = sessions + 1 }, nil)
	script := e.script(b, "idle.yaml", "turns:\n  - text: \"ok\"\n    repeat: true\n")
	e.createRemote(b, script) // warm: code paths, caches, connection
	var perSession float64
	for range b.N {
		debug.FreeOSMemory() // what earlier iterations freed is not counted as resident
		before := rssBytes(b)
		ids := make([]string, 0, sessions)
		for range sessions {
			ids = append(ids, e.createRemote(b, script))
		}
		runtime.GC()
		after := rssBytes(b)
		perSession = float64(after-before) / sessions
		b.StopTimer()
		for _, id := range ids {
			_ = e.mgr.Close(context.Background(), id, "other")
		}
		b.StartTimer()
	}
	b.ReportMetric(perSession/1024, "KiB/session")
	b.ReportMetric(perSession/budget, "x-of-budget")
}

// loadRun streams one prompt in each of n sessions at once and returns the p99 latency
// (publish → client receipt) of the events and the text throughput, both over the clients
// that read. With stall, one more client watches a session and reads nothing.
func loadRun(b *testing.B, e *benchEngine, script string, n int, stall bool) (p99 time.Duration, mibps float64) {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = e.createRemote(b, script)
	}
	if stall {
		conn := e.dial(b, grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if _, err := robotav1.NewEngineServiceClient(conn).Watch(ctx, &robotav1.WatchRequest{SessionId: ids[0]}); err != nil {
			b.Fatal(err)
		}
	}
	var mu sync.Mutex
	var lat []time.Duration
	var total int
	var wg sync.WaitGroup
	start := time.Now()
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			got := runRemote(b, e.client, id, "go", func(ev *robotav1.SessionEvent) {
				mine = append(mine, time.Since(ev.GetTimestamp().AsTime()))
			})
			mu.Lock()
			lat, total = append(lat, mine...), total+got
			mu.Unlock()
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	for _, id := range ids {
		_ = e.mgr.Close(context.Background(), id, "other")
	}
	slices.Sort(lat)
	return lat[len(lat)*99/100], float64(total) / (1 << 20) / wall.Seconds()
}

// BenchmarkLoadWithStalledClient: 100 sessions streaming at once, with and without one
// client that reads nothing. Targets: p99-x-of-unstalled ≤ 1.5 and
// throughput-x-of-unstalled ≥ 1/1.5.
func BenchmarkLoadWithStalledClient(b *testing.B) {
	const sessions, chunks, size = 100, 200, 512
	e := startBenchEngine(b, nil, nil)
	script := e.script(b, "load.yaml", fmt.Sprintf("turns:\n  - text: %q\n    chunkSize: %d\n    usage: {inputTokens: 10, outputTokens: 10}\n    repeat: true\n",
		strings.Repeat("z", chunks*size), size))
	var p99Base, p99Stall time.Duration
	var tpBase, tpStall float64
	for range b.N {
		p, t := loadRun(b, e, script, sessions, false)
		p99Base, tpBase = p99Base+p, tpBase+t
		p, t = loadRun(b, e, script, sessions, true)
		p99Stall, tpStall = p99Stall+p, tpStall+t
	}
	n := float64(b.N)
	b.ReportMetric(float64(p99Base.Microseconds())/n, "p99-us")
	b.ReportMetric(float64(p99Stall.Microseconds())/n, "p99-stalled-us")
	b.ReportMetric(tpBase/n, "MiB/s")
	b.ReportMetric(tpStall/n, "stalled-MiB/s")
	b.ReportMetric(float64(p99Stall)/float64(p99Base), "p99-x-of-unstalled")
	b.ReportMetric(tpStall/tpBase, "throughput-x-of-unstalled")
}
