package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
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
	runCtx, release, err := s.begin(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return s.run(runCtx, input)
}

func (s *Session) run(ctx context.Context, input string) (string, error) {
	if s.shouldAutoCompact() {
		if err := s.compact(ctx, TriggerAuto, ""); err != nil && ctx.Err() != nil {
			return "", abortError(ctx)
		}
		// A blocked or failed auto-compaction was logged; the run goes on with the whole
		// history (the loop's hard guard still protects the provider call).
	}
	ups := s.hooks.run(ctx, HookInput{HookEventName: HookUserPromptSubmit, Prompt: input})
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
	before := a.History()
	caps := llm.ProviderCapabilities(s.cfg.Provider)
	s.log("pre_run", map[string]any{
		"provider": s.cfg.Provider.Name(), "nativeWebTools": caps.NativeWebTools,
		"input": prompt, "messages": nonNil(before),
	})
	pending := llm.Message{Role: llm.RoleUser, State: llm.StateComplete, Content: []llm.Part{llm.TextPart(prompt)}}
	s.refresh(append(before, pending))

	stopActive := false
	for continuation := 0; ; continuation++ {
		res, err := a.Run(ctx, prompt, s.runOptions())
		if err != nil { // misuse only (a concurrent agent run); history is untouched
			return "", fmt.Errorf("session: %w", err)
		}
		s.mu.Lock()
		s.lastResult = res
		s.mu.Unlock()
		history := a.History()
		s.refresh(history)
		if res.Interrupted || ctx.Err() != nil {
			return res.Response, withSave(abortError(ctx), s.persist(ctx))
		}
		if res.Err != nil {
			return res.Response, withSave(s.failed(ctx, res.Err), s.persist(ctx))
		}
		s.log("assistant", assistantData(res.Response, history))
		stop := s.hooks.run(ctx, HookInput{HookEventName: HookStop, StopHookActive: boolPtr(stopActive),
			Response: res.Response, LastAssistantMessage: res.Response})
		if ctx.Err() != nil {
			return res.Response, withSave(abortError(ctx), s.persist(ctx))
		}
		if stop.Blocked && continuation < maxStopContinuations {
			stopActive = true
			prompt = StopHookFeedbackPrefix + "\n" + firstNonEmpty(stop.Reason, "continue")
			continue
		}
		s.mu.Lock()
		s.messageCount++
		s.mu.Unlock()
		if err := s.persist(ctx); err != nil {
			return res.Response, fmt.Errorf("%w: %w", ErrSave, err)
		}
		return res.Response, nil
	}
}

// failed handles a provider failure: log it, fire StopFailure, return the error.
func (s *Session) failed(ctx context.Context, err error) error {
	s.log("error", map[string]any{"error": err.Error(), "code": string(llm.CodeOf(err)), "phase": "run"})
	s.hooks.run(context.WithoutCancel(ctx), HookInput{HookEventName: HookStopFailure, Error: err.Error(), Reason: err.Error()})
	return fmt.Errorf("session: run failed: %w", err)
}

// shouldAutoCompact checks the threshold against the current history (which Inject or
// Resume may have grown since the last refresh).
func (s *Session) shouldAutoCompact() bool {
	if _, on := s.tracker.Threshold().Effective(); !on {
		return false
	}
	s.tracker.UpdateFromHistory(s.currentAgent().History(), 0)
	return s.tracker.ShouldAutoCompact()
}

// refresh updates the tracker from msgs and reports the new state.
func (s *Session) refresh(msgs []llm.Message) {
	state := s.tracker.UpdateFromHistory(msgs, 0)
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
			s.log("text_delta", map[string]any{"delta": d, "executionId": execID})
			if cb := s.cfg.Callbacks.OnTextDelta; cb != nil {
				cb(d)
			}
		},
		OnEvent: s.onAgentEvent,
		OnServerToolUse: func(round int, u llm.ServerToolUse) {
			s.log("server_tool", serverToolData(u, execID, round))
		},
	}
}

// serverToolData is the data of server_tool: the hosted tool's name, its query (the
// input's "query" string; for a tool without one, such as web_fetch, the input as compact
// JSON text), the input itself and the identifiers that place it in the run.
func serverToolData(u llm.ServerToolUse, execID string, round int) map[string]any {
	input := u.Input
	var v any
	if len(input) == 0 {
		input, v = json.RawMessage(`{}`), map[string]any{}
	} else if json.Unmarshal(input, &v) != nil { // a cut stream: keep the text, as a JSON string
		v = string(input)
		input, _ = json.Marshal(v)
	}
	query, ok := v.(string)
	if m, isObject := v.(map[string]any); isObject {
		query, ok = m["query"].(string)
	}
	if !ok {
		var b bytes.Buffer
		_ = json.Compact(&b, input) // input is valid JSON here
		query = b.String()
	}
	return map[string]any{"name": u.Name, "query": query, "input": input, "toolUseId": u.ID,
		"executionId": execID, "round": round}
}

// withSave adds a save failure to err.
func withSave(err, saveErr error) error {
	if saveErr == nil {
		return err
	}
	return errors.Join(err, fmt.Errorf("%w: %w", ErrSave, saveErr))
}

// assistantData is the data of the assistant log event.
func assistantData(content string, history []llm.Message) map[string]any {
	structure := make([]map[string]any, len(history))
	for i, m := range history {
		names := []string{}
		for _, c := range m.ToolCalls() {
			names = append(names, c.Name)
		}
		length := len([]rune(m.Text()))
		if r, ok := m.ToolResult(); ok {
			length = len([]rune(r.Content))
		}
		entry := map[string]any{"role": m.Role, "contentLength": length, "hasToolCalls": len(names) > 0, "toolCallNames": names}
		if len(m.Metadata) > 0 {
			entry["metadata"] = m.Metadata
		}
		structure[i] = entry
	}
	return map[string]any{"content": content, "history": nonNil(history), "historyStructure": structure}
}
