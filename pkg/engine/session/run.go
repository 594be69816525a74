package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// maxStopContinuations bounds how often blocking Stop hooks may send the model back to
// work within one Run (hooks are expected to check stop_hook_active; this stops a hook
// that does not).
const maxStopContinuations = 8

// Run sends input and returns the model's answer. Before the send it auto-compacts when
// the threshold is reached and fires UserPromptSubmit; after a successful answer it fires
// Stop (a blocking Stop hook sends its reason back to the model, which continues). The
// session is saved when the run ends, however it ends.
//
// After an abort (Abort, or ctx cancelled) the error matches ErrAborted and
// context.Canceled, the partial text is returned and stays in history. After a provider
// failure the error wraps the *llm.Error, it is logged, StopFailure fires, and history
// keeps everything up to the failure. The session stays usable in both cases.
func (s *Session) Run(ctx context.Context, input string) (string, error) {
	return s.RunWith(ctx, input, RunInput{})
}

// RunInput is what a Run has beside the text the model gets (the spec's displayInput
// and rawInput).
type RunInput struct {
	// Raw is what the user typed (a skill's "/name args"), UserPromptSubmit's prompt;
	// empty: the input itself.
	Raw string
	// UserMetadata is set on the run's user message (the input a client shows).
	UserMetadata map[string]any
}

// RunWith is Run with in's raw input and user message metadata.
func (s *Session) RunWith(ctx context.Context, input string, in RunInput) (string, error) {
	runCtx, release, err := s.begin(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	defer s.enforcer.ClearPromptRules() // AllowForPrompt's grants end with the Run
	return s.run(runCtx, input, in)
}

func (s *Session) run(ctx context.Context, input string, in RunInput) (string, error) {
	// LastResult describes this Run from now on, even one that ends before the model is
	// asked (a blocked prompt, an abort during auto-compaction).
	s.mu.Lock()
	s.lastResult = agent.Result{}
	s.runSubagentUsage = llm.Usage{}
	s.mu.Unlock()
	if s.shouldAutoCompact() {
		if err := s.compact(ctx, TriggerAuto, ""); err != nil && ctx.Err() != nil {
			return "", abortError(ctx)
		}
		// A blocked or failed auto-compaction was logged; the run goes on with the whole
		// history (the loop's hard guard still protects the provider call).
	}
	ups := s.hooks.run(ctx, HookInput{HookEventName: HookUserPromptSubmit, Prompt: firstNonEmpty(in.Raw, input)})
	if ctx.Err() != nil {
		return "", abortError(ctx)
	}
	if ups.Blocked {
		return "", fmt.Errorf("%w: %s", ErrPromptBlocked, firstNonEmpty(ups.Reason, "no reason given"))
	}
	s.mu.Lock()
	extra := joinNonEmpty(s.pendingContext, ups.AdditionalContext)
	s.pendingContext = ""
	s.mu.Unlock()
	prompt := joinNonEmpty(input, extra)

	a := s.currentAgent()
	before := a.HistoryView()
	caps := llm.ProviderCapabilities(s.cfg.Provider)
	s.log(sessionlog.EventPreRun, sessionlog.PreRunData{
		Provider: s.cfg.Provider.Name(), Input: prompt, HistoryLength: len(before),
		NativeWebTools: sessionlog.NativeWebState{WebSearch: caps.NativeWebTools.WebSearch, WebFetch: caps.NativeWebTools.WebFetch},
	})
	pending := llm.Message{Role: llm.RoleUser, State: llm.StateComplete, Content: []llm.Part{llm.TextPart(prompt)}}
	s.report(s.tracker.UpdateWithNext(before, pending))

	stopActive := false
	var total agent.Result
	described := len(before) // history the log's assistant events have described
	for continuation := 0; ; continuation++ {
		opts := s.runOptions()
		opts.UserMetadata = in.UserMetadata
		if s.cfg.MaxTurns > 0 { // one cap for the whole Run, Stop-hook continuations included
			opts.MaxRounds = agent.Rounds(s.cfg.MaxTurns - total.Rounds)
		}
		res, err := a.Run(ctx, prompt, opts)
		if err != nil { // misuse only (a concurrent agent run); history is untouched
			return "", fmt.Errorf("session: %w", err)
		}
		total = accumulate(total, res)
		s.mu.Lock()
		s.lastResult = total
		// Subagents the run started (the Agent tool) spent usage on its behalf.
		s.lastResult.Usage = total.Usage.Add(s.runSubagentUsage)
		s.mu.Unlock()
		history := a.HistoryView()
		s.refresh(history)
		if res.Interrupted || ctx.Err() != nil {
			return res.Response, withSave(abortError(ctx), s.endRun(ctx))
		}
		if res.Err != nil {
			return res.Response, withSave(s.failed(ctx, res.Err, lastAssistantText(history)), s.endRun(ctx))
		}
		s.log(sessionlog.EventAssistant, sessionlog.NewAssistantData(res.Response, history, described))
		described = len(history)
		// A hook said "continue": false (StopHookStopped): the run ends here, and the Stop
		// hooks, which could send the agent on, do not run.
		var stop HookOutcome
		if res.StopReason != agent.StopHookStopped {
			stop = s.hooks.run(ctx, HookInput{HookEventName: HookStop, StopHookActive: boolPtr(stopActive),
				Response: res.Response, LastAssistantMessage: res.Response})
		}
		if ctx.Err() != nil {
			return res.Response, withSave(abortError(ctx), s.endRun(ctx))
		}
		if stop.Blocked && continuation < maxStopContinuations {
			if s.cfg.MaxTurns <= 0 || total.Rounds < s.cfg.MaxTurns {
				stopActive = true
				prompt = StopHookFeedbackPrefix + "\n" + firstNonEmpty(stop.Reason, "continue")
				continue
			}
			// The hook wants more work, but the turns are spent: the run ends as a round
			// cap ends it, with the answer so far.
			s.mu.Lock()
			s.lastResult.StopReason = agent.StopMaxRounds
			s.mu.Unlock()
		}
		s.mu.Lock()
		s.messageCount++
		s.mu.Unlock()
		if err := s.endRun(ctx); err != nil {
			return res.Response, fmt.Errorf("%w: %w", ErrSave, err)
		}
		return res.Response, nil
	}
}

// endRun reports the end of a Run that reached the model (OnRunEnd, which may add
// event entries) and saves the session with what it added.
func (s *Session) endRun(ctx context.Context) error {
	if cb := s.cfg.Callbacks.OnRunEnd; cb != nil {
		res := s.LastResult()
		s.cbMu.Lock()
		cb(res)
		s.cbMu.Unlock()
	}
	return s.persist(ctx)
}

// accumulate adds the result of a Stop-hook continuation to the Run's result so far:
// rounds, usage and executed tools add up; how the latest part ended is how the Run ended.
func accumulate(total, next agent.Result) agent.Result {
	rounds, usage, tools := total.Rounds+next.Rounds, total.Usage.Add(next.Usage), append(total.ToolsExecuted, next.ToolsExecuted...)
	next.Rounds, next.Usage, next.ToolsExecuted = rounds, usage, tools
	return next
}

// failed handles a provider failure: log it, fire StopFailure, return the error.
func (s *Session) failed(ctx context.Context, err error, partial string) error {
	s.log(sessionlog.EventError, sessionlog.NewErrorData("run", err))
	s.hooks.run(context.WithoutCancel(ctx), HookInput{HookEventName: HookStopFailure, Error: stopFailureType(err),
		ErrorDetails: err.Error(), Reason: err.Error(), LastAssistantMessage: partial})
	return fmt.Errorf("session: run failed: %w", err)
}

// lastAssistantText is the text of the history's last message when the assistant wrote
// it (what streamed before a failure), else "".
func lastAssistantText(history []llm.Message) string {
	if n := len(history); n > 0 && history[n-1].Role == llm.RoleAssistant {
		return history[n-1].Text()
	}
	return ""
}

// stopFailureType is StopFailure's `error`: Claude Code's name for the kind of API
// error that ended the turn (its matcher values).
func stopFailureType(err error) string {
	e := llm.FromUnknown(err)
	switch {
	case e.StatusCode == 529 || strings.Contains(strings.ToLower(e.Error()), "overloaded"):
		return "overloaded"
	case e.Code == llm.CodeAuthentication:
		return "authentication_failed"
	case e.Code == llm.CodeRateLimit || e.StatusCode == 429:
		return "rate_limit"
	case e.Code == llm.CodeModelNotAvailable:
		return "model_not_found"
	case e.Code == llm.CodeValidation || e.StatusCode == 400:
		return "invalid_request"
	case e.StatusCode >= 500:
		return "server_error"
	}
	return "unknown"
}

// shouldAutoCompact checks the threshold against the current history (which Inject or
// Resume may have grown since the last refresh).
func (s *Session) shouldAutoCompact() bool {
	if _, on := s.tracker.Threshold().Effective(); !on {
		return false
	}
	s.tracker.UpdateFromHistory(s.currentAgent().HistoryView(), 0)
	return s.tracker.ShouldAutoCompact()
}

// refresh updates the tracker from msgs and reports the new state.
func (s *Session) refresh(msgs []llm.Message) {
	s.report(s.tracker.UpdateFromHistory(msgs, 0))
}

// report tells OnContextUpdate the context state.
func (s *Session) report(state contextwin.WindowState) {
	if cb := s.cfg.Callbacks.OnContextUpdate; cb != nil {
		s.cbMu.Lock()
		cb(state)
		s.cbMu.Unlock()
	}
}

func (s *Session) runOptions() agent.RunOptions {
	execID := s.cfg.NewID()
	return agent.RunOptions{
		ExecutionID: execID,
		OnTextDelta: func(d string) {
			s.log(sessionlog.EventTextDelta, sessionlog.TextDeltaData{Delta: d, ExecutionID: execID})
			if cb := s.cfg.Callbacks.OnTextDelta; cb != nil {
				cb(d)
			}
		},
		OnThinkingDelta: s.cfg.Callbacks.OnThinkingDelta,
		OnEvent:         s.onAgentEvent,
		OnServerToolUse: func(round int, u llm.ServerToolUse) {
			s.log(sessionlog.EventServerTool, sessionlog.NewServerToolData(u, execID, round))
		},
	}
}

// withSave adds a save failure to err.
func withSave(err, saveErr error) error {
	if saveErr == nil {
		return err
	}
	return errors.Join(err, fmt.Errorf("%w: %w", ErrSave, saveErr))
}
