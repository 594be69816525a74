package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
)

// Many short jobs over three hosts: a host holds one control subscription whatever
// it runs (not one per job), and a job costs the server a few messages beyond a bare
// work-queue message's 3.3 (it cost 8.4 to 8.8 with a request per claim batch and a
// message per attempt's events): the claims and events of a host's jobs share messages.
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
	vz0, _ := ns.Varz(nil)
	in0 := inserts()
	run(jobs, "bash")
	vz1, _ := ns.Varz(nil)
	// A host's fetches subscribe (a pull's inbox); nothing per job.
	if subs := inserts() - in0; subs > jobs/4 {
		t.Errorf("%d subscriptions made while %d jobs ran: a subscription per job?", subs, jobs)
	}
	perJob := float64(vz1.InMsgs+vz1.OutMsgs-vz0.InMsgs-vz0.OutMsgs) / jobs
	if perJob > 7.5 {
		t.Errorf("%.1f server messages a job, want at most 7.5", perJob)
	}
	t.Logf("%.2f server messages a job, %d subscriptions made", perJob, inserts()-in0)
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
	n := len(d.byID) + len(d.byTask) + len(d.unclaimed)
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
		c.pending[n] = pendingClaim{job: job, at: at, reply: ch}
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
	if _, err := c.claim(wire.Claim{Job: "jd"}, nil); err == nil {
		t.Error("a claim after the agent stopped did not fail at once")
	}
}

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
	c.pending[1] = pendingClaim{job: "ja", msg: m, at: time.Now(), reply: make(chan claimResult, 1)}
	c.pending[2] = pendingClaim{job: "jb", at: time.Now(), reply: make(chan claimResult, 1)}
	got := c.waiting()
	if len(got) != 1 || got[0] != jetstream.Msg(m) {
		t.Fatalf("waiting: %v", got)
	}
	c.answer(wire.ClaimReply{N: 1, Job: "ja", Run: true})
	if got := c.waiting(); len(got) != 0 {
		t.Fatalf("an answered claim is still waiting: %v", got)
	}
}
