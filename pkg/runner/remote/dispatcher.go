package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Defaults of DispatcherConfig.
const (
	DefaultJobTimeout   = 5 * time.Second
	DefaultQueueTimeout = 2 * time.Minute
	cancelGrace         = 3 * time.Second
)

// ErrNoLog is ReadLog's answer: the engine keeps a remote job's output itself (the
// task manager's tail of the final attempt), the host's log is not reachable.
var ErrNoLog = errors.New("a remote job's log is kept by the engine")

// DispatcherConfig configures a Dispatcher.
type DispatcherConfig struct {
	// Conn is the engine's NATS connection (JetStream enabled on its server).
	Conn *nats.Conn
	// JobTimeout is the heartbeat timeout: a job whose host stops acking it is handed
	// to another host after it (the consumer's AckWait). Default DefaultJobTimeout.
	JobTimeout time.Duration
	// QueueTimeout bounds how long a job may wait for a host to take it; the failure
	// names the labels it asked for. Default DefaultQueueTimeout.
	QueueTimeout time.Duration
	// Labels returns labels a job requires of its host beyond its own (Job.Labels, from
	// the session's `workers.labels` setting); nil: none. Its labels win on a clash.
	Labels func(runnerapi.Job) map[string]string
	// FailOnDisconnect fails the running jobs when the NATS connection is lost
	// (--dispatch remote); otherwise they wait for it to come back (auto).
	FailOnDisconnect bool
	Log              *zap.Logger
}

// Dispatcher is the engine's runner of remote jobs: it publishes each job on the
// work-queue stream, gives its attempts numbers as host agents claim it, relays their
// events to the task manager, answers their model and tool calls with the job's Host,
// and ignores every attempt but the current one. It is safe for concurrent use.
type Dispatcher struct {
	cfg  DispatcherConfig
	nc   *nats.Conn
	js   jetstream.JetStream
	jobs jetstream.Stream
	log  *zap.Logger
	subs []*nats.Subscription
	// ackInbox is where the stream's acks of the job messages come (ackInbox.<job id>):
	// one subscription for all, and Start does not wake for its job's.
	ackInbox string

	// The job messages are encoded and published by one goroutine (publishLoop), in
	// the order Start queued them: on a long-lived stack (in each Start's fresh one the
	// encoder's descent grew the stack, which cost more than the encoding), and many
	// jobs started together leave in one write.
	pubMu   sync.Mutex
	pubQ    []*job
	pubWake chan struct{} // cap 1
	pubStop chan struct{}
	stopPub sync.Once
	pubBuf  []byte // publishLoop's: each job's message is written over the last one's
	// spareIDs are job ids publishLoop made ahead (wire.NewJobID, as random): Start
	// takes one, rather than run the generator on its caller's fresh stack (whose
	// growth, and the generator's lock taken by many Starts at once, cost more).
	idMu     sync.Mutex
	spareIDs []string
	// ctlBuf, hb, hbDec and replies are onEvent's (a subscription's handler runs one
	// message at a time): each ControlBatch is written over the last one's
	// (nats.Conn.Publish copies it), each HostBatch read into the arrays of the ones
	// before, as are the answers.
	ctlBuf  []byte
	hb      wire.HostBatch
	hbDec   wire.HostBatchDecoder
	replies []wire.ClaimReply

	mu     sync.Mutex
	byID   map[string]*job // wire id → job
	byTask map[string]*job // task id → job
	hosts  map[string]seenHost
	closed bool
	// recentIDs holds the ids of the last jobs that ended (a ring at recentAt), so a
	// late message for one is told apart from one for a job this engine never issued.
	// Searched, not indexed: only a message for no running job looks, while a map
	// beside it cost every job an insert and a delete.
	recentIDs []string
	recentAt  int
	// unclaimed counts the jobs no host claimed yet (job.unclaimed): one sweep
	// (sweeping while any is) shows them waiting and fails them at the queue timeout,
	// not two timers per job.
	unclaimed int
	sweeping  bool
}

// whatCall is what current is asked for by a model or tool call.
const whatCall = "call"

// recentJobs bounds Dispatcher.recentIDs.
const recentJobs = 4096

type seenHost struct {
	at time.Time
	hb wire.Heartbeat
}

// job is one remote job; fields below mu are guarded by the Dispatcher's mutex.
type job struct {
	id     string
	taskID string
	rj     runnerapi.Job
	labels map[string]string
	done   chan struct{}

	emitMu sync.Mutex // serializes emit; never held with the Dispatcher's mutex
	emit   func(runnerapi.Event) error

	seq           uint64    // the job message's stream sequence
	queuedAt      time.Time // when it was published
	startErr      error     // the stream refused the job: Start returns it
	unclaimed     bool      // no host claimed it yet: the sweep watches it
	shownWaiting  bool      // the sweep reported it waiting
	dropAtEnd     bool      // Start deletes its message once it ended (no host ran it)
	attempt       int
	host          string
	ack           string          // the current attempt's ack subject (wire.Claim.Ack)
	attemptCtx    context.Context // made by the attempt's first call (current), nil until then
	attemptCancel context.CancelFunc
	evSeq         uint64
	ended         bool
	cancelled     bool
	cancelReason  string
}

// NewDispatcher creates (or updates) the job stream and its consumer and subscribes to
// the hosts' subjects.
func NewDispatcher(ctx context.Context, cfg DispatcherConfig) (*Dispatcher, error) {
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = DefaultJobTimeout
	}
	if cfg.QueueTimeout <= 0 {
		cfg.QueueTimeout = DefaultQueueTimeout
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	js, err := jetstream.New(cfg.Conn)
	if err != nil {
		return nil, err
	}
	if err := EnsureStream(ctx, js, cfg.JobTimeout); err != nil {
		return nil, err
	}
	stream, err := js.Stream(ctx, wire.Stream)
	if err != nil {
		return nil, fmt.Errorf("the job stream %s: %w", wire.Stream, err)
	}
	d := &Dispatcher{cfg: cfg, nc: cfg.Conn, js: js, log: cfg.Log, jobs: stream, byID: map[string]*job{}, byTask: map[string]*job{},
		hosts: map[string]seenHost{}, ackInbox: cfg.Conn.NewInbox(),
		pubWake: make(chan struct{}, 1), pubStop: make(chan struct{})}
	for subject, handler := range map[string]nats.MsgHandler{
		d.ackInbox + ".*":  d.onPubAck,
		wire.ClaimWildcard: d.onClaim, wire.EventWildcard: d.onEvent,
		wire.ChatWildcard: d.onCall, wire.ToolWildcard: d.onCall, wire.HeartbeatWildcard: d.onHeartbeat,
	} {
		sub, err := d.nc.Subscribe(subject, handler)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("subscribe to %s: %w", subject, err)
		}
		_ = sub.SetPendingLimits(-1, -1)
		d.subs = append(d.subs, sub)
	}
	if err := d.nc.FlushTimeout(5 * time.Second); err != nil {
		d.Close()
		return nil, fmt.Errorf("subscribe to the hosts' subjects: %w", err)
	}
	go d.publishLoop()
	return d, nil
}

// EnsureStream creates or updates the work-queue stream and the hosts' consumer, whose
// AckWait is the heartbeat timeout.
func EnsureStream(ctx context.Context, js jetstream.JetStream, timeout time.Duration) error {
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: wire.Stream, Subjects: []string{wire.JobsSubject}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: time.Minute,
	})
	if err != nil {
		return fmt.Errorf("create the job stream %s: %w", wire.Stream, err)
	}
	_, err = js.CreateOrUpdateConsumer(ctx, wire.Stream, jetstream.ConsumerConfig{
		Durable: wire.Consumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: timeout,
		MaxDeliver: -1, MaxAckPending: 100000, MaxWaiting: 4096,
	})
	if err != nil {
		return fmt.Errorf("create the hosts' consumer %s: %w", wire.Consumer, err)
	}
	return nil
}

var _ runnerapi.Runner = (*Dispatcher)(nil)

// HostsAlive is how many host agents heartbeated within the job timeout.
func (d *Dispatcher) HostsAlive() int {
	if !d.nc.IsConnected() {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	cutoff := time.Now().Add(-d.cfg.JobTimeout)
	for _, h := range d.hosts {
		if h.at.After(cutoff) {
			n++
		}
	}
	return n
}

// Start implements runnerapi.Runner: the job goes on the stream and Start returns once
// its current attempt reported a terminal event (or the job was cancelled, or waited
// for a host longer than the queue timeout). Its own frame is small, the work is in
// helpers that return before it waits: a caller's fresh goroutine then runs it without
// growing its stack (a copy of the stack per job).
func (d *Dispatcher) Start(ctx context.Context, rj runnerapi.Job, emit func(runnerapi.Event) error) error {
	j, err := d.enqueue(rj, emit)
	if err != nil {
		return err
	}
	// Woken here, not in enqueue: waking the loop is the deepest call of the path, and
	// enqueue's frame is gone by then.
	select {
	case d.pubWake <- struct{}{}:
	default: // the loop is awake already
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		d.cancelled(ctx, j)
	}
	return d.ended(j)
}

// enqueue registers a job and queues it for publishLoop (Start wakes it).
func (d *Dispatcher) enqueue(rj runnerapi.Job, emit func(runnerapi.Event) error) (*job, error) {
	j := &job{id: d.newID(), taskID: rj.ID, rj: rj, emit: emit, done: make(chan struct{})}
	j.labels = jobLabels(rj, d.cfg.Labels)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, errors.New("the remote dispatcher is closed")
	}
	d.byID[j.id], d.byTask[rj.ID] = j, j
	// Until a host claims it, the sweep watches it: the stream's ack must come within
	// publishTimeout, a host must take it within the queue timeout, and it is shown
	// waiting after waitingAfter (most are claimed well within that and never wait).
	j.queuedAt = time.Now()
	j.unclaimed = true
	d.unclaimed++
	if !d.sweeping {
		d.sweeping = true
		go d.sweep()
	}
	d.mu.Unlock()
	d.pubMu.Lock()
	d.pubQ = append(d.pubQ, j)
	d.pubMu.Unlock()
	return j, nil
}

// cancelled stops j, whose Start's context ended, and waits for its end (a grace, then
// the engine ends it).
func (d *Dispatcher) cancelled(ctx context.Context, j *job) {
	d.cancel(j, context.Cause(ctx).Error())
	t := time.NewTimer(cancelGrace)
	defer t.Stop()
	select {
	case <-j.done:
	case <-t.C:
		d.finish(j, runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: context.Cause(ctx).Error()})
	}
}

// ended is Start's answer once j ended; a job no host ran has its message deleted.
func (d *Dispatcher) ended(j *job) error {
	d.mu.Lock()
	drop, err := j.dropAtEnd, j.startErr
	d.mu.Unlock()
	if drop {
		d.drop(j)
	}
	return err
}

// spareIDsLow and spareIDsHigh bound Dispatcher.spareIDs: publishLoop makes more when
// fewer than low are left.
const spareIDsLow, spareIDsHigh = 256, 1024

// newID is a fresh job id: a spare one, or one made now.
func (d *Dispatcher) newID() string {
	d.idMu.Lock()
	if n := len(d.spareIDs); n > 0 {
		id := d.spareIDs[n-1]
		d.spareIDs = d.spareIDs[:n-1]
		d.idMu.Unlock()
		return id
	}
	d.idMu.Unlock()
	return wire.NewJobID()
}

// refillIDs makes spare job ids when few are left.
func (d *Dispatcher) refillIDs() {
	d.idMu.Lock()
	n := len(d.spareIDs)
	d.idMu.Unlock()
	if n >= spareIDsLow {
		return
	}
	ids := make([]string, 0, spareIDsHigh-n)
	for range spareIDsHigh - n {
		ids = append(ids, wire.NewJobID())
	}
	d.idMu.Lock()
	d.spareIDs = append(d.spareIDs, ids...)
	d.idMu.Unlock()
}

// publishLoop publishes the jobs Start queued until the dispatcher closes; a job that
// cannot be encoded or published is refused (its Start returns the error).
func (d *Dispatcher) publishLoop() {
	for {
		d.refillIDs()
		select {
		case <-d.pubWake:
		case <-d.pubStop:
			return
		}
		// Let the goroutines that are ready run first: Starts called together queue
		// their jobs meanwhile, and they leave in one write. Without it the loop woke
		// for the first job and published the others as they came, a write (and the
		// server's read) for every 5 jobs of 1,000 started at once; a lone job waits
		// for nothing (with no other goroutine ready, Gosched returns at once).
		runtime.Gosched()
		for {
			d.pubMu.Lock()
			q := d.pubQ
			d.pubQ = nil
			d.pubMu.Unlock()
			if len(q) == 0 {
				break
			}
			for _, j := range q {
				if err := d.publish(j); err != nil {
					d.refused(j, fmt.Errorf("queue the job on NATS: %w", err))
				}
			}
		}
	}
}

// publish puts j on the stream; the stream's ack comes to onPubAck.
func (d *Dispatcher) publish(j *job) error {
	d.mu.Lock()
	ended := j.ended // cancelled while queued here: no host need see it
	d.mu.Unlock()
	if ended {
		return nil
	}
	job := wire.FromRunner(j.id, j.rj, j.labels)
	body, err := wire.AppendJob(d.pubBuf[:0], &job)
	if err != nil {
		return err
	}
	d.pubBuf = keepBuf(body)
	// No Nats-Msg-Id: the engine publishes a job once, and a second copy of its message
	// (were one ever made) runs no second task: a claim must name the job's own message
	// (its stream sequence, Dispatcher.claim), so the copy is refused and terminated.
	// The stream's duplicate tracking cost the server a header lookup and an entry per job.
	if err := d.nc.PublishRequest(wire.JobsSubject, d.ackInbox+"."+j.id, body); err != nil {
		return err
	}
	if ce := d.log.Check(zap.DebugLevel, "remote job queued"); ce != nil { // no fields built for no line
		ce.Write(zap.String("task", j.taskID), zap.String("job", j.id))
	}
	return nil
}

// publishTimeout bounds the wait for the stream's ack of a job message.
const publishTimeout = 10 * time.Second

// pubAck is the stream's answer to a published message (JetStream's PubAck or its
// API error).
type pubAck struct {
	Seq   uint64 `json:"seq"`
	Error *struct {
		Code        int    `json:"code"`
		Description string `json:"description"`
	} `json:"error,omitempty"`
}

// onPubAck takes the stream's ack of a job message: its sequence, or why the stream
// did not take it (the job's Start then returns that error, as a failed publish).
func (d *Dispatcher) onPubAck(msg *nats.Msg) {
	seq, plain := wire.PubAckSeq(msg.Data) // the common ack, read by hand
	var err error
	if !plain || seq == 0 {
		seq, err = readPubAck(msg)
	}
	d.mu.Lock()
	j := d.byID[wire.JobIDOf(msg.Subject)]
	if j != nil && err == nil && j.seq == 0 {
		j.seq = seq
	}
	d.mu.Unlock()
	if j != nil && err != nil {
		d.refused(j, fmt.Errorf("queue the job on NATS: %w", err))
	}
}

// readPubAck reads the stream's answer to a job's publish: its sequence, or why the
// stream did not take the job.
func readPubAck(msg *nats.Msg) (uint64, error) {
	var ack pubAck
	switch {
	case len(msg.Data) == 0 && msg.Header.Get("Status") == "503":
		return 0, fmt.Errorf("no JetStream stream takes %s", wire.JobsSubject)
	case wire.Unmarshal(msg.Data, &ack) != nil:
		return 0, fmt.Errorf("unreadable answer of the stream: %q", msg.Data)
	case ack.Error != nil:
		return 0, fmt.Errorf("the stream refused the job: %s (%d)", ack.Error.Description, ack.Error.Code)
	case ack.Seq == 0:
		return 0, fmt.Errorf("the stream did not say where it put the job: %q", msg.Data)
	}
	return ack.Seq, nil
}

// refused ends a job the stream did not take: no event, Start returns err.
func (d *Dispatcher) refused(j *job, err error) {
	d.mu.Lock()
	if j.ended || j.attempt > 0 {
		d.mu.Unlock()
		return
	}
	d.endLocked(j)
	j.startErr = err
	d.mu.Unlock()
	close(j.done)
}

// sweepEvery is how often the sweep looks at the unclaimed jobs: a job is shown
// waiting, and fails at the queue timeout, this much late at most.
const sweepEvery = 50 * time.Millisecond

// sweep shows the unclaimed jobs waiting once they waited waitingAfter (the task is
// queued again, saying for what) and fails those that waited the queue timeout (Start
// deletes their messages); it returns once no job is unclaimed.
func (d *Dispatcher) sweep() {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for range t.C {
		now := time.Now()
		var waiting []runnerapi.Event
		var waitingJobs, expired, unacked []*job
		d.mu.Lock()
		if d.unclaimed == 0 {
			d.sweeping = false
			d.mu.Unlock()
			return
		}
		for _, j := range d.byID {
			if !j.unclaimed {
				continue
			}
			switch age := now.Sub(j.queuedAt); {
			case j.seq == 0 && age >= publishTimeout:
				unacked = append(unacked, j) // refused below, which forgets it
			case age >= d.cfg.QueueTimeout:
				d.claimedLocked(j)
				j.dropAtEnd = true
				expired = append(expired, j)
			case age >= waitingAfter && !j.shownWaiting:
				j.shownWaiting = true
				j.evSeq++
				waiting = append(waiting, runnerapi.Event{JobID: j.taskID, Sequence: j.evSeq, Kind: runnerapi.EventWaiting, Reason: d.waitingReasonLocked(j)})
				waitingJobs = append(waitingJobs, j)
			}
		}
		d.mu.Unlock()
		for i, j := range waitingJobs {
			d.deliver(j, waiting[i])
		}
		for _, j := range expired {
			d.finish(j, runnerapi.Event{Kind: runnerapi.EventFailed, Category: "no_host", Error: d.noHostReason(j)})
		}
		for _, j := range unacked {
			d.refused(j, fmt.Errorf("queue the job on NATS: the stream did not ack it within %s", publishTimeout))
		}
	}
}

// waitingAfter is how long a job may wait for its claim before it is shown waiting.
const waitingAfter = 250 * time.Millisecond

// jobLabels is what a job requires of its host: its own labels over extra's.
func jobLabels(rj runnerapi.Job, extra func(runnerapi.Job) map[string]string) map[string]string {
	var out map[string]string
	if extra != nil {
		for k, v := range extra(rj) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	for k, v := range rj.Labels {
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// waitingReasonLocked says what an unclaimed job waits for: a host agent offering its
// labels (naming those no live host offers), or any host agent.
func (d *Dispatcher) waitingReasonLocked(j *job) string {
	if len(j.labels) == 0 {
		return "waiting for a host agent"
	}
	var want []string
	for k, v := range j.labels {
		want = append(want, k+"="+v)
	}
	sort.Strings(want)
	if missing := d.missingLabelsLocked(j); len(missing) > 0 {
		return fmt.Sprintf("waiting for a host agent offering %s (no host offers %s)", strings.Join(want, ", "), strings.Join(missing, ", "))
	}
	return "waiting for a host agent offering " + strings.Join(want, ", ")
}

// missingLabelsLocked lists j's labels no host that heartbeated offers, sorted.
func (d *Dispatcher) missingLabelsLocked(j *job) []string {
	var missing []string
	for k, v := range j.labels {
		offered := false
		for _, h := range d.hosts {
			if h.hb.Labels[k] == v {
				offered = true
			}
		}
		if !offered {
			missing = append(missing, k+"="+v)
		}
	}
	sort.Strings(missing)
	return missing
}

// noHostReason says why no host took j within the queue timeout.
func (d *Dispatcher) noHostReason(j *job) string {
	if len(j.labels) == 0 {
		return fmt.Sprintf("no host agent took the job within %s", d.cfg.QueueTimeout)
	}
	d.mu.Lock()
	missing := d.missingLabelsLocked(j)
	d.mu.Unlock()
	if len(missing) == 0 {
		return fmt.Sprintf("no host agent took the job within %s", d.cfg.QueueTimeout)
	}
	return fmt.Sprintf("no host agent offers the label %s (waited %s)", strings.Join(missing, ", "), d.cfg.QueueTimeout)
}

func (d *Dispatcher) forget(j *job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forgetLocked(j)
}

func (d *Dispatcher) forgetLocked(j *job) {
	if d.byID[j.id] == j {
		delete(d.byID, j.id)
		if len(d.recentIDs) < recentJobs {
			d.recentIDs = append(d.recentIDs, j.id)
		} else {
			d.recentIDs[d.recentAt] = j.id
			d.recentAt = (d.recentAt + 1) % recentJobs
		}
	}
	if d.byTask[j.taskID] == j {
		delete(d.byTask, j.taskID)
	}
	d.claimedLocked(j)
}

// claimedLocked takes j off the unclaimed jobs the sweep watches.
func (d *Dispatcher) claimedLocked(j *job) {
	if j.unclaimed {
		j.unclaimed = false
		d.unclaimed--
	}
}

// finish ends j with a terminal event made by the engine (no host reported one).
func (d *Dispatcher) finish(j *job, ev runnerapi.Event) {
	d.mu.Lock()
	if j.ended {
		d.mu.Unlock()
		return
	}
	d.endLocked(j)
	j.evSeq++
	ev.JobID, ev.Sequence = j.taskID, j.evSeq
	d.mu.Unlock()
	d.deliver(j, ev)
	close(j.done)
}

func (d *Dispatcher) endLocked(j *job) {
	j.ended = true
	if j.attemptCancel != nil {
		j.attemptCancel()
	}
	d.forgetLocked(j)
}

func (d *Dispatcher) deliver(j *job, ev runnerapi.Event) {
	j.emitMu.Lock()
	defer j.emitMu.Unlock()
	if err := j.emit(ev); err != nil {
		d.log.Debug("remote job event not delivered", zap.String("task", j.taskID), zap.Error(err))
	}
}

// cancel asks j's host to stop it; a job no host holds yet ends here.
func (d *Dispatcher) cancel(j *job, reason string) {
	d.mu.Lock()
	if j.ended {
		d.mu.Unlock()
		return
	}
	j.cancelled, j.cancelReason = true, reason
	claimed, host := j.attempt > 0, j.host
	d.mu.Unlock()
	if !claimed {
		d.finish(j, runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: reason})
		d.drop(j)
		return
	}
	body, _ := wire.Marshal(wire.Control{Cancel: true, Reason: reason})
	_ = d.nc.Publish(wire.ControlSubject(host, j.id), body)
}

// drop deletes an ended job's message from the stream, so no host claims it only to be
// told to terminate it. Best effort: a host that holds it already is refused at its claim.
func (d *Dispatcher) drop(j *job) {
	d.mu.Lock()
	seq := j.seq
	d.mu.Unlock()
	if seq == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := d.jobs.DeleteMsg(ctx, seq); err != nil {
		d.log.Debug("could not drop an ended job's message", zap.String("job", j.id), zap.Error(err))
	}
}

// Cancel implements runnerapi.Runner.
func (d *Dispatcher) Cancel(_ context.Context, taskID, reason string) (bool, error) {
	d.mu.Lock()
	j := d.byTask[taskID]
	d.mu.Unlock()
	if j == nil {
		return false, nil
	}
	d.cancel(j, reason)
	return true, nil
}

// Send implements runnerapi.Runner.
func (d *Dispatcher) Send(_ context.Context, taskID, input string) error {
	d.mu.Lock()
	j := d.byTask[taskID]
	var host string
	if j != nil {
		host = j.host
	}
	d.mu.Unlock()
	if j == nil {
		return runnerapi.ErrUnknownJob
	}
	if host == "" {
		return errors.New("the remote job has not started on a host yet")
	}
	body, _ := wire.Marshal(wire.Control{Send: input})
	return d.nc.Publish(wire.ControlSubject(host, j.id), body)
}

// ReadLog implements runnerapi.Runner: see ErrNoLog.
func (d *Dispatcher) ReadLog(context.Context, string, int64, int64) (runnerapi.LogPage, error) {
	return runnerapi.LogPage{}, ErrNoLog
}

// Close cancels the remote jobs still running (a stopping engine cancels its remote
// jobs) and stops listening.
func (d *Dispatcher) Close() {
	d.mu.Lock()
	d.closed = true
	var running []*job
	for _, j := range d.byID {
		running = append(running, j)
	}
	d.mu.Unlock()
	for _, j := range running {
		d.cancel(j, "the engine stopped")
		d.finish(j, runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: "the engine stopped"})
	}
	d.stopPub.Do(func() { close(d.pubStop) })
	_ = d.nc.Flush()
	for _, s := range d.subs {
		_ = s.Unsubscribe()
	}
}

// Disconnected is called when the NATS connection is lost: with FailOnDisconnect the
// running jobs fail now, else they wait for it to return.
func (d *Dispatcher) Disconnected(err error) {
	if !d.cfg.FailOnDisconnect {
		return
	}
	d.mu.Lock()
	var running []*job
	for _, j := range d.byID {
		running = append(running, j)
	}
	d.mu.Unlock()
	for _, j := range running {
		d.finish(j, runnerapi.Event{Kind: runnerapi.EventFailed, Category: "nats_lost", Recoverable: true,
			Error: fmt.Sprintf("lost the connection to NATS while the job ran remotely: %v", err)})
	}
}

// keepBuf is b to write the next message over, or nil when b grew past what is worth
// keeping (one large message does not pin its buffer for good).
func keepBuf(b []byte) []byte {
	if cap(b) > 64<<10 {
		return nil
	}
	return b
}

func reply(msg *nats.Msg, v any) {
	if msg.Reply == "" {
		return
	}
	if b, err := wire.Marshal(v); err == nil {
		_ = msg.Respond(b)
	}
}

// sender returns the host a message on a per-host subject comes from (the server let
// only that host's user publish there) and whether it may be answered: a request's reply
// subject must be one of that host's inboxes, or the engine's answer could be sent onto
// another party's subject. Anything else is logged and dropped.
func (d *Dispatcher) sender(msg *nats.Msg, request bool) (string, bool) {
	host := wire.HostOf(msg.Subject)
	if !wire.ValidHostName(host) {
		d.log.Warn("dropped a message on a subject that names no host", zap.String("subject", msg.Subject))
		return "", false
	}
	if request && !strings.HasPrefix(msg.Reply, wire.InboxPrefix(host)+".") {
		d.log.Warn("dropped a host's request whose reply subject is not one of its inboxes",
			zap.String("host", host), zap.String("subject", msg.Subject), zap.String("reply", msg.Reply))
		return "", false
	}
	return host, true
}

// onClaim answers a host agent that took a job from the stream: run it as the next
// attempt, or not (unknown, ended or cancelled job: the host terminates the message).
// A batch (wire.ClaimsSubject) is answered claim by claim in one reply.
func (d *Dispatcher) onClaim(msg *nats.Msg) {
	host, ok := d.sender(msg, true)
	if !ok {
		return
	}
	if wire.IsClaims(msg.Subject) {
		var b wire.Claims
		if err := wire.Unmarshal(msg.Data, &b); err != nil || (b.Host != "" && b.Host != host) {
			d.log.Warn("refused a host's claims: unreadable, or naming another host", zap.String("host", host), zap.String("named", b.Host))
			reply(msg, wire.ClaimsReply{})
			return
		}
		out := wire.ClaimsReply{Replies: make([]wire.ClaimReply, len(b.Claims))}
		for i, c := range b.Claims {
			c.Host = host
			out.Replies[i] = d.claim(c.Job, c)
		}
		reply(msg, out)
		return
	}
	var c wire.Claim
	if err := wire.Unmarshal(msg.Data, &c); err != nil || (c.Host != "" && c.Host != host) {
		d.log.Warn("refused a host's claim: unreadable, or naming another host", zap.String("host", host), zap.String("named", c.Host))
		reply(msg, wire.ClaimReply{Reason: "unreadable claim, or one naming another host"})
		return
	}
	c.Host = host
	reply(msg, d.claim(wire.JobIDOf(msg.Subject), c))
}

func (d *Dispatcher) claim(id string, c wire.Claim) wire.ClaimReply {
	d.mu.Lock()
	j := d.byID[id]
	switch {
	case j == nil:
		d.mu.Unlock()
		d.log.Warn("a host claimed a job this engine did not issue or no longer runs", zap.String("host", c.Host), zap.String("job", id))
		return wire.ClaimReply{Reason: "this engine did not issue the job, or it has ended"}
	case j.ended, j.cancelled:
		d.mu.Unlock()
		return wire.ClaimReply{Reason: "the job was cancelled or has ended"}
	case c.Probe:
		d.mu.Unlock()
		return wire.ClaimReply{Run: true}
	}
	seq, ok := wire.AckSeq(c.Ack)
	if ok && j.seq == 0 {
		// The host was quicker than the publish's ack to the engine; it holds the message,
		// so the sequence it names is the job's.
		j.seq = seq
	}
	if !ok || seq != j.seq {
		d.mu.Unlock()
		d.log.Warn("a host claimed a job with an ack subject that is not the job's", zap.String("host", c.Host), zap.String("job", id))
		return wire.ClaimReply{Reason: "the claim's ack subject does not name the job's message"}
	}
	if j.attemptCancel != nil {
		j.attemptCancel() // the earlier attempt's calls end; its results are ignored
	}
	// The new attempt's context is made by its first call (current): most jobs make none.
	j.attemptCtx, j.attemptCancel = nil, nil
	j.attempt++
	d.claimedLocked(j)
	prev := j.host
	j.host, j.ack = c.Host, c.Ack
	attempt := j.attempt
	d.mu.Unlock()
	if attempt > 1 {
		d.log.Info("remote job moved to another attempt", zap.String("task", j.taskID), zap.String("from", prev),
			zap.String("to", c.Host), zap.Int("attempt", attempt))
	}
	return wire.ClaimReply{Run: true, Attempt: attempt}
}

// current returns the job of a per-job subject when host's attempt holds it now; else
// it logs why not and returns false. Late messages of an attempt that was superseded
// or of a job that ended are expected (a slow or cut-off host) and logged at debug
// level; a message for a job this engine did not issue, or for a job another host holds
// now, is forged or misrouted and logged as a warning.
// The context (the attempt's) comes only for a call (what is whatCall).
func (d *Dispatcher) current(id, host string, attempt int, what string) (*job, context.Context, bool) {
	d.mu.Lock()
	j := d.byID[id]
	var why string
	forged := false
	switch {
	case j == nil:
		if slices.Contains(d.recentIDs, id) {
			why = "the job has ended"
		} else {
			why, forged = "this engine did not issue the job", true
		}
	case j.ended:
		why = "the job has ended"
	case attempt < j.attempt:
		why = "a later attempt holds the job"
	case attempt != j.attempt || j.host != host:
		why, forged = "the job is not this host's", true
	}
	var ctx context.Context
	if why == "" && what == whatCall {
		if j.attemptCtx == nil { // ended by the next claim or the job's end (endLocked)
			j.attemptCtx, j.attemptCancel = context.WithCancel(context.Background())
		}
		ctx = j.attemptCtx
	}
	d.mu.Unlock()
	if why == "" {
		return j, ctx, true
	}
	log := d.log.Debug
	if forged {
		log = d.log.Warn
	}
	log("dropped a host's "+what+": "+why, zap.String("host", host), zap.String("job", id), zap.Int("attempt", attempt))
	return nil, nil, false
}

// onEvent relays batches of attempts' events to the task manager: one attempt's on its
// job's event subject, or several attempts' of one host on its wire.EventsSubject.
func (d *Dispatcher) onEvent(msg *nats.Msg) {
	host, ok := d.sender(msg, false)
	if !ok {
		return
	}
	if wire.IsEvents(msg.Subject) {
		hb := &d.hb // refilled message after message: nothing of it is kept past this one
		if err := d.hbDec.Decode(msg.Data, hb); err != nil {
			d.log.Warn("unreadable job events", zap.String("subject", msg.Subject), zap.Error(err))
			return
		}
		if hb.Host != "" && hb.Host != host {
			d.log.Warn("dropped a host's events naming another host", zap.String("host", host), zap.String("named", hb.Host))
			return
		}
		if len(hb.Claims) > 0 {
			// Answered on the host's own control subject, which only it may read: the
			// engine picks where the answer goes, the host does not.
			out := wire.ControlBatch{Claims: slices.Grow(d.replies[:0], len(hb.Claims))[:len(hb.Claims)]}
			d.replies = out.Claims
			for i, c := range hb.Claims {
				c.Host = host
				if c.Probe { // probes ask by request (Agent.handle); not in a batch
					out.Claims[i] = wire.ClaimReply{Reason: "a probe is a request"}
				} else {
					out.Claims[i] = d.claim(c.Job, c)
				}
				out.Claims[i].Job, out.Claims[i].N = c.Job, c.N
			}
			d.ctlBuf = wire.AppendControlBatch(d.ctlBuf[:0], &out)
			_ = d.nc.Publish(wire.ControlBatchSubject(host), d.ctlBuf)
			d.ctlBuf = keepBuf(d.ctlBuf)
		}
		for _, b := range hb.Jobs {
			d.events(host, b.Job, b)
		}
		return
	}
	var b wire.Events
	if err := wire.Unmarshal(msg.Data, &b); err != nil {
		d.log.Warn("unreadable job events", zap.String("subject", msg.Subject), zap.Error(err))
		return
	}
	d.events(host, wire.JobIDOf(msg.Subject), b)
}

// events relays one attempt's events; the events of any attempt but the current one are
// dropped. At the terminal event the engine acks the job's message on the stream: it has
// the result, the work queue may drop the job.
func (d *Dispatcher) events(host, id string, b wire.Events) {
	if b.Host != "" && b.Host != host {
		d.log.Warn("dropped a host's events naming another host", zap.String("host", host), zap.String("named", b.Host),
			zap.String("job", id))
		return
	}
	j, _, ok := d.current(id, host, b.Attempt, "events")
	if !ok {
		return
	}
	for _, e := range b.Events {
		ev := e.Runner()
		d.mu.Lock()
		if j.ended || j.attempt != b.Attempt { // re-checked: a claim may have come in between
			d.mu.Unlock()
			return
		}
		j.evSeq++
		ev.JobID, ev.Sequence = j.taskID, j.evSeq
		if ev.Kind == runnerapi.EventStarted {
			ev.Host, ev.Attempt = host, b.Attempt
		}
		if j.cancelled && ev.Kind == runnerapi.EventFailed {
			ev = runnerapi.Event{JobID: j.taskID, Sequence: j.evSeq, Kind: runnerapi.EventCancelled, Reason: j.cancelReason}
		}
		terminal := ev.Kind.Terminal()
		ack := j.ack
		if terminal {
			d.endLocked(j)
		}
		d.mu.Unlock()
		d.deliver(j, ev)
		if terminal {
			if err := d.nc.Publish(ack, []byte("+ACK")); err != nil {
				d.log.Debug("ack of a finished job not sent; it will be redelivered and refused", zap.String("job", j.id), zap.Error(err))
			}
			close(j.done)
			return
		}
	}
}

// onCall serves a model or tool call of the attempt a host holds now; any other is refused.
func (d *Dispatcher) onCall(msg *nats.Msg) {
	host, ok := d.sender(msg, true)
	if !ok {
		return
	}
	var c wire.Call
	if err := json.Unmarshal(msg.Data, &c); err != nil {
		reply(msg, wire.Step{Done: true, Refuse: "unreadable call"})
		return
	}
	j, ctx, ok := d.current(wire.JobIDOf(msg.Subject), host, c.Attempt, whatCall)
	if !ok || j.rj.Host == nil {
		reply(msg, wire.Step{Done: true, Refuse: "the engine answers only the attempt that holds the job now"})
		return
	}
	go serveCall(ctx, d.nc, msg, c, j.rj.Host)
}

func (d *Dispatcher) onHeartbeat(msg *nats.Msg) {
	host, ok := d.sender(msg, false)
	if !ok {
		return
	}
	var hb wire.Heartbeat
	if err := wire.Unmarshal(msg.Data, &hb); err != nil || (hb.Host != "" && hb.Host != host) {
		return
	}
	hb.Host = host
	d.mu.Lock()
	d.hosts[host] = seenHost{at: time.Now(), hb: hb}
	d.mu.Unlock()
}
