package remote

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/natsserver"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// With --dispatch remote, a lost NATS connection fails the running remote jobs clearly.
func TestRemoteModeFailsJobsWhenNATSIsLost(t *testing.T) {
	ns := startServer(t)
	var d *Dispatcher
	var mu sync.Mutex
	nc, err := Connect(ConnConfig{URLs: ns.ClientURL(), OnDisconnect: func(err error) {
		mu.Lock()
		defer mu.Unlock()
		d.Disconnected(err)
	}}, nats.UserInfo(natsserver.EngineUser, enginePassword))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	mu.Lock()
	d, err = NewDispatcher(context.Background(), DispatcherConfig{Conn: nc, JobTimeout: testTimeout, FailOnDisconnect: true})
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	runAgent(t, ns, "h1", newShell(), nil, nil)
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "hang"), ev)
	ev.next(t, runnerapi.EventStarted)
	ns.Shutdown()
	f := ev.next(t, runnerapi.EventFailed)
	if !strings.Contains(f.Error, "lost the connection to NATS") {
		t.Fatalf("failure %q, want it to say NATS was lost", f.Error)
	}
	<-done
}

// proxy forwards TCP connections to target until cut, which closes them all and
// refuses new ones: a network partition between a host and NATS.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	cut   bool
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	t.Cleanup(p.partition)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.cut {
				p.mu.Unlock()
				c.Close()
				up.Close()
				continue
			}
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	_ = p.ln.Close()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

// A host cut off from NATS stops its job after the heartbeat timeout (another host
// runs it by then), so a job never runs twice at once for long.
func TestPartitionedHostStopsItsJob(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	px := newProxy(t, strings.TrimPrefix(ns.ClientURL(), "nats://"))
	nc, err := Connect(ConnConfig{URLs: "nats://" + px.ln.Addr().String()}, append(HostOptions("h1"), nats.UserInfo("h1", hostPassword("h1")))...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sh := newShell()
	a := NewAgent(AgentConfig{Conn: nc, Name: "h1", Slots: 1, JobTimeout: testTimeout, Runner: sh, Log: zap.NewNop()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = a.Run(ctx) }()
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "hang"), ev)
	ev.next(t, runnerapi.EventStarted)
	px.partition()
	cutAt := time.Now()
	sh2 := newShell()
	runAgent(t, ns, "h2", sh2, nil, nil)
	if st := ev.next(t, runnerapi.EventStarted); st.Host != "h2" {
		t.Fatalf("restarted on %q, want h2", st.Host)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sh.mu.Lock()
		reasons := strings.Join(sh.reasons, ";")
		sh.mu.Unlock()
		if strings.Contains(reasons, "cut off from NATS") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the partitioned host never stopped its job (cancels: %q)", reasons)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if took := time.Since(cutAt); took > 3*testTimeout {
		t.Fatalf("the partitioned host stopped its job %s after the cut, want about the timeout (%s)", took, testTimeout)
	}
	_, _ = d.Cancel(context.Background(), "bash_1", "end")
	<-done
}

// With --dispatch auto, NATS going away does not stop the engine: a job started during
// the outage runs on the local workers, and the remote job that was running waits and,
// once NATS is back, runs to its end on a host (a later attempt: its host stopped it
// when cut off for the heartbeat timeout). The client sees one result.
func TestAutoModeResumesRemoteJobsWhenNATSReturns(t *testing.T) {
	store := t.TempDir()
	start := func(listen string) *server.Server {
		ns, err := natsserver.Start(natsserver.Config{Listen: listen, StoreDir: store, EnginePassword: enginePassword, Hosts: testHosts()})
		if err != nil {
			t.Fatal(err)
		}
		return ns
	}
	ns := start("127.0.0.1:0")
	addr := ns.Addr().String()
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	var d *Dispatcher
	var mu sync.Mutex
	enc, err := Connect(ConnConfig{URLs: ns.ClientURL(), OnDisconnect: func(err error) {
		mu.Lock()
		defer mu.Unlock()
		d.Disconnected(err)
	}}, nats.UserInfo(natsserver.EngineUser, enginePassword))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	mu.Lock()
	d, err = NewDispatcher(context.Background(), DispatcherConfig{Conn: enc, JobTimeout: testTimeout})
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	local := newShell()
	r := &Router{Local: local, Remote: d, Mode: ModeAuto}
	runAgent(t, ns, "h1", newShell(), nil, nil)
	for d.HostsAlive() == 0 {
		time.Sleep(20 * time.Millisecond)
	}

	remoteEv := newEvents()
	remoteDone := make(chan error, 1)
	go func() {
		remoteDone <- r.Start(context.Background(), processJob("bash_remote", "sleep:4s:remote-done"), remoteEv.emit)
	}()
	if st := remoteEv.next(t, runnerapi.EventStarted); st.Host != "h1" || st.Attempt != 1 {
		t.Fatalf("started %+v, want on h1, attempt 1", st)
	}

	ns.Shutdown() // NATS is lost
	ns.WaitForShutdown()
	for enc.IsConnected() {
		time.Sleep(20 * time.Millisecond)
	}
	localEv := newEvents()
	if err := r.Start(context.Background(), processJob("bash_local", "ok:local-done"), localEv.emit); err != nil {
		t.Fatal(err)
	}
	if c := localEv.next(t, runnerapi.EventCompleted); c.Output != "local-done" {
		t.Fatalf("the job started during the outage ended %+v", c)
	}
	if got := local.startedJobs(); len(got) != 1 || got[0] != "bash_local" {
		t.Fatalf("local workers ran %v, want the job started during the outage", got)
	}
	time.Sleep(2 * testTimeout) // longer than the heartbeat timeout: the cut-off host stops its attempt
	select {
	case err := <-remoteDone:
		t.Fatalf("the remote job ended during the outage (%v): %+v", err, remoteEv.all())
	default:
	}

	ns = start(addr) // NATS returns, with its store
	var done runnerapi.Event
	for done.Kind == 0 {
		select {
		case ev := <-remoteEv.ch:
			if ev.Kind.Terminal() {
				done = ev
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the remote job did not resume after NATS returned: %+v", remoteEv.all())
		}
	}
	if done.Kind != runnerapi.EventCompleted || done.Output != "remote-done" {
		t.Fatalf("the remote job ended %+v, want completed", done)
	}
	if err := <-remoteDone; err != nil {
		t.Fatal(err)
	}
	terminal, lastAttempt := 0, 0
	for _, ev := range remoteEv.all() {
		if ev.Kind.Terminal() {
			terminal++
		}
		if ev.Kind == runnerapi.EventStarted {
			lastAttempt = ev.Attempt
		}
	}
	if terminal != 1 || lastAttempt < 2 {
		t.Fatalf("%d terminal events, last attempt %d; want one result, of a later attempt: %+v", terminal, lastAttempt, remoteEv.all())
	}
}
