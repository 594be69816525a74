package launcher

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// ErrPoolClosed is returned by Acquire after Close.
var ErrPoolClosed = errors.New("worker pool closed")

// PoolConfig configures a Pool.
type PoolConfig struct {
	Command Command
	// Ready is how many started workers the pool keeps waiting (default 1). It
	// bounds the pool: never more than Ready workers are idle or being started
	// for it.
	Ready int
	// StartTimeout bounds one handshake (default 10s).
	StartTimeout time.Duration
	// MaxBackoff caps the delay between refills after failed launches (default 30s).
	MaxBackoff time.Duration
	// RefillDelay is how long after an Acquire the pool starts the replacement
	// (default 10ms): a launch is several ms of CPU, and started at once it would
	// compete with the job just handed out (on 2 cores, the warm spawn's p50 went
	// from ~0.5 to ~1.7 ms).
	RefillDelay time.Duration
}

// Pool keeps Ready workers started, prepared (warmUp) and waiting, so taking one
// for a job costs no process start and no handshake, not even the one with the
// engine's host service an agent job needs: a spawn from the pool is the job's RPC
// alone.
// Acquire hands a worker over to the caller, who owns it from then on (Release
// gives it back, Kill ends it); the pool refills in the background, launching
// in parallel. A launch that fails backs the refill off exponentially, so a
// missing or broken binary is not restarted in a loop. It is safe for concurrent
// use.
type Pool struct {
	cfg    PoolConfig
	log    *zap.Logger
	now    func() time.Time
	launch func(context.Context) (*Worker, error)
	ctx    context.Context
	cancel context.CancelFunc
	fills  sync.WaitGroup

	mu       sync.Mutex
	idle     []*Worker
	starting int
	failures int
	nextTry  time.Time
	// timer, when set, starts a refill later (after an Acquire, or a backoff).
	timer  *time.Timer
	closed bool
}

// NewPool returns a Pool and starts filling it.
func NewPool(cfg PoolConfig, log *zap.Logger) *Pool {
	p := newPool(cfg, log, time.Now)
	p.refill()
	return p
}

func (cfg PoolConfig) withDefaults() PoolConfig {
	if cfg.Ready <= 0 {
		cfg.Ready = 1
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.RefillDelay <= 0 {
		cfg.RefillDelay = 10 * time.Millisecond
	}
	return cfg
}

// newPool returns a Pool that has not started filling, with its clock.
func newPool(cfg PoolConfig, log *zap.Logger, now func() time.Time) *Pool {
	cfg = cfg.withDefaults()
	p := &Pool{cfg: cfg, log: log, now: now}
	p.launch = func(ctx context.Context) (*Worker, error) {
		w, err := LaunchContext(ctx, cfg.Command, log, cfg.StartTimeout)
		if err != nil {
			return nil, err
		}
		if err := warmUp(ctx, w); err != nil {
			w.Kill()
			return nil, err
		}
		return w, nil
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

// Acquire returns a started worker for the caller's exclusive use: a waiting one
// when there is one (a worker that died while waiting is dropped), else one
// launched now under ctx. Either way the pool starts a replacement, RefillDelay
// later.
func (p *Pool) Acquire(ctx context.Context) (*Worker, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrPoolClosed
	}
	var w *Worker
	for w == nil && len(p.idle) > 0 {
		w = p.idle[0]
		p.idle = p.idle[1:]
		if w.Exited() {
			p.log.Warn("pooled worker exited while waiting", zap.Int("pid", w.PID))
			w.Kill()
			w = nil
		}
	}
	p.refillLaterLocked(p.cfg.RefillDelay)
	p.mu.Unlock()
	if w != nil {
		return w, nil
	}
	return LaunchContext(ctx, p.cfg.Command, p.log, p.cfg.StartTimeout)
}

// Release gives back a worker the caller no longer needs: it waits in the pool
// again if it is alive and the pool has room, else it is killed. (A launch then
// in progress for the pool is killed instead if it finds the pool full.)
func (p *Pool) Release(w *Worker) {
	p.mu.Lock()
	if !p.closed && !w.Exited() && len(p.idle) < p.cfg.Ready {
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	w.Kill()
}

// Idle returns how many started workers are waiting.
func (p *Pool) Idle() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// Close kills the waiting workers, interrupts launches in progress and waits for
// them. Workers handed out by Acquire are the caller's to kill.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	idle := p.idle
	p.idle = nil
	if p.timer != nil {
		p.timer.Stop()
	}
	p.mu.Unlock()
	p.cancel()
	for _, w := range idle {
		w.Kill()
	}
	p.fills.Wait()
}

// refillLocked starts as many launches as the pool lacks, unless it is backing
// off after a failure (a timer then calls refill when the backoff ends).
func (p *Pool) refillLocked() {
	if p.closed || p.now().Before(p.nextTry) {
		return
	}
	for len(p.idle)+p.starting < p.cfg.Ready {
		p.starting++
		p.fills.Add(1)
		go p.fill()
	}
}

func (p *Pool) refill() {
	p.mu.Lock()
	p.timer = nil
	p.refillLocked()
	p.mu.Unlock()
}

// refillLaterLocked makes sure a refill starts within d, unless the pool is
// full by then.
func (p *Pool) refillLaterLocked(d time.Duration) {
	if p.closed || p.timer != nil || len(p.idle)+p.starting >= p.cfg.Ready {
		return
	}
	p.timer = time.AfterFunc(d, p.refill)
}

// warmUp makes a new worker answer before it is pooled: a worker that cannot is
// no better than one that did not start. The call is Prepare (runnerapi.Preparer)
// when the worker's Runner has it, else one RunnerService round trip. Either way the
// first call's one-time costs on both sides (code paged in, message types set up:
// ~0.1 ms) are paid here rather than by the first job; Prepare also connects the
// worker to the engine's host service (a TLS handshake, ~1 ms) and sets up an agent
// job's tools once (~1 ms), so an agent job from the pool starts without either.
func warmUp(ctx context.Context, w *Worker) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if p, ok := w.Runner.(runnerapi.Preparer); ok {
		if err := p.Prepare(ctx); err != nil {
			return fmt.Errorf("worker pid %d: %w", w.PID, err)
		}
		return nil
	}
	_, err := w.Runner.ReadLog(ctx, "", 0, 1)
	if err == nil || errors.Is(err, runnerapi.ErrUnknownJob) {
		return nil
	}
	return fmt.Errorf("worker pid %d: first call: %w", w.PID, err)
}

// fill launches one worker for the pool.
func (p *Pool) fill() {
	defer p.fills.Done()
	w, err := p.launch(p.ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting--
	switch {
	case p.closed:
		if w != nil {
			w.Kill()
		}
	case err != nil:
		p.failures++
		backoff := min(time.Second<<min(p.failures-1, 16), p.cfg.MaxBackoff)
		p.nextTry = p.now().Add(backoff)
		p.log.Error("pool worker launch failed", zap.Duration("retry_in", backoff), zap.Error(err))
		if p.timer != nil {
			p.timer.Stop()
		}
		p.timer = time.AfterFunc(backoff, p.refill)
	case len(p.idle) >= p.cfg.Ready: // a Release filled the pool meanwhile
		p.failures = 0
		p.nextTry = time.Time{}
		w.Kill()
	default:
		p.failures = 0
		p.nextTry = time.Time{}
		p.idle = append(p.idle, w)
	}
}
