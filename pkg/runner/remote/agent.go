package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// AgentConfig configures a host agent.
type AgentConfig struct {
	Conn *nats.Conn
	// Name is the host's name, unique in the cluster.
	Name   string
	Labels map[string]string
	// Slots bounds the jobs run at once (default 4).
	Slots int
	// JobTimeout is the heartbeat timeout the engine's consumer uses (default
	// DefaultJobTimeout): the agent acks progress well within it, and stops a job when it
	// could not reach NATS for that long.
	JobTimeout time.Duration
	// Runner runs jobs in local go-plugin workers (the engine's pool.Pool).
	Runner runnerapi.Runner
	Log    *zap.Logger
}

// Agent is a host agent: it pulls jobs from the work-queue stream, claims each from
// the engine, runs it in a local worker, streams its events back and heartbeats.
type Agent struct {
	cfg AgentConfig
	nc  *nats.Conn
	log *zap.Logger

	mu      sync.Mutex
	running map[string]*hostJob // job id → the attempt this host runs
	// stopping is set once the agent stops: a job claimed after it is handed back.
	stopping bool
	claims   claimer
	events   *eventSender
	wg       sync.WaitGroup
	// pulled is closed once the agent has no pull request pending: a job is handed back
	// only then, or the server could deliver it right back to this stopping agent.
	pulled chan struct{}
	// jobs runs the claimed jobs (workers.go).
	jobs *workers
	// slots holds one token per job message taken and not done with (Run's loop).
	slots chan struct{}
	// ctlBatch is onControl's (a subscription's handler runs one message at a time).
	ctlBatch wire.ControlBatch
}

// HostOptions are the NATS options host agent name's connection needs: its own inbox
// prefix (wire.InboxPrefix), the only inboxes its user may read.
func HostOptions(name string) []nats.Option {
	return []nats.Option{nats.CustomInboxPrefix(wire.InboxPrefix(name))}
}

// NewAgent returns an agent; Run starts it.
func NewAgent(cfg AgentConfig) *Agent {
	if cfg.Slots <= 0 {
		cfg.Slots = 4
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = DefaultJobTimeout
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	a := &Agent{cfg: cfg, nc: cfg.Conn, log: cfg.Log, running: map[string]*hostJob{}, pulled: make(chan struct{}),
		slots: make(chan struct{}, cfg.Slots)}
	a.jobs = newWorkers(cfg.Slots, a.runClaimed)
	a.events = newEventSender(cfg.Conn, cfg.Name)
	a.claims = claimer{events: a.events, pending: map[uint64]pendingClaim{}}
	return a
}

// Run takes jobs until ctx ends, then hands its running jobs back to the stream (they
// run again on another host) and returns nil.
func (a *Agent) Run(ctx context.Context) error {
	if !wire.ValidHostName(a.cfg.Name) {
		return fmt.Errorf("host name %q: want 1 to 64 of A-Z, a-z, 0-9, '_' and '-'", a.cfg.Name)
	}
	if want := wire.InboxPrefix(a.cfg.Name); a.nc.Opts.InboxPrefix != want {
		// The host's user may subscribe only to its own inboxes: any other prefix would
		// be refused by the server one request at a time, far from the cause.
		return fmt.Errorf("the host agent's NATS connection must use the inbox prefix %s (HostOptions)", want)
	}
	js, err := jetstream.New(a.nc)
	if err != nil {
		return err
	}
	cons, err := a.consumer(ctx, js)
	if err != nil {
		close(a.pulled)
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	// One subscription to all its jobs' control subjects and its claims' answers, made
	// before the first job is taken, so no answer, cancel or input can miss it.
	ctl, err := a.nc.Subscribe(wire.ControlWildcard(a.cfg.Name), a.onControl)
	if err == nil {
		_ = ctl.SetPendingLimits(-1, -1)
		err = a.nc.FlushTimeout(5 * time.Second)
	}
	if err != nil {
		close(a.pulled)
		return fmt.Errorf("subscribe to the host's control subjects: %w", err)
	}
	defer func() { _ = ctl.Unsubscribe() }()
	hbCtx, stopHB := context.WithCancel(context.Background())
	defer stopHB()
	go a.heartbeat(hbCtx)
	keepAliveDone := make(chan struct{})
	go func() {
		defer close(keepAliveDone)
		a.keepAlive(ctx)
	}()
	a.log.Info("host agent taking jobs", zap.String("host", a.cfg.Name), zap.Int("slots", a.cfg.Slots), zap.Any("labels", a.cfg.Labels))
	slots := a.slots
	for ctx.Err() == nil {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		free := 1 + a.cfg.Slots - len(slots) // the slot just taken, and any other free one
		for i := 1; i < free; i++ {
			slots <- struct{}{}
		}
		// A short pull: a host never holds a long pending request a dead host could
		// leave behind with a message in it.
		batch, err := cons.Fetch(free, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			for range free {
				<-slots
			}
			if ctx.Err() == nil {
				a.log.Debug("fetch", zap.Error(err))
				sleepCtx(ctx, 250*time.Millisecond)
			}
			continue
		}
		got := 0
		for msg := range batch.Messages() {
			got++
			// Decoded here, on the loop's long-lived stack: in each job's fresh goroutine
			// the decoder's descent grew the stack, which cost more than the decoding.
			job, err := wire.DecodeJob(msg.Data())
			a.take(ctx, msg, job, err)
		}
		for range free - got {
			<-slots
		}
	}
	close(a.pulled)
	a.wg.Wait()
	a.jobs.stop() // every job ended: no more work comes
	<-keepAliveDone
	a.events.wait() // the last jobs' results are on their way before Run returns
	a.log.Info("host agent stopped", zap.String("host", a.cfg.Name))
	return nil
}

// consumer waits for the engine to have made the stream's consumer.
func (a *Agent) consumer(ctx context.Context, js jetstream.JetStream) (jetstream.Consumer, error) {
	warned := false
	for {
		c, err := js.Consumer(ctx, wire.Stream, wire.Consumer)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrConsumerNotFound) &&
			!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
			return nil, fmt.Errorf("the job stream %s: %w", wire.Stream, err)
		}
		if !warned {
			a.log.Info("waiting for an engine to create the job stream", zap.String("stream", wire.Stream), zap.Error(err))
			warned = true
		}
		sleepCtx(ctx, 500*time.Millisecond)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// heartbeat publishes who the host is and what it runs, every second.
func (a *Agent) heartbeat(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		a.mu.Lock()
		jobs := make(map[string]int, len(a.running))
		for id, j := range a.running {
			jobs[id] = j.attempt
		}
		a.mu.Unlock()
		if b, err := wire.Marshal(wire.Heartbeat{Host: a.cfg.Name, Labels: a.cfg.Labels, Slots: a.cfg.Slots, Jobs: jobs}); err == nil {
			_ = a.nc.Publish(wire.HeartbeatSubject(a.cfg.Name), b)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (a *Agent) request(subject string, v any, timeout time.Duration, out any) error {
	body, err := wire.Marshal(v)
	if err != nil {
		return err
	}
	m, err := a.nc.Request(subject, body, timeout)
	if err != nil {
		return err
	}
	return wire.Unmarshal(m.Data, out)
}

// take handles one message of the stream, job (decoded, or err saying why not), which
// holds one of the slots until it is done with. The common case, a job this host may
// run, is claimed from the Run loop and gets a worker once the engine answered: no
// goroutine per job waits for the answer on a channel of its own (a job refused at its
// claim costs no goroutine that waited). Its hostJob, made here, is all it allocates
// on its way to the worker: it waits for the answer (claimWaiter) and is the worker's
// task, where closures capturing the message and job cost two allocations more.
func (a *Agent) take(ctx context.Context, msg jetstream.Msg, job wire.Job, err error) {
	a.wg.Add(1)
	if ctx.Err() != nil || err != nil || !a.offers(job.Labels) {
		go func() {
			defer a.release()
			a.refuse(ctx, msg, job, err)
		}()
		return
	}
	hj := &hostJob{agent: a, id: job.ID, msg: msg, job: job}
	a.claims.claim(wire.Claim{Job: job.ID, Ack: msg.Reply()}, msg, hj)
}

// claimed implements claimWaiter: the engine answered hj's claim (or there is no
// answer); a worker runs it, or terminates or hands back its message (Agent.run).
func (hj *hostJob) claimed(res claimResult) {
	hj.claim = res
	hj.agent.jobs.run(hj)
}

// runClaimed is the workers' task: hj, claimed, then its slot given back.
func (a *Agent) runClaimed(hj *hostJob) {
	defer a.release()
	a.run(hj)
}

// release gives back the slot a message taken held.
func (a *Agent) release() {
	<-a.slots
	a.wg.Done()
}

// offers reports whether the host offers every label in labels.
func (a *Agent) offers(labels map[string]string) bool {
	for k, v := range labels {
		if a.cfg.Labels[k] != v {
			return false
		}
	}
	return true
}

// refuse hands back or terminates a message this host does not claim: taken as the
// agent stopped, unreadable, or asking for a label this host does not offer.
func (a *Agent) refuse(ctx context.Context, msg jetstream.Msg, job wire.Job, err error) {
	if ctx.Err() != nil { // taken by the last pull of a stopping agent
		<-a.pulled
		_ = msg.Nak()
		return
	}
	if err != nil {
		meta, _ := msg.Metadata()
		var seq uint64
		if meta != nil {
			seq = meta.Sequence.Stream
		}
		a.log.Error("job message does not parse; terminated, it will not be redelivered", zap.Uint64("stream_seq", seq), zap.Error(err))
		_ = msg.Term()
		return
	}
	for k, v := range job.Labels {
		if a.cfg.Labels[k] == v {
			continue
		}
		var r wire.ClaimReply
		if err := a.request(wire.ClaimSubject(a.cfg.Name, job.ID), wire.Claim{Host: a.cfg.Name, Probe: true}, 2*time.Second, &r); err == nil && !r.Run {
			_ = msg.TermWithReason(r.Reason)
			return
		}
		_ = msg.NakWithDelay(500 * time.Millisecond) // another host may offer k=v
		return
	}
}

// run runs a job this host claimed, once the engine answered the claim (hj.claim).
func (a *Agent) run(hj *hostJob) {
	msg, job := hj.msg, &hj.job
	// The job's field goes with each line, not into a logger per job (With copies it).
	jobField := zap.String("job", job.ID)
	claim, err := hj.claim.r, hj.claim.err
	if err != nil {
		a.log.Warn("could not claim the job from the engine; handed back", jobField, zap.Error(err))
		_ = msg.NakWithDelay(time.Second)
		return
	}
	if !claim.Run {
		a.log.Info("the engine does not want the job; terminated", jobField, zap.String("reason", claim.Reason))
		_ = msg.TermWithReason(claim.Reason)
		return
	}
	attempt := claim.Attempt
	// The attempt's outbox lives in its hostJob: one allocation for both.
	hj.attempt, hj.out = attempt, a.events.outbox(job.ID, attempt)
	out := &hj.out
	if cwd := job.Cwd(); cwd != "" {
		if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
			out.push(runnerapi.Event{Kind: runnerapi.EventFailed, Category: "no_directory",
				Error: fmt.Sprintf("the working directory %s does not exist on host %s", cwd, a.cfg.Name)})
			return
		}
	}
	jobCtx, cancelJob := context.WithCancel(context.Background())
	defer cancelJob()
	hj.ctx, hj.cancel, hj.lastOK, hj.ended = jobCtx, cancelJob, time.Now(), make(chan struct{})
	a.mu.Lock()
	stopping := a.stopping
	if !stopping {
		a.running[job.ID] = hj
	}
	a.mu.Unlock()
	if stopping { // claimed as the agent stopped: back to the stream, not run
		out.close()
		<-a.pulled
		_ = msg.Nak()
		return
	}
	defer func() {
		a.mu.Lock()
		delete(a.running, job.ID)
		a.mu.Unlock()
	}()
	// Checked first: the fields of a line not written cost an allocation per job.
	if ce := a.log.Check(zap.DebugLevel, "job started"); ce != nil {
		ce.Write(jobField, zap.Int("attempt", attempt))
	}

	rj := job.Runner()
	if rj.Agent != nil {
		rj.Host = &callHost{nc: a.nc, host: a.cfg.Name, jobID: job.ID, attempt: attempt}
	}
	// The terminal event is kept in hj (allocated anyway), not in variables the
	// callback captures (each would be an allocation of its own).
	err = a.cfg.Runner.Start(jobCtx, rj, func(ev runnerapi.Event) error {
		if ev.Kind.Terminal() {
			hj.last, hj.gotLast = ev, true
			return nil
		}
		out.push(ev)
		return nil
	})
	close(hj.ended)
	hj.mu.Lock()
	hb, cut := hj.handback, hj.lost
	hj.mu.Unlock()
	switch {
	case hb:
		out.close()
		a.log.Info("job handed back to the stream", jobField, zap.Int("attempt", attempt))
		<-a.pulled
		_ = msg.Nak()
		return
	case cut:
		out.close()
		return
	}
	final := &hj.last
	if !hj.gotLast {
		reason := "the local worker ended the job without a result"
		if err != nil {
			reason = err.Error()
		}
		final = &runnerapi.Event{Kind: runnerapi.EventFailed, Category: "worker", Error: reason}
	}
	out.push(*final)
	if ce := a.log.Check(zap.DebugLevel, "job ended"); ce != nil {
		ce.Write(jobField, zap.Int("attempt", attempt), zap.Stringer("kind", final.Kind))
	}
}

// hostJob is a job message this host took and claims, then the attempt it runs.
type hostJob struct {
	agent   *Agent
	id      string
	attempt int
	msg     jetstream.Msg
	job     wire.Job
	claim   claimResult // the engine's answer to the claim
	ctx     context.Context
	cancel  context.CancelFunc
	ended   chan struct{} // closed when the local runner returned

	mu       sync.Mutex
	lastOK   time.Time // the last progress ack NATS took
	handback bool      // the agent is stopping: the job goes back to the stream
	lost     bool      // NATS unreachable for the job timeout: another host has it now

	last    runnerapi.Event // run's: the terminal event the runner reported
	gotLast bool
	out     outbox // the attempt's way to the engine
}

// onControl applies the engine's messages to this host: the answers to its claims, and
// its running jobs' control messages (cancel, input). Only the engine may publish on a
// host's control subjects (wire.HostPublish has none).
func (a *Agent) onControl(m *nats.Msg) {
	if wire.IsControlBatch(m.Subject) {
		b := &a.ctlBatch // refilled message after message: the answers are taken by value
		if err := wire.DecodeControlBatch(m.Data, b); err != nil {
			a.log.Warn("unreadable answers to this host's claims", zap.Error(err))
			return
		}
		for _, r := range b.Claims {
			a.claims.answer(r)
		}
		a.events.answered(false)
		return
	}
	var c wire.Control
	if wire.Unmarshal(m.Data, &c) != nil {
		return
	}
	a.mu.Lock()
	j := a.running[wire.JobIDOf(m.Subject)]
	a.mu.Unlock()
	if j == nil {
		return
	}
	switch { // a worker's answer may take a while: the other jobs' controls do not wait
	case c.Cancel:
		go func() { _, _ = a.cfg.Runner.Cancel(j.ctx, j.id, c.Reason) }()
	case c.Send != "":
		go func() { _ = a.cfg.Runner.Send(j.ctx, j.id, c.Send) }()
	}
}

// keepAlive acks every running job's progress (one flush for all), so their messages
// stay this host's; a job whose host could not reach NATS for the job timeout is
// stopped (another host runs it by then). When ctx ends it hands every job back: the
// local runner cancels it, and its message is nak'ed for another host.
func (a *Agent) keepAlive(ctx context.Context) {
	tick := time.NewTicker(a.cfg.JobTimeout / 4)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			// Claims not answered yet are handed back: the engine runs them elsewhere.
			a.claims.fail(errors.New("the host agent is stopping"))
			a.mu.Lock()
			a.stopping = true
			jobs := make([]*hostJob, 0, len(a.running))
			for _, j := range a.running {
				jobs = append(jobs, j)
			}
			a.mu.Unlock()
			var wg sync.WaitGroup
			for _, j := range jobs {
				j.mu.Lock()
				j.handback = true
				j.mu.Unlock()
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, _ = a.cfg.Runner.Cancel(j.ctx, j.id, "the host agent is stopping; the job is handed back")
					select {
					case <-j.ended:
					case <-time.After(cancelGrace):
						j.cancel()
					}
				}()
			}
			wg.Wait()
			return
		case <-tick.C:
		}
		a.claims.expire(time.Now())
		a.mu.Lock()
		jobs := make([]*hostJob, 0, len(a.running))
		for _, j := range a.running {
			jobs = append(jobs, j)
		}
		a.mu.Unlock()
		claiming := a.claims.waiting()
		for _, m := range claiming {
			_ = m.InProgress() // a lost one only means the message goes to another host
		}
		if len(jobs) == 0 {
			if len(claiming) > 0 {
				_ = a.nc.FlushTimeout(a.cfg.JobTimeout / 4)
			}
			continue
		}
		var err error
		for _, j := range jobs {
			if e := j.msg.InProgress(); e != nil && err == nil {
				err = e
			}
		}
		if err == nil {
			err = a.nc.FlushTimeout(a.cfg.JobTimeout / 4)
		}
		now := time.Now()
		for _, j := range jobs {
			j.mu.Lock()
			if err == nil {
				j.lastOK = now
			}
			cut := err != nil && !j.lost && now.Sub(j.lastOK) >= a.cfg.JobTimeout
			if cut {
				j.lost = true
			}
			j.mu.Unlock()
			if cut {
				a.log.Warn("cut off from NATS for the job timeout; stopping the job (another host runs it now)",
					zap.String("job", j.id), zap.Duration("timeout", a.cfg.JobTimeout), zap.Error(err))
				_, _ = a.cfg.Runner.Cancel(j.ctx, j.id, "host cut off from NATS")
				j.cancel()
			}
		}
	}
}

// eventSender sends the events of all the host's attempts to the engine in one
// message when it can (wire.HostEvents on wire.EventsSubject): an attempt's first event
// (the start) and its terminal one leave at once when no batch is being sent, else with
// the next batch; progress between them is coalesced for up to progressLinger (one
// timer for the host, none per job), so a short job costs a share of a message and a
// chatty one a few per second. Each attempt's events leave in order (one sender at a
// time, on one connection). A terminal event ends an attempt's outbox; the engine acks
// the job's message when it has it, so the host neither waits for a reply nor acks. A
// batch lost on the way leaves the messages unacked: they are redelivered (at least once).
type eventSender struct {
	nc      *nats.Conn
	subject string
	host    string

	mu     sync.Mutex
	cond   sync.Cond // signalled when the sender goes idle
	claims []wire.Claim
	// claimsOut counts the batches of claims sent and not answered yet: a claim goes at
	// once only when none is (else with the next batch, or when the answer comes), so
	// jobs taken together share a batch and its answer, as they shared a request.
	claimsOut int
	queue     []wire.Events
	// gen numbers the queue: an outbox's entry in it (outbox.at) holds while its gen is
	// the sender's (send starts a new queue), without a map entry per attempt.
	gen    uint64
	busy   bool        // a goroutine is sending
	timer  *time.Timer // the linger of queued progress, when one is pending
	buf    []byte      // send's: each batch is written over the last one's
	evFree [][]wire.Ev // empty event slices of sent batches, for push to fill
	// The arrays of the last batch a run of send sent, for the next run to fill.
	sentBatch  []wire.Events
	sentClaims []wire.Claim
}

// progressLinger bounds how long a progress event waits to share a message.
const progressLinger = 10 * time.Millisecond

func newEventSender(nc *nats.Conn, host string) *eventSender {
	s := &eventSender{nc: nc, subject: wire.EventsSubject(host), host: host, gen: 1}
	s.cond.L = &s.mu
	return s
}

// outbox is one attempt's way to the engine; its fields are guarded by its sender's mu.
type outbox struct {
	s       *eventSender
	job     string
	attempt int
	sent    bool // the first event was queued
	closed  bool
	at      int    // its entry in the sender's queue, when gen is the sender's
	gen     uint64 // 0: none
}

func (s *eventSender) outbox(job string, attempt int) outbox {
	return outbox{s: s, job: job, attempt: attempt}
}

// push queues ev; after a terminal event, or once closed, push drops events.
func (o *outbox) push(ev runnerapi.Event) {
	s := o.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.closed {
		return
	}
	if o.gen != s.gen {
		o.at, o.gen = len(s.queue), s.gen
		s.queue = append(s.queue, wire.Events{Job: o.job, Attempt: o.attempt})
	}
	i := o.at
	if s.queue[i].Events == nil {
		if n := len(s.evFree); n > 0 {
			s.queue[i].Events, s.evFree = s.evFree[n-1], s.evFree[:n-1]
		} else {
			s.queue[i].Events = make([]wire.Ev, 0, 2) // a start and an end, most often
		}
	}
	s.queue[i].Events = append(s.queue[i].Events, wire.EvOf(ev))
	urgent := !o.sent || ev.Kind.Terminal()
	o.sent, o.closed = true, ev.Kind.Terminal()
	switch {
	case s.busy: // the running sender takes it with its next batch
	case urgent:
		s.startLocked()
	case s.timer == nil:
		s.timer = time.AfterFunc(progressLinger, s.kick)
	}
}

// claim queues c to go at once, or with the batch after the one being sent.
func (s *eventSender) claim(c wire.Claim) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claims = append(s.claims, c)
	if !s.busy && s.claimsOut == 0 {
		s.startLocked()
	}
}

// answered is told that the engine answered a batch of claims (or that the claims
// waiting for an answer were given up: all is true); queued claims go now.
func (s *eventSender) answered(all bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claimsOut > 0 {
		s.claimsOut--
	}
	if all {
		s.claimsOut = 0
	}
	if !s.busy && s.claimsOut == 0 && len(s.claims) > 0 {
		s.startLocked()
	}
}

// close drops what o queued and did not send (the attempt is handed back or lost).
func (o *outbox) close() {
	s := o.s
	s.mu.Lock()
	defer s.mu.Unlock()
	o.closed = true
	if o.gen == s.gen {
		s.queue[o.at].Events = nil
	}
}

func (s *eventSender) kick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer = nil
	if !s.busy {
		s.startLocked()
	}
}

func (s *eventSender) startLocked() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.busy = true
	go s.send()
}

// send publishes what is queued, batch after batch, until nothing is.
func (s *eventSender) send() {
	// The slices of the last batch sent, kept by the sender (one at a time, busy) from
	// one run to the next: a short burst of jobs starts a run of its own.
	batch, spare := s.sentBatch, s.sentClaims
	for {
		// Let the goroutines that are ready run first: jobs that just started or ended
		// push their events meanwhile, and they leave in this batch. Without it, a
		// batch left as soon as the sender was idle, and a short job's start and result
		// went in two messages (0.55 host messages a job over 3 hosts; 0.05 with it).
		// A lone job's event waits for nothing: with no other goroutine ready, Gosched
		// returns at once.
		runtime.Gosched()
		s.mu.Lock()
		// The slices of the batch sent last hold the next ones (the message is
		// written: nothing refers to them), so a job's events and claim allocate none.
		for i := range batch {
			if e := batch[i].Events; cap(e) <= 8 && len(s.evFree) < maxEvFree {
				clear(e)
				s.evFree = append(s.evFree, e[:0])
			}
		}
		clear(batch)
		batch = batch[:0]
		for _, e := range s.queue {
			if len(e.Events) > 0 {
				batch = append(batch, e)
			}
		}
		clear(s.queue)
		clear(spare)
		claims := s.claims
		s.queue, s.claims = s.queue[:0], spare[:0]
		if len(claims) > 0 {
			s.claimsOut++
		}
		s.gen++ // a new queue: no outbox has an entry in it
		if len(batch) == 0 && len(claims) == 0 {
			// claims (empty), not spare: s.claims holds spare's array now.
			s.sentBatch, s.sentClaims = batch, claims
			s.busy = false
			s.cond.Broadcast()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		s.buf = wire.AppendHostBatch(s.buf[:0], &wire.HostBatch{Host: s.host, Claims: claims, Jobs: batch})
		_ = s.nc.Publish(s.subject, s.buf) // it copies the message: buf is free again
		s.buf = keepBuf(s.buf)
		spare = claims
	}
}

// maxEvFree bounds eventSender.evFree.
const maxEvFree = 1024

// wait returns once every queued event was handed to the connection, progress
// included.
func (s *eventSender) wait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.busy || s.timer != nil || len(s.queue) > 0 || len(s.claims) > 0 {
		if !s.busy {
			s.startLocked()
		}
		s.cond.Wait()
	}
}

// claimer sends the agent's claims to the engine in its HostBatch messages (at once
// when no batch is being sent, else with the next one) and hands each the engine's
// answer (a ControlBatch on the host's control subjects). A lone job waits no longer
// than a request's round trip; many jobs taken at once share the messages both ways,
// and a claim costs no request, reply inbox or timer of its own: the agent's keepAlive
// tick fails the claims left unanswered for claimTimeout.
type claimer struct {
	events  *eventSender
	mu      sync.Mutex
	next    uint64
	pending map[uint64]pendingClaim // by Claim.N
	stopped error                   // set by fail: later claims fail at once
}

// claimTimeout is how long a claim waits for the engine's answer before its message
// is handed back.
const claimTimeout = 5 * time.Second

type pendingClaim struct {
	job string
	msg jetstream.Msg // kept this host's by keepAlive while the claim waits
	at  time.Time
	// done takes the answer (or why there is none); it is called once, by whoever
	// resolves the claim (the control subscription, keepAlive or the claimer), so it
	// must not block: a hostJob hands itself to a worker.
	done claimWaiter
}

// claimWaiter takes the answer to a claim (pendingClaim.done): an interface a job's
// hostJob implements, not a closure per claim.
type claimWaiter interface{ claimed(claimResult) }

type claimResult struct {
	r   wire.ClaimReply
	err error
}

// claim sends cl and hands its answer to done (see pendingClaim.done); no goroutine
// waits for it.
func (c *claimer) claim(cl wire.Claim, msg jetstream.Msg, done claimWaiter) {
	p := pendingClaim{job: cl.Job, msg: msg, at: time.Now(), done: done}
	c.mu.Lock()
	if err := c.stopped; err != nil {
		c.mu.Unlock()
		done.claimed(claimResult{err: err})
		return
	}
	c.next++
	cl.N = c.next
	c.pending[cl.N] = p
	c.mu.Unlock()
	c.events.claim(cl)
}

// answer hands r to the claim it answers; an answer to no pending claim (late, or
// naming another job) is dropped.
func (c *claimer) answer(r wire.ClaimReply) {
	c.mu.Lock()
	p, ok := c.pending[r.N]
	if ok && p.job == r.Job {
		delete(c.pending, r.N)
	}
	c.mu.Unlock()
	if ok && p.job == r.Job {
		p.done.claimed(claimResult{r: r})
	}
}

// waiting are the job messages whose claims wait for the engine's answer: their
// progress is acked with the running jobs', so a claim answered later than the stream's
// ack wait does not see its message given to another host meanwhile.
func (c *claimer) waiting() []jetstream.Msg {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]jetstream.Msg, 0, len(c.pending))
	for _, p := range c.pending {
		if p.msg != nil {
			out = append(out, p.msg)
		}
	}
	return out
}

// expire fails the claims that waited claimTimeout by now; their answers are taken as
// lost, so the claims queued behind them go.
func (c *claimer) expire(now time.Time) {
	c.mu.Lock()
	var expired []pendingClaim
	for n, p := range c.pending {
		if now.Sub(p.at) >= claimTimeout {
			delete(c.pending, n)
			expired = append(expired, p)
		}
	}
	c.mu.Unlock()
	for _, p := range expired {
		p.done.claimed(claimResult{err: fmt.Errorf("the engine did not answer the claim within %s", claimTimeout)})
	}
	if len(expired) > 0 {
		c.events.answered(true)
	}
}

// fail fails every pending claim, and every later one, with err.
func (c *claimer) fail(err error) {
	c.mu.Lock()
	c.stopped = err
	failed := make([]pendingClaim, 0, len(c.pending))
	for n, p := range c.pending {
		delete(c.pending, n)
		failed = append(failed, p)
	}
	c.mu.Unlock()
	for _, p := range failed {
		p.done.claimed(claimResult{err: err})
	}
}
