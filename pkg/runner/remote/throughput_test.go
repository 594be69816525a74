package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Many short jobs over three hosts: a host holds one control subscription whatever
// it runs (not one per job), and a job costs the server a few messages beyond a bare
// work-queue message's 3.3 (it cost 8.4 to 8.8 with a request per claim batch and a
// message per attempt's events): the claims and events of a host's jobs share messages.
// The hosts send far fewer messages than they run jobs: a batch leaves once the jobs
// that could run have pushed their events (0.5 to 0.6 a job when a batch left as soon as
// the sender was idle, so a job's start and its result went apart; now 0.1 to 0.15).
func TestManyShortJobsShareAHostsSubscriptionsAndMessages(t *testing.T) {
	const jobs, hosts = 300, 3
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	for i := range hosts {
		nc := connect(t, ns, fmt.Sprintf("h%d", i))
		a := NewAgent(AgentConfig{Conn: nc, Name: fmt.Sprintf("h%d", i), Slots: 64, JobTimeout: testTimeout, Runner: newShell(), Log: zap.NewNop()})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { _ = a.Run(ctx) }()
		t.Cleanup(cancel)
	}
	run := func(n int, prefix string) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ev := newEvents()
				if err := d.Start(context.Background(), processJob(fmt.Sprintf("%s_%d", prefix, i), "ok:x"), ev.emit); err != nil {
					t.Errorf("job %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
	}
	run(hosts*3, "warm") // every host took a job: its subscriptions exist
	inserts := func() uint64 {
		sz, err := ns.Subsz(nil)
		if err != nil {
			t.Fatal(err)
		}
		return sz.NumInserts
	}
	// hostsIn counts the messages the host agents sent (all but the engine's connection).
	engine, err := d.nc.GetClientID()
	if err != nil {
		t.Fatal(err)
	}
	hostsIn := func() int64 {
		cz, err := ns.Connz(nil)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, c := range cz.Conns {
			if c.Cid != engine {
				n += c.InMsgs
			}
		}
		return n
	}
	vz0, _ := ns.Varz(nil)
	in0, h0 := inserts(), hostsIn()
	run(jobs, "bash")
	vz1, _ := ns.Varz(nil)
	subs := inserts() - in0
	// What the hosts sent is read over three rounds (the median): how many events share
	// a batch depends on the scheduler, and one round in twenty or so shares less.
	rounds := []float64{float64(hostsIn()-h0) / jobs}
	for i := range 2 {
		h := hostsIn()
		run(jobs, fmt.Sprintf("more%d", i))
		rounds = append(rounds, float64(hostsIn()-h)/jobs)
	}
	slices.Sort(rounds)
	switch sent := rounds[1]; {
	case raceDetector:
		t.Logf("the hosts sent %.2f messages a job (not checked under -race)", sent)
	case sent > 0.3:
		t.Errorf("the hosts sent %.2f messages a job, want at most 0.3", sent)
	default:
		t.Logf("the hosts sent %.2f messages a job", sent)
	}
	// A host's fetches subscribe (a pull's inbox); nothing per job.
	if subs > jobs/4 {
		t.Errorf("%d subscriptions made while %d jobs ran: a subscription per job?", subs, jobs)
	}
	perJob := float64(vz1.InMsgs+vz1.OutMsgs-vz0.InMsgs-vz0.OutMsgs) / jobs
	if perJob > 7.5 {
		t.Errorf("%.1f server messages a job, want at most 7.5", perJob)
	}
	t.Logf("%.2f server messages a job, %d subscriptions made", perJob, subs)
}

// A job the stream does not take (here: there is no stream) makes Start return why,
// as a failed publish did, and the dispatcher forgets it.
func TestStartReturnsTheStreamsRefusal(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{})
	if err := d.js.DeleteStream(context.Background(), wire.Stream); err != nil {
		t.Fatal(err)
	}
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "ok:x"), ev)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "queue the job on NATS") {
			t.Fatalf("Start: %v, want the stream's refusal", err)
		}
	case <-time.After(publishTimeout + 2*time.Second):
		t.Fatal("Start did not return")
	}
	if evs := ev.all(); len(evs) != 0 {
		t.Errorf("events of a job never queued: %+v", evs)
	}
	if _, err := d.Cancel(context.Background(), "bash_1", "x"); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	n := len(d.byID) + len(d.byTask) + d.unclaimed
	d.mu.Unlock()
	if n != 0 {
		t.Errorf("the dispatcher still holds the refused job (%d entries)", n)
	}
}

// A claim's answer reaches the claim it names (number and job), nothing else: a late
// answer to an earlier delivery, or one naming another job, is dropped; an unanswered
// claim fails after claimTimeout; once the agent stops, claims fail at once.
func TestClaimAnswersReachOnlyTheirClaim(t *testing.T) {
	c := claimer{events: newEventSender(nil, "h"), pending: map[uint64]pendingClaim{}}
	pend := func(n uint64, job string, at time.Time) chan claimResult {
		ch := make(chan claimResult, 1)
		c.pending[n] = pendingClaim{job: job, at: at, done: chanWaiter(ch)}
		return ch
	}
	now := time.Now()
	a, b, old := pend(1, "ja", now), pend(2, "jb", now), pend(3, "jc", now.Add(-claimTimeout))
	for _, r := range []wire.ClaimReply{
		{N: 9, Job: "ja", Run: true}, // no such claim (a late answer)
		{N: 2, Job: "ja", Run: true}, // names another job than claim 2's
		{N: 1, Job: "ja", Attempt: 4, Run: true},
	} {
		c.answer(r)
	}
	if got := <-a; got.err != nil || !got.r.Run || got.r.Attempt != 4 {
		t.Errorf("claim 1: %+v", got)
	}
	select {
	case got := <-b:
		t.Errorf("claim 2 took another job's answer: %+v", got)
	default:
	}
	c.expire(now)
	if got := <-old; got.err == nil {
		t.Errorf("a claim unanswered for %s did not fail: %+v", claimTimeout, got)
	}
	c.fail(errors.New("stopping"))
	if got := <-b; got.err == nil {
		t.Errorf("a pending claim of a stopping agent: %+v", got)
	}
	late := make(chan claimResult, 1)
	c.claim(wire.Claim{Job: "jd"}, nil, chanWaiter(late))
	if (<-late).err == nil {
		t.Error("a claim after the agent stopped did not fail at once")
	}
}

// chanWaiter hands a claim's answer to its channel (buffered: claimed must not block).
type chanWaiter chan claimResult

func (c chanWaiter) claimed(r claimResult) { c <- r }

// progressMsg is a job message that counts the progress acks it is sent.
type progressMsg struct {
	jetstream.Msg
	acks int
}

func (m *progressMsg) InProgress() error { m.acks++; return nil }

// A claim waiting for the engine's answer keeps its message this host's: keepAlive acks
// the progress of the messages waiting() lists, so an answer later than the stream's ack
// wait does not find the job given to another host (or to this one again) meanwhile.
func TestWaitingClaimsKeepTheirMessages(t *testing.T) {
	c := claimer{events: newEventSender(nil, "h"), pending: map[uint64]pendingClaim{}}
	m := &progressMsg{}
	c.pending[1] = pendingClaim{job: "ja", msg: m, at: time.Now(), done: chanWaiter(make(chan claimResult, 1))}
	c.pending[2] = pendingClaim{job: "jb", at: time.Now(), done: chanWaiter(make(chan claimResult, 1))}
	got := c.waiting()
	if len(got) != 1 || got[0] != jetstream.Msg(m) {
		t.Fatalf("waiting: %v", got)
	}
	c.answer(wire.ClaimReply{N: 1, Job: "ja", Run: true})
	if got := c.waiting(); len(got) != 0 {
		t.Fatalf("an answered claim is still waiting: %v", got)
	}
}

// A second copy of a job's message on the stream (the engine publishes a job once and
// sets no Nats-Msg-Id, so the stream would keep a copy a retried publish made) runs no
// second task: the copy's claim names another message than the job's, so the engine
// refuses it and the host terminates the copy. The client sees one start and one result,
// and the stream ends up empty.
func TestACopyOfAJobsMessageRunsNoSecondTask(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{QueueTimeout: 30 * time.Second})
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "sleep:200ms:once"), ev)
	var seq uint64
	for deadline := time.Now().Add(5 * time.Second); seq == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stream never acked the job")
		}
		d.mu.Lock()
		for _, j := range d.byID {
			seq = j.seq
		}
		d.mu.Unlock()
	}
	ctx := context.Background()
	orig, err := d.jobs.GetMsg(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	copyMsg := &nats.Msg{Subject: wire.JobsSubject, Header: orig.Header, Data: orig.Data}
	if _, err := d.js.PublishMsg(ctx, copyMsg); err != nil {
		t.Fatal(err)
	}
	if info, err := d.jobs.Info(ctx); err != nil || info.State.Msgs != 2 {
		t.Fatalf("want the job and its copy on the stream, got %+v, %v", info, err)
	}
	core, logs := observer.New(zap.InfoLevel)
	sh := newShell()
	runAgent(t, ns, "h1", sh, zap.New(core), nil) // two slots: it takes both at once
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	untilEmpty(t, d.jobs, 20*time.Millisecond)
	if got := sh.startedJobs(); len(got) != 1 {
		t.Fatalf("the host started %v, want the task once", got)
	}
	var starts, results int
	for _, e := range ev.all() {
		switch {
		case e.Kind == runnerapi.EventStarted:
			starts++
		case e.Kind.Terminal():
			results++
			if e.Kind != runnerapi.EventCompleted || e.Output != "once" {
				t.Errorf("result %+v", e)
			}
		}
	}
	if starts != 1 || results != 1 {
		t.Fatalf("the client saw %d starts and %d results, want one each: %+v", starts, results, ev.all())
	}
	if logs.FilterMessageSnippet("does not want the job").Len() != 1 {
		t.Fatalf("the copy was not refused once: %v", logs.All())
	}
}
