package session

import (
	"context"
	"fmt"
	"maps"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
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

// persist saves the session when a store is configured. An aborted run still saves.
func (s *Session) persist(ctx context.Context) error {
	if s.cfg.Store == nil {
		return nil
	}
	rec, err := s.record()
	if err == nil {
		err = s.cfg.Store.Save(context.WithoutCancel(ctx), &rec)
	}
	if err != nil {
		s.log(sessionlog.EventError, sessionlog.NewErrorData("save", err))
		return err
	}
	return nil
}

// Record returns the session as a persistable record. A timeline entry that cannot be
// encoded (an event entry whose Data is not JSON) is left out of History; persisting such
// a session fails with ErrSave instead.
func (s *Session) Record() store.Record {
	rec, _ := s.record()
	return rec
}

// record builds the persisted record. The session fills the fields it owns; the others
// come through unchanged from the resumed record, then DecorateRecord adds its own. The
// error reports timeline entries left out because they do not encode.
func (s *Session) record() (store.Record, error) {
	a := s.currentAgent()
	msgs := a.History()
	s.mu.Lock()
	events := append([]anchoredEvent(nil), s.events...)
	s.mu.Unlock()
	history, err := historyToRaw(mergeTimeline(msgs, events))
	rec := store.Record{
		ID: s.id, Cwd: s.cfg.Cwd, Name: s.cfg.Name, CreatedAt: s.createdAt, UpdatedAt: s.cfg.Now(),
		Messages: nonNil(msgs), History: history,
		SystemPrompt: s.systemMessage, ToolSchemas: s.ToolSchemas(),
	}
	copyOpaqueFields(&rec, s.resumed)
	if s.cfg.DecorateRecord != nil {
		s.cfg.DecorateRecord(&rec)
	}
	return rec, err
}

// copyOpaqueFields copies the fields the session does not own from src, including the
// members this version does not define (Extra), so a resumed session saves them back.
func copyOpaqueFields(dst, src *store.Record) {
	if src == nil {
		return
	}
	dst.BackgroundTasks = src.BackgroundTasks
	dst.BackgroundTaskEvents = src.BackgroundTaskEvents
	dst.BackgroundJobGroups = src.BackgroundJobGroups
	dst.BackgroundJobGroupEvents = src.BackgroundJobGroupEvents
	dst.MemoryEvents = src.MemoryEvents
	dst.UsedMemoryReferences = src.UsedMemoryReferences
	dst.ContextReferences = src.ContextReferences
	dst.SandboxSnapshotID = src.SandboxSnapshotID
	dst.Extra = maps.Clone(src.Extra) // DecorateRecord may write to it
}
