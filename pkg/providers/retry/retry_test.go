package retry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return nil
}

func TestDo(t *testing.T) {
	recoverable := llm.NewError(llm.CodeProvider, "503", nil)
	auth := llm.NewError(llm.CodeAuthentication, "401", nil)
	limited := llm.NewError(llm.CodeRateLimit, "429", WithAfter(errors.New("slow down"), 3*time.Second))
	tooLong := llm.NewError(llm.CodeRateLimit, "429", WithAfter(errors.New("slow down"), 10*time.Minute))

	tests := []struct {
		name      string
		policy    Policy
		errs      []error // error of attempt i (nil = success)
		delivered []bool
		wantCalls int
		wantWaits []time.Duration
		wantErr   error
	}{
		{name: "success first", policy: Default(), errs: []error{nil}, wantCalls: 1},
		{name: "recoverable then success", policy: Default(), errs: []error{recoverable, nil}, wantCalls: 2,
			wantWaits: []time.Duration{375 * time.Millisecond}},
		{name: "bounded attempts", policy: Default(), errs: []error{recoverable, recoverable, recoverable, nil}, wantCalls: 3,
			wantWaits: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond}, wantErr: llm.ErrProvider},
		{name: "not recoverable", policy: Default(), errs: []error{auth, nil}, wantCalls: 1, wantErr: llm.ErrAuthentication},
		{name: "delivered output is final", policy: Default(), errs: []error{recoverable, nil}, delivered: []bool{true}, wantCalls: 1, wantErr: llm.ErrProvider},
		{name: "retry-after honoured", policy: Default(), errs: []error{limited, nil}, wantCalls: 2, wantWaits: []time.Duration{3 * time.Second}},
		{name: "retry-after too long gives up", policy: Default(), errs: []error{tooLong, nil}, wantCalls: 1, wantErr: llm.ErrRateLimit},
		{name: "disabled", policy: Disabled(), errs: []error{recoverable, nil}, wantCalls: 1, wantErr: llm.ErrProvider},
		{name: "max delay caps backoff", policy: Policy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 2 * time.Second},
			errs: []error{recoverable, recoverable, recoverable, recoverable, nil}, wantCalls: 5,
			wantWaits: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 1500 * time.Millisecond, 1500 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			p := tc.policy
			p.Sleep = rec.sleep
			p.Jitter = func() float64 { return 0.5 }
			calls := 0
			got, err := Do(context.Background(), p, func(_ context.Context, n int) (int, bool, error) {
				calls++
				if n != calls {
					t.Fatalf("attempt number %d on call %d", n, calls)
				}
				d := len(tc.delivered) >= n && tc.delivered[n-1]
				return n, d, tc.errs[n-1]
			})
			if calls != tc.wantCalls || got != tc.wantCalls {
				t.Fatalf("calls = %d, result = %d, want %d", calls, got, tc.wantCalls)
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if len(rec.waits) != len(tc.wantWaits) {
				t.Fatalf("waits = %v, want %v", rec.waits, tc.wantWaits)
			}
			for i := range rec.waits {
				if rec.waits[i] != tc.wantWaits[i] {
					t.Fatalf("waits = %v, want %v", rec.waits, tc.wantWaits)
				}
			}
		})
	}
}

func TestJitterSpreadsWithinBounds(t *testing.T) {
	p := Policy{BaseDelay: time.Second}
	for _, j := range []float64{0, 0.25, 0.999} {
		p.Jitter = func() float64 { return j }
		d, ok := p.wait(1, llm.NewError(llm.CodeNetwork, "", nil))
		if !ok || d < 500*time.Millisecond || d >= time.Second {
			t.Fatalf("jitter %v: wait %v outside [500ms, 1s)", j, d)
		}
	}
}

func TestDoStopsWhenContextEndsDuringWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := Default()
	p.Sleep = func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }
	calls := 0
	_, err := Do(ctx, p, func(context.Context, int) (struct{}, bool, error) {
		calls++
		return struct{}{}, false, llm.NewError(llm.CodeNetwork, "reset", nil)
	})
	if calls != 1 || !errors.Is(err, context.Canceled) || !errors.Is(err, llm.ErrNetwork) {
		t.Fatalf("calls %d err %v", calls, err)
	}
}

func TestRealSleepHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (Policy{}).sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep on cancelled ctx = %v", err)
	}
}
