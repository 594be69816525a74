package session

import (
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ContextWindowTracker holds the effective context state of a conversation and decides
// automatic compaction. It delegates estimation to contextwin, the estimator the loop's
// hard guard uses, so status displays, compaction and the guard agree. Safe for concurrent
// use.
type ContextWindowTracker struct {
	mu        sync.Mutex
	maxTokens int
	threshold AutoCompactThreshold
	state     contextwin.WindowState
	estimate  contextwin.Estimate
}

// NewContextWindowTracker returns a tracker for a window of maxTokens.
func NewContextWindowTracker(maxTokens int, threshold AutoCompactThreshold) *ContextWindowTracker {
	return &ContextWindowTracker{maxTokens: maxTokens, threshold: threshold,
		state: contextwin.State(0, maxTokens)}
}

// UpdateFromHistory recomputes the state from msgs (provider usage on the last message is
// exact; otherwise max of serialized estimate, latest usage and floor) and returns it.
func (t *ContextWindowTracker) UpdateFromHistory(msgs []llm.Message, floor int) contextwin.WindowState {
	return t.set(contextwin.EstimateContextTokens(msgs, floor))
}

func (t *ContextWindowTracker) set(est contextwin.Estimate) contextwin.WindowState {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.estimate = est
	t.state = contextwin.State(est.Tokens, t.maxTokens)
	return t.state
}

// UpdateWithNext is UpdateFromHistory(append(msgs, next), 0) without building that
// slice: the state of a history about to get next (a prompt being sent).
func (t *ContextWindowTracker) UpdateWithNext(msgs []llm.Message, next llm.Message) contextwin.WindowState {
	return t.set(contextwin.EstimateWithNext(msgs, next, 0))
}

// State returns the latest state.
func (t *ContextWindowTracker) State() contextwin.WindowState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// Estimate returns the estimate behind the latest state.
func (t *ContextWindowTracker) Estimate() contextwin.Estimate {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.estimate
}

// Threshold returns the auto-compact policy.
func (t *ContextWindowTracker) Threshold() AutoCompactThreshold {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.threshold
}

// SetThreshold changes the auto-compact policy.
func (t *ContextWindowTracker) SetThreshold(th AutoCompactThreshold) error {
	if err := th.Validate(); err != nil {
		return err
	}
	t.mu.Lock()
	t.threshold = th
	t.mu.Unlock()
	return nil
}

// ShouldAutoCompact reports whether the used tokens reached the threshold.
func (t *ContextWindowTracker) ShouldAutoCompact() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, on := t.threshold.Effective()
	if !on || t.maxTokens <= 0 {
		return false
	}
	return float64(t.state.UsedTokens) >= f*float64(t.maxTokens)
}

// SetWindow changes the window size (the session's model changed); the state is
// recomputed at the next update.
func (t *ContextWindowTracker) SetWindow(maxTokens int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.maxTokens = maxTokens
	t.state = contextwin.State(t.state.UsedTokens, maxTokens)
}
