package retry

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Policy bounds a retry loop. The zero Policy makes one attempt (no retries).
type Policy struct {
	// MaxAttempts counts every attempt, the first included; values below 2 disable retries.
	MaxAttempts int
	// BaseDelay is the backoff before the first retry; it doubles on each further retry.
	BaseDelay time.Duration
	// MaxDelay caps one computed backoff (0 = no cap).
	MaxDelay time.Duration
	// MaxRetryAfter is the longest server-requested delay the loop waits for; a longer
	// request ends the loop with the error (0 = DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// Jitter returns a number in [0, 1); nil uses math/rand/v2.
	Jitter func() float64
	// Sleep waits d or until ctx ends; nil uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, when set, observes each retry before its wait.
	OnRetry func(attempt int, wait time.Duration, err error)
}

// DefaultMaxRetryAfter is the longest server-requested delay honoured by default.
const DefaultMaxRetryAfter = 60 * time.Second

// Default is the policy providers use unless configured otherwise: three attempts,
// 500 ms doubling backoff capped at 8 s.
func Default() Policy {
	return Policy{MaxAttempts: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second}
}

// Disabled is a policy that never retries.
func Disabled() Policy { return Policy{MaxAttempts: 1} }

// AttemptFunc runs one attempt. delivered reports whether the attempt has shown output to
// the user (then it is never retried).
type AttemptFunc[T any] func(ctx context.Context, attempt int) (result T, delivered bool, err error)

// Do runs fn until it succeeds, fails for good, delivers output, or attempts run out. It
// returns the result and error of the last attempt; when ctx ends during a wait, it returns
// the last attempt's result with ctx's error joined to the attempt error.
func Do[T any](ctx context.Context, p Policy, fn AttemptFunc[T]) (T, error) {
	attempts := max(p.MaxAttempts, 1)
	for n := 1; ; n++ {
		res, delivered, err := fn(ctx, n)
		if err == nil || delivered || n >= attempts || ctx.Err() != nil || !llm.IsRecoverable(err) {
			return res, err
		}
		wait, ok := p.wait(n, err)
		if !ok {
			return res, err
		}
		if p.OnRetry != nil {
			p.OnRetry(n, wait, err)
		}
		if serr := p.sleep(ctx, wait); serr != nil {
			return res, errors.Join(err, serr)
		}
	}
}

// wait is the delay before retry number n (n ≥ 1): the server's request when err carries
// one, else jittered exponential backoff. ok is false when the server asks for too long.
func (p Policy) wait(n int, err error) (time.Duration, bool) {
	if d, found := After(err); found {
		limit := p.MaxRetryAfter
		if limit <= 0 {
			limit = DefaultMaxRetryAfter
		}
		return d, d <= limit
	}
	d := p.BaseDelay
	for i := 1; i < n && (p.MaxDelay <= 0 || d < p.MaxDelay); i++ {
		d *= 2
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	// Equal jitter: half fixed, half random, so concurrent clients spread out but never
	// retry immediately.
	jitter := rand.Float64
	if p.Jitter != nil {
		jitter = p.Jitter
	}
	half := d / 2
	return half + time.Duration(float64(d-half)*jitter()), true
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AfterError carries a server-requested retry delay in an error chain.
type AfterError struct {
	Delay time.Duration
	Err   error
}

func (e *AfterError) Error() string {
	if e.Err == nil {
		return "retry after " + e.Delay.String()
	}
	return e.Err.Error()
}

func (e *AfterError) Unwrap() error { return e.Err }

// WithAfter wraps err with a server-requested retry delay.
func WithAfter(err error, d time.Duration) error { return &AfterError{Delay: d, Err: err} }

// After returns the server-requested retry delay carried by err, if any.
func After(err error) (time.Duration, bool) {
	var a *AfterError
	if errors.As(err, &a) {
		return a.Delay, true
	}
	return 0, false
}
