package session

import (
	"context"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// Compact summarizes the conversation (trigger "manual"): PreCompact, summary, history
// replaced by [system message, "[Context Summary] …"], PostCompact, then the session is
// saved. A block, a failure or an abort leaves the history unchanged.
func (s *Session) Compact(ctx context.Context, instructions string) error {
	runCtx, release, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer release()
	if err := s.compact(runCtx, TriggerManual, instructions); err != nil {
		if runCtx.Err() != nil {
			return abortError(runCtx)
		}
		return err
	}
	return s.persist(runCtx)
}

// compact runs the orchestrator and, when it applied, reports the compaction.
func (s *Session) compact(ctx context.Context, trigger, instructions string) error {
	before := s.tracker.State()
	var next []llm.Message
	summary, err := s.compactor.Compact(ctx, CompactRequest{
		History: s.currentAgent().History(), SystemMessage: s.systemMessage,
		Trigger: trigger, Instructions: instructions,
	}, func(msgs []llm.Message) error {
		if ctx.Err() != nil {
			return abortError(ctx)
		}
		a, err := s.newAgent(msgs)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.agent, s.events = a, nil
		s.gen++
		s.mu.Unlock()
		next = msgs
		return nil
	})
	if err != nil {
		s.log(sessionlog.EventError, sessionlog.NewErrorData("compact", err))
		return err
	}
	s.logReset(next)
	s.refresh(next)
	after := s.tracker.State()
	ev := CompactEvent{Trigger: trigger, Before: before, After: after}
	s.log(sessionlog.EventContextCompact, sessionlog.ContextCompactData(ev))
	s.cbMu.Lock()
	if cb := s.cfg.Callbacks.OnCompact; cb != nil {
		cb(summary)
	}
	if cb := s.cfg.Callbacks.OnCompactEvent; cb != nil {
		cb(ev)
	}
	s.cbMu.Unlock()
	s.sessionStart(context.WithoutCancel(ctx), SourceCompact)
	return nil
}

// Shutdown aborts active work, logs session_shutdown, saves the session and fires
// SessionEnd with reason (Claude Code's: clear, logout, prompt_input_exit, other; empty
// means "other"). Only the first call does anything; later Runs return ErrShutdown.
func (s *Session) Shutdown(ctx context.Context, reason string) error {
	if reason == "" {
		reason = "other"
	}
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return nil
	}
	s.shutdown = true
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	s.log(sessionlog.EventSessionShutdown, sessionlog.SessionShutdownData{Reason: reason})
	if cancel != nil {
		cancel()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	err := s.persist(ctx)
	s.hooks.run(context.WithoutCancel(ctx), HookInput{HookEventName: HookSessionEnd, Reason: reason})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSave, err)
	}
	return nil
}
