package transport

import (
	"context"
	"sync"
	"time"
)

// Watchdog cancels a stream's context when no event arrives for a while. A provider calls
// Touch on every stream event, so only a silent connection trips it.
type Watchdog struct {
	mu      sync.Mutex
	timer   *time.Timer
	timeout time.Duration
	stopped bool
	cancel  context.CancelCauseFunc
}

// WithWatchdog returns a context that is cancelled with ErrStreamIdle after timeout
// without Touch. A timeout ≤ 0 disables the timer (Touch and Stop still work). The caller
// must call Stop, which also releases the context.
func WithWatchdog(parent context.Context, timeout time.Duration) (context.Context, *Watchdog) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &Watchdog{timeout: timeout, cancel: cancel}
	if timeout > 0 {
		w.timer = time.AfterFunc(timeout, func() { cancel(ErrStreamIdle) })
	}
	return ctx, w
}

// Touch records stream activity and restarts the timeout.
func (w *Watchdog) Touch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil && !w.stopped {
		w.timer.Reset(w.timeout)
	}
}

// Stop disarms the watchdog and releases its context.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(nil)
}

// Idle reports whether ctx (from WithWatchdog) was cancelled by the watchdog.
func Idle(ctx context.Context) bool {
	return ctx.Err() != nil && context.Cause(ctx) == ErrStreamIdle
}
