package launcher

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// waitIdle waits until p holds n started workers.
func waitIdle(t *testing.T, p *Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for p.Idle() != n {
		if time.Now().After(deadline) {
			t.Fatalf("pool holds %d started workers, want %d", p.Idle(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitExited(t *testing.T, w *Worker) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !w.Exited() {
		if time.Now().After(deadline) {
			t.Fatalf("worker pid %d still running", w.PID)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestPoolHandsOutStartedWorkersAndRefills(t *testing.T) {
	p := NewPool(PoolConfig{Command: testWorker(), Ready: 2, StartTimeout: 30 * time.Second}, zap.NewNop())
	defer p.Close()
	waitIdle(t, p, 2)
	p.mu.Lock()
	waiting := map[int]bool{p.idle[0].PID: true, p.idle[1].PID: true}
	p.mu.Unlock()

	w, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !waiting[w.PID] {
		t.Fatalf("Acquire launched worker pid %d instead of handing out a waiting one %v", w.PID, waiting)
	}
	runTrue(t, w)
	waitIdle(t, p, 2) // refilled in the background

	// A worker that dies while waiting is never handed out.
	p.mu.Lock()
	dead := p.idle[0]
	p.mu.Unlock()
	if err := syscall.Kill(dead.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExited(t, dead)
	w2, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if w2.PID == dead.PID || w2.Exited() {
		t.Fatalf("Acquire handed out the dead worker pid %d", dead.PID)
	}
	runTrue(t, w2)
	w2.Kill()

	// Release keeps a worker only while the pool has room: it is full again here.
	waitIdle(t, p, 2)
	p.Release(w)
	waitExited(t, w)
	if p.Idle() != 2 {
		t.Fatalf("pool holds %d workers after a Release into a full pool, want 2", p.Idle())
	}

	p.mu.Lock()
	idle := append([]*Worker(nil), p.idle...)
	p.mu.Unlock()
	p.Close()
	for _, w := range idle {
		waitExited(t, w)
	}
	if _, err := p.Acquire(context.Background()); !errors.Is(err, ErrPoolClosed) {
		t.Fatalf("Acquire after Close = %v, want ErrPoolClosed", err)
	}
}

// A binary that cannot start fails the caller's Acquire; the background refill
// backs off instead of relaunching at every Acquire.
func TestPoolBacksOffAFailingCommand(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	clock := time.Unix(1_700_000_000, 0)
	p := newPool(PoolConfig{Command: Command{Path: "/bin/false"}, Ready: 1, MaxBackoff: 4 * time.Second}, zap.New(core),
		func() time.Time { return clock })
	defer p.Close()
	p.refill()
	p.fills.Wait()
	if n := logs.FilterMessage("pool worker launch failed").Len(); n != 1 {
		t.Fatalf("%d failed refills, want 1", n)
	}
	for range 3 {
		if _, err := p.Acquire(context.Background()); err == nil {
			t.Fatal("Acquire of a worker that cannot start succeeded")
		}
	}
	p.fills.Wait()
	if n := logs.FilterMessage("pool worker launch failed").Len(); n != 1 {
		t.Fatalf("%d failed refills during the backoff, want 1", n)
	}
	p.mu.Lock()
	next := p.nextTry.Sub(clock)
	p.mu.Unlock()
	if next != time.Second {
		t.Fatalf("next refill in %s, want 1s", next)
	}
}

// A worker given back right after Acquire is the one the next Acquire gets: the
// pool is full again, so no replacement is launched for it.
func TestPoolReusesAReleasedWorker(t *testing.T) {
	p := NewPool(PoolConfig{Command: testWorker(), Ready: 1, StartTimeout: 30 * time.Second}, zap.NewNop())
	defer p.Close()
	waitIdle(t, p, 1)
	w, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.Release(w)
	time.Sleep(3 * p.cfg.RefillDelay) // past the refill the Acquire scheduled
	p.fills.Wait()
	again, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Kill()
	if again != w || w.Exited() {
		t.Fatalf("Acquire after Release got pid %d (exited %v), want the released pid %d", again.PID, w.Exited(), w.PID)
	}
	runTrue(t, again)
}
