package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
	running map[string]int // job id → attempt
	claims  claimer
	wg      sync.WaitGroup
	// pulled is closed once the agent has no pull request pending: a job is handed back
	// only then, or the server could deliver it right back to this stopping agent.
	pulled chan struct{}
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
	a := &Agent{cfg: cfg, nc: cfg.Conn, log: cfg.Log, running: map[string]int{}, pulled: make(chan struct{})}
	a.claims.a = a
	return a
}

// Run takes jobs until ctx ends, then hands its running jobs back to the stream (they
// run again on another host) and returns nil.
func (a *Agent) Run(ctx context.Context) error {
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
	hbCtx, stopHB := context.WithCancel(context.Background())
	defer stopHB()
	go a.heartbeat(hbCtx)
	a.log.Info("host agent taking jobs", zap.String("host", a.cfg.Name), zap.Int("slots", a.cfg.Slots), zap.Any("labels", a.cfg.Labels))
	slots := make(chan struct{}, a.cfg.Slots)
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
			a.wg.Add(1)
			go func() {
				defer a.wg.Done()
				defer func() { <-slots }()
				a.handle(ctx, msg)
			}()
		}
		for range free - got {
			<-slots
		}
	}
	close(a.pulled)
	a.wg.Wait()
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
		for id, n := range a.running {
			jobs[id] = n
		}
		a.mu.Unlock()
		if b, err := json.Marshal(wire.Heartbeat{Host: a.cfg.Name, Labels: a.cfg.Labels, Slots: a.cfg.Slots, Jobs: jobs}); err == nil {
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
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	m, err := a.nc.Request(subject, body, timeout)
	if err != nil {
		return err
	}
	return json.Unmarshal(m.Data, out)
}

// handle runs one message of the stream.
func (a *Agent) handle(ctx context.Context, msg jetstream.Msg) {
	if ctx.Err() != nil { // taken by the last pull of a stopping agent
		<-a.pulled
		_ = msg.Nak()
		return
	}
	job, err := wire.DecodeJob(msg.Data())
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
	log := a.log.With(zap.String("job", job.ID))
	for k, v := range job.Labels {
		if a.cfg.Labels[k] == v {
			continue
		}
		var r wire.ClaimReply
		if err := a.request(wire.ClaimSubject(job.ID), wire.Claim{Host: a.cfg.Name, Probe: true}, 2*time.Second, &r); err == nil && !r.Run {
			_ = msg.TermWithReason(r.Reason)
			return
		}
		_ = msg.NakWithDelay(500 * time.Millisecond) // another host may offer k=v
		return
	}
	claim, err := a.claims.claim(wire.Claim{Job: job.ID, Ack: msg.Reply()})
	if err != nil {
		log.Warn("could not claim the job from the engine; handed back", zap.Error(err))
		_ = msg.NakWithDelay(time.Second)
		return
	}
	if !claim.Run {
		log.Info("the engine does not want the job; terminated", zap.String("reason", claim.Reason))
		_ = msg.TermWithReason(claim.Reason)
		return
	}
	attempt := claim.Attempt
	out := newOutbox(a.nc, wire.EventSubject(job.ID), a.cfg.Name, attempt)
	if cwd := job.Cwd(); cwd != "" {
		if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
			out.push(runnerapi.Event{Kind: runnerapi.EventFailed, Category: "no_directory",
				Error: fmt.Sprintf("the working directory %s does not exist on host %s", cwd, a.cfg.Name)})
			return
		}
	}
	a.mu.Lock()
	a.running[job.ID] = attempt
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.running, job.ID)
		a.mu.Unlock()
	}()
	log.Info("job started", zap.Int("attempt", attempt))

	jobCtx, cancelJob := context.WithCancel(context.Background())
	defer cancelJob()
	rj := job.Runner()
	if rj.Agent != nil {
		rj.Host = &callHost{nc: a.nc, jobID: job.ID, attempt: attempt}
	}
	ctl, err := a.nc.Subscribe(wire.ControlSubject(job.ID), func(m *nats.Msg) {
		var c wire.Control
		if json.Unmarshal(m.Data, &c) != nil {
			return
		}
		switch {
		case c.Cancel:
			_, _ = a.cfg.Runner.Cancel(jobCtx, job.ID, c.Reason)
		case c.Send != "":
			_ = a.cfg.Runner.Send(jobCtx, job.ID, c.Send)
		}
	})
	if err == nil {
		defer func() { _ = ctl.Unsubscribe() }()
	}

	var (
		outMu    sync.Mutex
		handback bool // the agent is stopping: the job goes back to the stream
		lost     bool // NATS unreachable for the job timeout: another host has it now
	)
	ended := make(chan struct{})
	go func() { // progress acks keep the message ours; a partition stops the job
		tick := time.NewTicker(a.cfg.JobTimeout / 4)
		defer tick.Stop()
		lastOK := time.Now()
		for {
			select {
			case <-ended:
				return
			case <-ctx.Done():
				outMu.Lock()
				handback = true
				outMu.Unlock()
				_, _ = a.cfg.Runner.Cancel(jobCtx, job.ID, "the host agent is stopping; the job is handed back")
				select {
				case <-ended:
				case <-time.After(cancelGrace):
					cancelJob()
				}
				return
			case <-tick.C:
				err := msg.InProgress()
				if err == nil {
					err = a.nc.FlushTimeout(a.cfg.JobTimeout / 4)
				}
				if err == nil {
					lastOK = time.Now()
					continue
				}
				if time.Since(lastOK) >= a.cfg.JobTimeout {
					log.Warn("cut off from NATS for the job timeout; stopping the job (another host runs it now)",
						zap.Duration("timeout", a.cfg.JobTimeout), zap.Error(err))
					outMu.Lock()
					lost = true
					outMu.Unlock()
					_, _ = a.cfg.Runner.Cancel(jobCtx, job.ID, "host cut off from NATS")
					cancelJob()
				}
			}
		}
	}()
	var final *runnerapi.Event
	err = a.cfg.Runner.Start(jobCtx, rj, func(ev runnerapi.Event) error {
		if ev.Kind.Terminal() {
			final = &ev
			return nil
		}
		out.push(ev)
		return nil
	})
	close(ended)
	outMu.Lock()
	hb, cut := handback, lost
	outMu.Unlock()
	switch {
	case hb:
		out.close()
		log.Info("job handed back to the stream", zap.Int("attempt", attempt))
		<-a.pulled
		_ = msg.Nak()
		return
	case cut:
		out.close()
		return
	}
	if final == nil {
		reason := "the local worker ended the job without a result"
		if err != nil {
			reason = err.Error()
		}
		final = &runnerapi.Event{Kind: runnerapi.EventFailed, Category: "worker", Error: reason}
	}
	out.push(*final)
	log.Debug("job ended", zap.Int("attempt", attempt), zap.Stringer("kind", final.Kind))
}

// outbox sends one attempt's events to the engine in order (wire.Events). The first
// event (the start) and the terminal one go at once; progress between them is
// coalesced for up to progressLinger, so a short job costs two messages and a chatty
// one a few per second. A terminal event ends the outbox; the engine acks the job's
// message when it has it, so the host neither waits for a reply nor acks. A batch lost
// on the way leaves the message unacked: it is redelivered (at least once).
type outbox struct {
	nc      *nats.Conn
	subject string
	host    string
	attempt int

	mu     sync.Mutex // held while publishing, so batches leave in order
	queue  []wire.Ev
	sent   bool // the first event went
	closed bool
	timer  *time.Timer
}

// progressLinger bounds how long a progress event waits to share a message.
const progressLinger = 10 * time.Millisecond

func newOutbox(nc *nats.Conn, subject, host string, attempt int) *outbox {
	return &outbox{nc: nc, subject: subject, host: host, attempt: attempt}
}

// push queues ev; after a terminal event, or once closed, push drops events.
func (o *outbox) push(ev runnerapi.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.queue = append(o.queue, wire.EvOf(ev))
	switch {
	case !o.sent || ev.Kind.Terminal():
		o.closed = ev.Kind.Terminal()
		o.flushLocked()
	case o.timer == nil:
		o.timer = time.AfterFunc(progressLinger, o.flush)
	}
}

func (o *outbox) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
}

func (o *outbox) flushLocked() {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	if len(o.queue) == 0 {
		return
	}
	if b, err := json.Marshal(wire.Events{Host: o.host, Attempt: o.attempt, Events: o.queue}); err == nil {
		_ = o.nc.Publish(o.subject, b)
	}
	o.queue, o.sent = nil, true
}

// close drops what is queued and not sent (the attempt is handed back or lost).
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed, o.queue = true, nil
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
}

// claimer sends the agent's claims to the engine: at once when none is being answered,
// else in one batch (wire.Claims) when the answer comes. A lone job waits no longer
// than before; many jobs taken at once cost one round trip per batch, not one each.
type claimer struct {
	a     *Agent
	mu    sync.Mutex
	queue []pendingClaim
	busy  bool
}

type pendingClaim struct {
	c     wire.Claim
	reply chan claimResult
}

type claimResult struct {
	r   wire.ClaimReply
	err error
}

func (c *claimer) claim(cl wire.Claim) (wire.ClaimReply, error) {
	p := pendingClaim{c: cl, reply: make(chan claimResult, 1)}
	c.mu.Lock()
	c.queue = append(c.queue, p)
	if !c.busy {
		c.busy = true
		go c.send()
	}
	c.mu.Unlock()
	res := <-p.reply
	return res.r, res.err
}

func (c *claimer) send() {
	for {
		c.mu.Lock()
		batch := c.queue
		c.queue = nil
		if len(batch) == 0 {
			c.busy = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		b := wire.Claims{Host: c.a.cfg.Name, Claims: make([]wire.Claim, len(batch))}
		for i, p := range batch {
			b.Claims[i] = p.c
		}
		var r wire.ClaimsReply
		err := c.a.request(wire.ClaimsSubject, b, 5*time.Second, &r)
		if err == nil && len(r.Replies) != len(batch) {
			err = fmt.Errorf("the engine answered %d of %d claims", len(r.Replies), len(batch))
		}
		for i, p := range batch {
			if err != nil {
				p.reply <- claimResult{err: err}
				continue
			}
			p.reply <- claimResult{r: r.Replies[i]}
		}
	}
}
