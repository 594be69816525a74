package launcher

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
)

// CrashReport describes a worker that died or stopped answering.
type CrashReport struct {
	Slot int
	PID  int
	Err  error
}

// SupervisorConfig configures a Supervisor.
type SupervisorConfig struct {
	Command Command
	// Workers is the pool size; each slot is kept filled.
	Workers int
	// CheckInterval is how often each worker is checked (default 1s).
	CheckInterval time.Duration
	// StartTimeout bounds one handshake (default 10s).
	StartTimeout time.Duration
	// MaxBackoff caps the delay between relaunches of a failing slot (default 30s).
	MaxBackoff time.Duration
	// OnCrash, if set, is called for every detected crash. Slots are tended in
	// parallel, so OnCrash and OnReady may be called concurrently.
	OnCrash func(CrashReport)
	// OnReady, if set, is called whenever a slot gets a live worker.
	OnReady func(slot int, w *Worker)
}

// Supervisor keeps a pool of workers alive until its Run context ends.
type Supervisor struct {
	cfg SupervisorConfig
	log *zap.Logger
	now func() time.Time

	mu      sync.Mutex
	workers []*Worker
}

// NewSupervisor returns a Supervisor; Run starts it.
func NewSupervisor(cfg SupervisorConfig, log *zap.Logger) *Supervisor {
	if cfg.CheckInterval <= 0 {
		cfg.CheckInterval = time.Second
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	return &Supervisor{cfg: cfg, log: log, now: time.Now, workers: make([]*Worker, cfg.Workers)}
}

// Workers returns the live workers, in slot order.
func (s *Supervisor) Workers() []*Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Worker, 0, len(s.workers))
	for _, w := range s.workers {
		if w != nil {
			out = append(out, w)
		}
	}
	return out
}

// Run launches the pool, then checks it every CheckInterval, reporting and
// replacing dead workers (with exponential backoff per slot) until ctx ends.
// A worker that fails to start or to answer its first ping counts as a failed
// launch. ctx ending interrupts a launch in progress. On return every worker
// has been killed. It returns ctx's error.
func (s *Supervisor) Run(ctx context.Context) error {
	defer s.killAll()
	backoff := make([]time.Duration, s.cfg.Workers)
	nextTry := make([]time.Time, s.cfg.Workers)
	tick := time.NewTicker(s.cfg.CheckInterval)
	defer tick.Stop()
	for {
		// Slots are tended in parallel: a pool of 4 is ready after one launch,
		// not four in a row (PERF-NOTES.md, "Worker launch").
		var wg sync.WaitGroup
		for slot := range s.cfg.Workers {
			wg.Go(func() { s.tend(ctx, slot, &backoff[slot], &nextTry[slot]) })
		}
		wg.Wait()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func (s *Supervisor) tend(ctx context.Context, slot int, backoff *time.Duration, nextTry *time.Time) {
	s.mu.Lock()
	w := s.workers[slot]
	s.mu.Unlock()
	if w != nil {
		err := w.Check()
		if err == nil {
			return
		}
		report := CrashReport{Slot: slot, PID: w.PID, Err: err}
		s.log.Error("worker crashed", zap.Int("slot", slot), zap.Int("pid", w.PID), zap.Error(err),
			zap.Bool("exited", errors.Is(err, ErrWorkerExited)))
		if s.cfg.OnCrash != nil {
			s.cfg.OnCrash(report)
		}
		w.Kill()
		s.setWorker(slot, nil)
	}
	if s.now().Before(*nextTry) || ctx.Err() != nil {
		return
	}
	nw, err := s.start(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		*backoff = min(max(2**backoff, time.Second), s.cfg.MaxBackoff)
		*nextTry = s.now().Add(*backoff)
		s.log.Error("worker launch failed", zap.Int("slot", slot), zap.Duration("retry_in", *backoff), zap.Error(err))
		return
	}
	*backoff = 0
	s.setWorker(slot, nw)
	s.log.Info("worker ready", zap.Int("slot", slot), zap.Int("pid", nw.PID), zap.Stringer("command", s.cfg.Command))
	if s.cfg.OnReady != nil {
		s.cfg.OnReady(slot, nw)
	}
}

// start launches a worker and pings it once: a worker that cannot answer is
// no better than one that did not start.
func (s *Supervisor) start(ctx context.Context) (*Worker, error) {
	w, err := LaunchContext(ctx, s.cfg.Command, s.log, s.cfg.StartTimeout)
	if err != nil {
		return nil, err
	}
	if err := w.Check(); err != nil {
		w.Kill()
		return nil, fmt.Errorf("first ping: %w", err)
	}
	return w, nil
}

func (s *Supervisor) setWorker(slot int, w *Worker) {
	s.mu.Lock()
	s.workers[slot] = w
	s.mu.Unlock()
}

func (s *Supervisor) killAll() {
	s.mu.Lock()
	workers := s.workers
	s.workers = make([]*Worker, len(workers))
	s.mu.Unlock()
	for _, w := range workers {
		if w != nil {
			w.Kill()
		}
	}
}
