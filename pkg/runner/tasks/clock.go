package tasks

import (
	"context"
	"time"
)

// Clock is the manager's time source, injectable for tests (the package's own tests
// use testing/synctest with the real clock).
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; stop cancels the call.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// sleep waits d on c, or until ctx ends.
func sleep(ctx context.Context, c Clock, d time.Duration) {
	done := make(chan struct{})
	stop := c.AfterFunc(d, func() { close(done) })
	defer stop()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
