package tasks

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

func (m *BackgroundTaskManager) lookupLocked(id string) (*task, error) {
	t, ok := m.tasks[id]
	if !ok {
		return nil, fmt.Errorf("task %s: %w", id, ErrUnknownTask)
	}
	return t, nil
}

// Get returns a snapshot of one task.
func (m *BackgroundTaskManager) Get(id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookupLocked(id)
	if err != nil {
		return Task{}, err
	}
	return t.snap.clone(), nil
}

// Filter selects tasks for List; zero fields select all.
type Filter struct {
	Kind    Kind
	States  []State
	GroupID string
}

// List returns snapshots of the tasks that match f, oldest first.
func (m *BackgroundTaskManager) List(f Filter) []Task {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Task
	for _, t := range m.order {
		s := &t.snap
		if (f.Kind != "" && s.Kind != f.Kind) || (f.GroupID != "" && s.GroupID != f.GroupID) ||
			(len(f.States) > 0 && !slices.Contains(f.States, s.State)) {
			continue
		}
		out = append(out, s.clone())
	}
	return out
}

// Wait returns the snapshots of the tasks ids, in that order, once every one of
// them is terminal, or ctx's error when ctx ends first. A task closed meanwhile is
// returned as it ended.
func (m *BackgroundTaskManager) Wait(ctx context.Context, ids ...string) ([]Task, error) {
	m.mu.Lock()
	ts := make([]*task, len(ids))
	for i, id := range ids {
		t, err := m.lookupLocked(id)
		if err != nil {
			m.mu.Unlock()
			return nil, err
		}
		ts[i] = t
	}
	m.mu.Unlock()
	for _, t := range ts {
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Task, len(ts))
	for i, t := range ts {
		out[i] = t.snap.clone()
	}
	return out, nil
}

// Cancel stops one task and returns its snapshot once it is terminal. A queued task
// is cancelled at once; a running one through its runner's Cancel, and its Start
// context when the runner cannot cancel it or it has not ended CancelGrace later.
// If ctx ends first, Cancel returns ctx's error and the cancellation goes on.
func (m *BackgroundTaskManager) Cancel(ctx context.Context, id, reason string) (Task, error) {
	m.mu.Lock()
	t, err := m.lookupLocked(id)
	if err != nil {
		m.mu.Unlock()
		return Task{}, err
	}
	switch {
	case t.snap.State.Terminal():
		m.mu.Unlock()
		return Task{}, fmt.Errorf("cancel task %s (%s): %w", id, t.snap.State, ErrTaskEnded)
	case t.snap.State == StateQueued:
		m.cancelQueuedLocked(t, reason)
		snap := t.snap.clone()
		m.mu.Unlock()
		return snap, nil
	case t.cancelRequested:
	default:
		t.cancelRequested, t.cancelReason = true, reason
		m.runs.Add(1)
		go func() {
			defer m.runs.Done()
			m.stopJob(t, reason)
		}()
	}
	m.mu.Unlock()
	select {
	case <-t.done:
	case <-ctx.Done():
		return Task{}, ctx.Err()
	}
	return m.snapshot(t), nil
}

// cancelQueuedLocked cancels a task that never started.
func (m *BackgroundTaskManager) cancelQueuedLocked(t *task, reason string) {
	m.queue = slices.DeleteFunc(m.queue, func(q *task) bool { return q == t })
	t.snap.State, t.snap.CancelReason = StateCancelled, reason
	m.finishLocked(t, EventCancelled, m.cfg.Clock.Now())
	close(t.returned)
	t.cancel()
}

func (m *BackgroundTaskManager) snapshot(t *task) Task {
	m.mu.Lock()
	defer m.mu.Unlock()
	return t.snap.clone()
}

// Close dismisses a terminal task from the registry and returns its last snapshot;
// it refuses a queued or running task (ErrTaskActive).
func (m *BackgroundTaskManager) Close(id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookupLocked(id)
	if err != nil {
		return Task{}, err
	}
	if !t.snap.State.Terminal() {
		return Task{}, fmt.Errorf("close task %s (%s): %w", id, t.snap.State, ErrTaskActive)
	}
	delete(m.tasks, id)
	m.order = slices.DeleteFunc(m.order, func(o *task) bool { return o == t })
	m.publishLocked(t, EventClosed, nil, m.cfg.Clock.Now())
	return t.snap.clone(), nil
}

// activeTask returns the task when it is running or waiting for a permission answer.
func (m *BackgroundTaskManager) activeTask(id, op string) (*task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookupLocked(id)
	if err != nil {
		return nil, err
	}
	switch {
	case t.snap.State.Terminal():
		return nil, fmt.Errorf("%s task %s (%s): %w", op, id, t.snap.State, ErrTaskEnded)
	case !t.snap.State.Active():
		return nil, fmt.Errorf("%s task %s (%s): %w", op, id, t.snap.State, ErrNotRunning)
	}
	return t, nil
}

// Send forwards input to a running task's job (runners that do not take input
// return their error).
func (m *BackgroundTaskManager) Send(ctx context.Context, id, input string) error {
	t, err := m.activeTask(id, "send to")
	if err != nil {
		return err
	}
	if err := t.runner.Send(ctx, id, input); err != nil {
		return fmt.Errorf("send to task %s: %w", id, err)
	}
	return nil
}

// ReadLog reads up to limit bytes of a task's output from offset: from its runner,
// or, when the runner cannot serve it (its worker died, it keeps no log), from the
// last LogTail bytes the manager kept of the streamed output. A queued task has an
// empty log.
func (m *BackgroundTaskManager) ReadLog(ctx context.Context, id string, offset, limit int64) (runnerapi.LogPage, error) {
	m.mu.Lock()
	t, err := m.lookupLocked(id)
	if err != nil {
		m.mu.Unlock()
		return runnerapi.LogPage{}, err
	}
	started := t.snap.StartedAt != nil
	m.mu.Unlock()
	if started {
		page, err := t.runner.ReadLog(ctx, id, offset, limit)
		if err == nil {
			return page, nil
		}
		if ctx.Err() != nil {
			return runnerapi.LogPage{}, ctx.Err()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return t.log.read(offset, limit, t.snap.State.Terminal()), nil
}

// SetWaitingPermission moves a running task to waiting_permission (waiting true:
// one of its tool calls, call, waits for the parent's client to answer a permission
// ask) and back to running. The idle watchdog does not count the wait.
//
// The ask and the job's own tool_start travel by different paths, so the ask may
// arrive first: the waiting snapshot then names call as the current action already,
// and the later tool_start of the same call id does not open it twice.
func (m *BackgroundTaskManager) SetWaitingPermission(id string, waiting bool, call ToolCall) error {
	t, err := m.activeTask(id, "set permission state of")
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case t.snap.State.Terminal():
		return fmt.Errorf("set permission state of task %s: %w", id, ErrTaskEnded)
	case waiting && t.snap.State == StateRunning:
		now := m.cfg.Clock.Now()
		if call.Name != "" {
			m.openLocked(t, Action{CallID: call.CallID, Tool: call.Name, Arg: call.Arg, StartedAt: now})
		}
		t.snap.State, t.paused = StateWaitingPermission, true
		m.publishLocked(t, EventWaitingPermission, nil, now)
	case !waiting && t.snap.State == StateWaitingPermission:
		now := m.cfg.Clock.Now()
		t.snap.State, t.paused, t.lastActivity = StateRunning, false, now
		t.snap.LastActivityAt = &now
		m.publishLocked(t, EventResumed, nil, now)
	}
	return nil
}

// Shutdown refuses new tasks, cancels every queued and running one with reason,
// and returns when all their jobs have returned, or with ctx's error.
func (m *BackgroundTaskManager) Shutdown(ctx context.Context, reason string) error {
	m.mu.Lock()
	m.closed = true
	// Queued tasks go first, so that no slot freed below starts one of them.
	for _, t := range slices.Clone(m.queue) {
		m.cancelQueuedLocked(t, reason)
	}
	var ids []string
	for _, t := range m.order {
		if !t.snap.State.Terminal() {
			ids = append(ids, t.id)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { _, _ = m.Cancel(ctx, id, reason) })
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		m.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
