package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/natsserver"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

const (
	testTimeout    = time.Second
	enginePassword = "engine-pw"
)

// testHosts are the host agents the test server has users for, each with its own
// password (hostPassword).
func testHosts() map[string]string {
	out := map[string]string{}
	for _, n := range []string{"h1", "h2", "h7", "plain", "gpu", "mallory"} {
		out[n] = hostPassword(n)
	}
	for i := range 100 {
		for _, p := range []string{"h", "dying", "spare"} {
			n := fmt.Sprintf("%s%d", p, i)
			out[n] = hostPassword(n)
		}
	}
	return out
}

func hostPassword(name string) string { return "pw-" + name }

func startServer(t testing.TB) *server.Server {
	t.Helper()
	ns, err := natsserver.Start(natsserver.Config{Listen: "127.0.0.1:0", StoreDir: t.TempDir(),
		EnginePassword: enginePassword, Hosts: testHosts()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns
}

// connect connects as the engine (host "") or as host agent host, with its own user
// and inbox prefix (HostOptions).
func connect(t testing.TB, ns *server.Server, host string) *nats.Conn {
	t.Helper()
	opts := []nats.Option{nats.UserInfo(natsserver.EngineUser, enginePassword)}
	if host != "" {
		opts = append(HostOptions(host), nats.UserInfo(host, hostPassword(host)))
	}
	nc, err := Connect(ConnConfig{URLs: ns.ClientURL()}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func newDispatcher(t testing.TB, ns *server.Server, cfg DispatcherConfig) *Dispatcher {
	t.Helper()
	cfg.Conn = connect(t, ns, "")
	if cfg.JobTimeout == 0 {
		cfg.JobTimeout = testTimeout
	}
	d, err := NewDispatcher(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// untilEmpty returns once the work-queue stream s holds no message (the server has
// applied every ack of the messages put on it), looking every interval; it fails t
// after 10 s.
func untilEmpty(t testing.TB, s jetstream.Stream, every time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(every) {
		info, err := s.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream %s still holds %d messages after 10 s", info.Config.Name, info.State.Msgs)
		}
	}
}

// runAgent runs a host agent named name over runner until the returned stop is called
// (stop waits for Run to return and reports its error).
func runAgent(t testing.TB, ns *server.Server, name string, runner runnerapi.Runner, log *zap.Logger, labels map[string]string) (stop func() error, nc *nats.Conn) {
	t.Helper()
	nc = connect(t, ns, name)
	if log == nil {
		log = zap.NewNop()
	}
	a := NewAgent(AgentConfig{Conn: nc, Name: name, Labels: labels, Slots: 2, JobTimeout: testTimeout, Runner: runner, Log: log})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				err = errors.New("the agent did not stop")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop, nc
}

// shell is a local runner for the tests. A process job's command says what it does:
// "ok:TEXT" prints TEXT and completes; "sleep:DURATION:TEXT" completes with TEXT after
// DURATION; "hang" runs until cancelled. An agent job asks
// its Host one model call and one tool call, and completes with what they returned.
type shell struct {
	mu      sync.Mutex
	started []string // job ids, in start order
	cancels map[string]chan string
	execs   int
	reasons []string // why jobs were cancelled
	// callSandboxes are the command sandboxes the engine sent with its execute steps
	// (nil where it sent none).
	callSandboxes []*runnerapi.Sandbox
	// callSearches are what the engine told its execute steps' searches to leave out.
	callSearches [][]string
}

func newShell() *shell { return &shell{cancels: map[string]chan string{}} }

func (s *shell) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	cancel := make(chan string, 1)
	s.mu.Lock()
	s.started = append(s.started, job.ID)
	s.cancels[job.ID] = cancel
	s.mu.Unlock()
	_ = emit(runnerapi.Event{Kind: runnerapi.EventStarted, PID: 4242})
	if a := job.Agent; a != nil {
		var deltas []string
		resp, err := job.Host.Chat(ctx, llm.ChatRequest{}, llm.Callbacks{OnTextDelta: func(d string) { deltas = append(deltas, d) }})
		if err != nil {
			return emit(runnerapi.Event{Kind: runnerapi.EventFailed, Error: err.Error()})
		}
		res := job.Host.RunTool(ctx, runnerapi.ToolCall{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"x"}`)},
			func(ctx context.Context, input json.RawMessage) llm.ToolResult {
				sb, _ := runnerapi.SandboxFrom(ctx)
				s.mu.Lock()
				s.execs++
				s.callSandboxes = append(s.callSandboxes, sb)
				s.callSearches = append(s.callSearches, runnerapi.SearchExcludeFrom(ctx))
				s.mu.Unlock()
				return llm.ToolSuccess("ran " + string(input))
			})
		return emit(runnerapi.Event{Kind: runnerapi.EventCompleted,
			Output: strings.Join(deltas, "") + "|" + string(resp.StopReason) + "|" + res.Output})
	}
	cmd := job.Process.Command
	if rest, ok := strings.CutPrefix(cmd, "sleep:"); ok { // "sleep:DURATION:TEXT": TEXT after DURATION
		d, text, _ := strings.Cut(rest, ":")
		wait, _ := time.ParseDuration(d)
		select {
		case <-time.After(wait):
			return emit(runnerapi.Event{Kind: runnerapi.EventCompleted, Output: text})
		case reason := <-cancel:
			return emit(runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: reason})
		case <-ctx.Done():
			return emit(runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: "context"})
		}
	}
	if text, ok := strings.CutPrefix(cmd, "ok:"); ok {
		_ = emit(runnerapi.Event{Kind: runnerapi.EventTextDelta, Text: text})
		return emit(runnerapi.Event{Kind: runnerapi.EventCompleted, Output: text})
	}
	select {
	case reason := <-cancel:
		return emit(runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: reason})
	case <-ctx.Done():
		return emit(runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: "context"})
	}
}

func (s *shell) Cancel(_ context.Context, jobID, reason string) (bool, error) {
	s.mu.Lock()
	ch := s.cancels[jobID]
	s.reasons = append(s.reasons, reason)
	s.mu.Unlock()
	if ch == nil {
		return false, nil
	}
	select {
	case ch <- reason:
	default:
	}
	return true, nil
}

func (s *shell) Send(context.Context, string, string) error { return nil }
func (s *shell) ReadLog(context.Context, string, int64, int64) (runnerapi.LogPage, error) {
	return runnerapi.LogPage{}, errors.New("no log")
}

func (s *shell) startedJobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.started...)
}

// events collects a job's events as the task manager would get them.
type events struct {
	mu  sync.Mutex
	evs []runnerapi.Event
	ch  chan runnerapi.Event
}

func newEvents() *events { return &events{ch: make(chan runnerapi.Event, 100)} }

func (e *events) emit(ev runnerapi.Event) error {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
	e.ch <- ev
	return nil
}

// next waits for the next event of kind.
func (e *events) next(t testing.TB, kind runnerapi.EventKind) runnerapi.Event {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev := <-e.ch:
			if ev.Kind == kind {
				return ev
			}
		case <-timeout:
			e.mu.Lock()
			defer e.mu.Unlock()
			t.Fatalf("no %v event; got %+v", kind, e.evs)
		}
	}
}

func (e *events) all() []runnerapi.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]runnerapi.Event(nil), e.evs...)
}

// start runs job on d in the background; the returned channel gets Start's error.
func start(d *Dispatcher, job runnerapi.Job, ev *events) (context.CancelFunc, <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Start(ctx, job, ev.emit) }()
	return cancel, done
}

func processJob(id, cmd string) runnerapi.Job {
	return runnerapi.Job{ID: id, Process: &runnerapi.ProcessJob{Command: cmd, Env: map[string]string{"SECRET_TOKEN": "s3cr3t"}}}
}

func TestProcessJobRunsOnAHostAgent(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	sh := newShell()
	runAgent(t, ns, "h1", sh, nil, nil)
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "ok:hello"), ev)
	st := ev.next(t, runnerapi.EventStarted)
	if st.Host != "h1" || st.Attempt != 1 || st.PID != 4242 || st.JobID != "bash_1" {
		t.Fatalf("started %+v, want host h1, attempt 1, pid 4242 under the task's id", st)
	}
	if c := ev.next(t, runnerapi.EventCompleted); c.Output != "hello" {
		t.Fatalf("completed %+v", c)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range ev.all() {
		kinds = append(kinds, e.Kind.String())
	}
	if got := strings.Join(kinds, ","); got != "started,text_delta,completed" {
		t.Fatalf("events %s", got)
	}
	if ids := sh.startedJobs(); len(ids) != 1 || !wire.ValidJobID(ids[0]) {
		t.Fatalf("the host ran %v, want one job under an unguessable id", ids)
	}
}

// The job message holds no environment: a process job's settings env stays in the engine.
func TestJobMessageHoldsNoEnvironment(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	watcher := connect(t, ns, "")
	sub, err := watcher.SubscribeSync(wire.JobsSubject)
	if err != nil {
		t.Fatal(err)
	}
	if err := watcher.Flush(); err != nil {
		t.Fatal(err)
	}
	ev := newEvents()
	cancel, _ := start(d, processJob("bash_1", "ok:x"), ev)
	defer cancel()
	msg, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(msg.Data); strings.Contains(s, "SECRET_TOKEN") || strings.Contains(s, "s3cr3t") || !strings.Contains(s, "ok:x") {
		t.Fatalf("job message %s: want the command and no environment", s)
	}
}

// A remote subagent's model call and tool decision come back to the engine's Host; the
// tool runs once, on the host, with the input the engine settled on.
func TestAgentJobCallsBackToTheEngine(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	sh := newShell()
	runAgent(t, ns, "h1", sh, nil, nil)
	host := &engineHost{}
	ev := newEvents()
	_, done := start(d, runnerapi.Job{ID: "agent-1", Agent: &runnerapi.AgentJob{Prompt: "p"}, Host: host}, ev)
	c := ev.next(t, runnerapi.EventCompleted)
	if want := "Hello, world|end_turn|ran {\"command\":\"rewritten\"}"; c.Output != want {
		t.Fatalf("output %q, want %q", c.Output, want)
	}
	<-done
	if sh.execs != 1 || host.chats != 1 || host.tools != 1 {
		t.Fatalf("execs %d chats %d tools %d, want one each", sh.execs, host.chats, host.tools)
	}
}

type engineHost struct {
	mu           sync.Mutex
	chats, tools int
	// callSandbox is sent with the execute step (the engine's walk as the call runs).
	callSandbox *runnerapi.Sandbox
	// callSearch is sent with the execute step (what a search leaves out as it runs).
	callSearch []string
}

func (h *engineHost) Chat(_ context.Context, _ llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	h.mu.Lock()
	h.chats++
	h.mu.Unlock()
	cb.TextDelta("Hello, ")
	cb.TextDelta("world")
	return llm.ChatResponse{StopReason: llm.StopReasonEndTurn}, nil
}

func (h *engineHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	h.mu.Lock()
	h.tools++
	h.mu.Unlock()
	ctx = runnerapi.WithSearchExclude(runnerapi.WithSandbox(ctx, h.callSandbox), h.callSearch)
	return exec(ctx, json.RawMessage(`{"command":"rewritten"}`))
}

// runToCompletion runs job on d and waits for its completed event and for Start to return.
func runToCompletion(t *testing.T, d *Dispatcher, job runnerapi.Job) {
	t.Helper()
	ev := newEvents()
	_, done := start(d, job, ev)
	ev.next(t, runnerapi.EventCompleted)
	<-done
}

// The command sandbox the engine sends with a call's execute step reaches the host
// agent's runner whole; an engine that sends none leaves the job's own in force.
func TestAgentJobCallCarriesItsSandbox(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	sh := newShell()
	runAgent(t, ns, "h1", sh, nil, nil)
	for i, sb := range []*runnerapi.Sandbox{
		{Hide: []string{"/p/secret.txt"}, ReadOnly: []string{"/p/.git/hooks"}, ExcludedCommands: []string{"docker *"},
			Network: &runnerapi.SandboxNetwork{Allow: []string{"github.com"}}},
		nil,
	} {
		runToCompletion(t, d, runnerapi.Job{ID: fmt.Sprintf("agent-sb-%d", i), Agent: &runnerapi.AgentJob{Prompt: "p"},
			Host: &engineHost{callSandbox: sb}, Sandbox: &runnerapi.Sandbox{}})
		sh.mu.Lock()
		got := sh.callSandboxes[len(sh.callSandboxes)-1]
		sh.mu.Unlock()
		if !reflect.DeepEqual(got, sb) {
			t.Errorf("the call's sandbox %+v arrived as %+v", sb, got)
		}
	}
}

// What the engine tells a call's search to leave out, walked as the call runs, reaches
// the host agent's runner whole; an engine that sends nothing leaves the job's list alone.
func TestAgentJobCallCarriesItsSearchExclusions(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	sh := newShell()
	runAgent(t, ns, "h1", sh, nil, nil)
	for i, paths := range [][]string{{"/p/secret.txt", "/p/.robota/worktrees/a/secret.txt"}, nil} {
		runToCompletion(t, d, runnerapi.Job{ID: fmt.Sprintf("agent-search-%d", i), Agent: &runnerapi.AgentJob{Prompt: "p"},
			Host: &engineHost{callSearch: paths}})
		sh.mu.Lock()
		got := sh.callSearches[len(sh.callSearches)-1]
		sh.mu.Unlock()
		if !reflect.DeepEqual(got, paths) {
			t.Errorf("the call's exclusions %q arrived as %q", paths, got)
		}
	}
}

// A stopping host agent hands its running job back; another host runs it as attempt 2,
// and the client sees one terminal event, the second attempt's.
func TestStoppingHostHandsItsJobBack(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	stop1, _ := runAgent(t, ns, "h1", newShell(), nil, nil)
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "hang"), ev)
	if st := ev.next(t, runnerapi.EventStarted); st.Host != "h1" {
		t.Fatalf("started on %q", st.Host)
	}
	if err := stop1(); err != nil {
		t.Fatalf("stopping the agent: %v", err)
	}
	sh2 := newShell()
	runAgent(t, ns, "h2", sh2, nil, nil)
	st := ev.next(t, runnerapi.EventStarted)
	if st.Host != "h2" || st.Attempt != 2 {
		t.Fatalf("restarted %+v, want h2 attempt 2", st)
	}
	if _, err := d.Cancel(context.Background(), "bash_1", "done testing"); err != nil {
		t.Fatal(err)
	}
	if c := ev.next(t, runnerapi.EventCancelled); c.Reason != "done testing" {
		t.Fatalf("cancelled %+v", c)
	}
	<-done
	terminal := 0
	for _, e := range ev.all() {
		if e.Kind.Terminal() {
			terminal++
		}
	}
	if terminal != 1 {
		t.Fatalf("%d terminal events, want 1: %+v", terminal, ev.all())
	}
}

// A host that dies (its connection gone, no more progress acks) loses its job to another
// host within the heartbeat timeout; the dead attempt's late result is ignored.
func TestDeadHostsJobRunsElsewhere(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	_, nc1 := runAgent(t, ns, "h1", newShell(), nil, nil)
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "hang"), ev)
	ev.next(t, runnerapi.EventStarted)
	var jobID string
	d.mu.Lock()
	for id := range d.byID {
		jobID = id
	}
	d.mu.Unlock()
	nc1.Close() // h1 is gone
	killed := time.Now()
	sh2 := newShell()
	runAgent(t, ns, "h2", sh2, nil, nil)
	st := ev.next(t, runnerapi.EventStarted)
	if st.Host != "h2" || st.Attempt != 2 {
		t.Fatalf("restarted %+v, want h2 attempt 2", st)
	}
	if took := time.Since(killed); took > testTimeout+3*time.Second {
		t.Fatalf("the job ran again %s after its host died, want within the timeout (%s) and a few seconds", took, testTimeout)
	}
	// The dead attempt's result arrives late: the engine ignores it (checked below: it
	// reaches the engine before the second attempt's end, on the same subscription).
	late := connect(t, ns, "h1")
	body, _ := json.Marshal(wire.Events{Host: "h1", Attempt: 1, Events: []wire.Ev{{Kind: runnerapi.EventCompleted, Output: "stale"}}})
	if err := late.Publish(wire.EventSubject("h1", jobID), body); err != nil {
		t.Fatal(err)
	}
	// Its model calls are refused too.
	call, _ := json.Marshal(wire.Call{Attempt: 1, Chat: json.RawMessage(`{}`)})
	msg, err := late.Request(wire.ChatSubject("h1", jobID), call, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var step wire.Step
	if err := json.Unmarshal(msg.Data, &step); err != nil || step.Refuse == "" {
		t.Fatalf("a superseded attempt's model call got %s, want a refusal", msg.Data)
	}
	_, _ = sh2.Cancel(context.Background(), sh2.startedJobs()[0], "finish")
	if c := ev.next(t, runnerapi.EventCancelled); c.Reason != "finish" {
		t.Fatalf("ended %+v, want the second attempt's end", c)
	}
	<-done
	for _, e := range ev.all() {
		if e.Output == "stale" {
			t.Fatalf("the superseded attempt's result reached the client: %+v", e)
		}
	}
}

// A job message that does not parse is terminated and logged, not redelivered; a job
// the engine did not issue is refused at its claim and terminated too. Neither runs.
func TestBadAndForeignJobsAreTerminated(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	core, logs := observer.New(zap.InfoLevel)
	sh := newShell()
	runAgent(t, ns, "h1", sh, zap.New(core), nil)
	for _, body := range []string{`{not json`, `{"id":"` + wire.NewJobID() + `","process":{"command":"ok:foreign"}}`} {
		if _, err := d.js.Publish(context.Background(), wire.JobsSubject, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	untilEmpty(t, d.jobs, 50*time.Millisecond)
	if got := sh.startedJobs(); len(got) != 0 {
		t.Fatalf("the host ran %v", got)
	}
	if logs.FilterMessageSnippet("does not parse").Len() != 1 {
		t.Fatalf("the bad message was not logged once: %v", logs.All())
	}
	if logs.FilterMessageSnippet("does not want the job").Len() != 1 {
		t.Fatalf("the foreign job's refusal was not logged once: %v", logs.All())
	}
}

// A job for a label no host offers waits, shown waiting and naming the label, then
// fails naming it; a job's own labels (the session's) and the dispatcher's add up.
func TestJobForAnUnofferedLabelFailsNamingIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		job    map[string]string
		extra  map[string]string
		naming string
	}{
		{"job label", map[string]string{"gpu": "a100"}, nil, "gpu=a100"},
		{"dispatcher label", nil, map[string]string{"repo": "other"}, "repo=other"},
		{"one of two missing", map[string]string{"gpu": "none", "os": "plan9"}, nil, "os=plan9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := startServer(t)
			d := newDispatcher(t, ns, DispatcherConfig{QueueTimeout: 2 * time.Second,
				Labels: func(runnerapi.Job) map[string]string { return tc.extra }})
			sh := newShell()
			runAgent(t, ns, "h1", sh, nil, map[string]string{"gpu": "none"})
			ev := newEvents()
			job := processJob("bash_1", "ok:x")
			job.Labels = tc.job
			_, done := start(d, job, ev)
			w := ev.next(t, runnerapi.EventWaiting)
			if !strings.Contains(w.Reason, tc.naming) {
				t.Fatalf("waiting %q does not name the label %s", w.Reason, tc.naming)
			}
			f := ev.next(t, runnerapi.EventFailed)
			if !strings.Contains(f.Error, tc.naming) || f.Category != "no_host" {
				t.Fatalf("failure %q (%s) does not name the label %s", f.Error, f.Category, tc.naming)
			}
			<-done
			if got := sh.startedJobs(); len(got) != 0 {
				t.Fatalf("a host without the label ran %v", got)
			}
		})
	}
}

// A job whose labels a host offers runs there, not on the host that lacks them.
func TestLabelledJobRunsOnTheHostOfferingIt(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	plain, gpu := newShell(), newShell()
	runAgent(t, ns, "plain", plain, nil, map[string]string{"gpu": "none"})
	runAgent(t, ns, "gpu", gpu, nil, map[string]string{"gpu": "a100"})
	for i := range 4 {
		ev := newEvents()
		job := processJob(fmt.Sprintf("bash_%d", i), "ok:x")
		job.Labels = map[string]string{"gpu": "a100"}
		_, done := start(d, job, ev)
		if st := ev.next(t, runnerapi.EventStarted); st.Host != "gpu" {
			t.Fatalf("job %d started on %q, want gpu", i, st.Host)
		}
		ev.next(t, runnerapi.EventCompleted)
		<-done
	}
	if got := plain.startedJobs(); len(got) != 0 {
		t.Fatalf("the host without the label ran %v", got)
	}
}

// A job whose working directory the host lacks fails naming the host.
func TestMissingWorkingDirectoryNamesTheHost(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	runAgent(t, ns, "h7", newShell(), nil, nil)
	ev := newEvents()
	job := processJob("bash_1", "ok:x")
	job.Process.Cwd = "/nonexistent/robota-dir"
	_, done := start(d, job, ev)
	f := ev.next(t, runnerapi.EventFailed)
	if !strings.Contains(f.Error, "h7") || !strings.Contains(f.Error, "/nonexistent/robota-dir") {
		t.Fatalf("failure %q, want it to name the host and the directory", f.Error)
	}
	<-done
}

// A job cancelled while no host holds it ends at once, and a host that takes it later
// does not run it.
func TestCancelBeforeAHostTakesIt(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "ok:x"), ev)
	time.Sleep(100 * time.Millisecond)
	if ok, _ := d.Cancel(context.Background(), "bash_1", "stop"); !ok {
		t.Fatal("Cancel found no job")
	}
	ev.next(t, runnerapi.EventCancelled)
	<-done
	sh := newShell()
	runAgent(t, ns, "h1", sh, nil, nil)
	time.Sleep(1500 * time.Millisecond)
	if got := sh.startedJobs(); len(got) != 0 {
		t.Fatalf("a cancelled job ran: %v", got)
	}
}
