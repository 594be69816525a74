package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// run is the state of one Run call.
type run struct {
	a         *Agent
	opts      RunOptions
	maxRounds int
	em        *emitter
	round     int
	result    Result
	// fallback is set during the forced final call: the answer committed when it fails or
	// says nothing (it names why the run stopped).
	fallback string
	// lastCall is the usage of the latest provider call of this run: the floor of the
	// pre-send context check.
	lastCall llm.Usage
	// stable counts the leading messages of the latest request built that every later
	// request of this agent repeats: the system prompt and the history (not the extra
	// messages of a forced summary).
	stable int
}

func (r *run) textDelta(d string) {
	if r.opts.OnTextDelta != nil {
		r.opts.OnTextDelta(d)
	}
}

func (r *run) loop(ctx context.Context) {
	unknownStreak := 0
	var unknownNames []string
	for {
		if ctx.Err() != nil {
			r.interrupted()
			return
		}
		if r.maxRounds > 0 && r.round >= r.maxRounds {
			r.result.StopReason = StopMaxRounds
			r.forcedSummary(ctx, maxRoundsInstruction, MaxRoundsFallbackText)
			return
		}
		r.round++
		r.result.Rounds = r.round
		req := r.request(r.a.schemas, llm.PurposeChat, nil)
		if r.contextGuard(req) {
			return
		}
		if r.round > 1 {
			r.textDelta("\n\n")
		}
		msg, err := r.executeRound(ctx, req)
		if ctx.Err() != nil {
			// The partial message is committed; queued tools get the interruption result.
			if calls := msg.ToolCalls(); len(calls) > 0 {
				r.executeAndRecord(ctx, calls)
			}
			r.interrupted()
			return
		}
		if err != nil {
			r.result.StopReason, r.result.Err = StopProviderError, err
			r.result.Response = msg.Text()
			return
		}
		calls := msg.ToolCalls()
		if len(calls) == 0 {
			r.result.StopReason, r.result.Response = StopCompleted, msg.Text()
			return
		}
		unknown, stop := r.executeAndRecord(ctx, calls)
		if ctx.Err() != nil {
			r.interrupted()
			return
		}
		if stop != "" {
			r.result.StopReason, r.result.Response = StopHookStopped, msg.Text()
			return
		}
		if len(unknown) == 0 {
			unknownStreak, unknownNames = 0, nil
			continue
		}
		unknownStreak++
		unknownNames = appendUnique(unknownNames, unknown...)
		if unknownStreak >= 2 {
			r.result.StopReason = StopUnknownTools
			r.forcedSummary(ctx, unknownToolsInstruction(unknownNames), UnknownToolsFallbackText)
			return
		}
	}
}

func (r *run) interrupted() {
	r.result.Interrupted = true
	r.result.StopReason = StopInterrupted
	h := r.a.store.View()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleAssistant {
			r.result.Response = h[i].Text()
			break
		}
		if h[i].Role == llm.RoleUser {
			break
		}
	}
}

// request assembles the provider request: system prompt, then history for the API.
func (r *run) request(tools []llm.ToolSchema, purpose llm.Purpose, extra []llm.Message) llm.ChatRequest {
	hist := r.a.store.MessagesForAPI()
	r.stable = len(r.a.system) + len(hist)
	// The usual round sends the history as it is (its system message first): no copy,
	// the request only reads it (see ConversationStore.View).
	msgs := hist
	if len(r.a.system) > 0 || len(extra) > 0 {
		msgs = make([]llm.Message, 0, len(r.a.system)+len(hist)+len(extra))
		msgs = append(msgs, r.a.system...)
		msgs = append(msgs, hist...)
		msgs = append(msgs, extra...)
	}
	return llm.ChatRequest{
		Model:       r.a.cfg.Model,
		Messages:    msgs,
		Tools:       tools,
		MaxTokens:   r.a.cfg.MaxTokens,
		Temperature: r.a.cfg.Temperature,
		Purpose:     purpose,
		Agent:       r.a.cfg.AgentName,
	}
}

// executeRound makes one provider call through the single begin/append/commit path and
// returns the committed assistant message. A provider failure is committed as a readable
// assistant message and returned as err.
func (r *run) executeRound(ctx context.Context, req llm.ChatRequest) (llm.Message, error) {
	store := r.a.store
	store.BeginAssistant()
	r.emitRequest(req)
	resp, err := r.callProvider(ctx, req)
	aborted := ctx.Err() != nil
	if err != nil && !aborted {
		return r.commitProviderError(err), err
	}
	r.em.emit(r.round, Event{Type: EventProviderResponseRaw, Response: &ResponseData{
		Response: resp, ResponseKind: ResponseKindNormalized, ToolCallsCount: len(resp.Message.ToolCalls()),
	}})
	contextwin.NormalizeMessageUsage(&resp.Message)
	calls := resp.Message.ToolCalls()
	r.em.emit(r.round, Event{Type: EventProviderResponseNormalized, Response: &ResponseData{
		Response: resp, ToolCallsCount: len(calls),
	}})
	if text := resp.Message.Text(); text != "" && (!aborted || len(text) >= len(store.PendingContent())) {
		store.SetPendingText(text)
	}
	for _, p := range resp.Message.Content {
		if p.Type == llm.PartThinking {
			store.AppendThinking(p)
		}
	}
	for _, tc := range calls {
		store.AppendToolCall(tc)
	}
	state := llm.StateComplete
	if aborted {
		state = llm.StateInterrupted
	}
	if resp.Message.Usage != nil {
		r.lastCall = *resp.Message.Usage
		r.result.Usage = r.result.Usage.Add(*resp.Message.Usage)
	}
	msg := store.CommitAssistant(state, resp.Message.Usage, resp.Message.Metadata)
	r.em.emit(r.round, Event{Type: EventAssistantMessageCommitted, Message: &msg})
	return msg, nil
}

// callProvider calls the provider with per-call callbacks and the idle timeout.
func (r *run) callProvider(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer Timer
	if d := r.a.cfg.IdleTimeout; d > 0 {
		timer = r.a.cfg.NewTimer(d, func() { cancel(ErrIdleTimeout) })
		defer timer.Stop()
	}
	round := r.round
	cb := llm.Callbacks{
		OnTextDelta: func(d string) {
			if timer != nil {
				timer.Reset(r.a.cfg.IdleTimeout)
			}
			r.a.store.AppendStreaming(d)
			r.em.delta(round, d)
			r.textDelta(d)
		},
		OnThinkingDelta: func(d string) {
			if timer != nil {
				timer.Reset(r.a.cfg.IdleTimeout)
			}
			if r.opts.OnThinkingDelta != nil {
				r.opts.OnThinkingDelta(d)
			}
		},
		// Every stream event is activity, including the ones that carry no text
		// (a long tool-call input streams only input_json_delta events).
		OnRawPayload: func(p llm.RawPayloadEvent) {
			if timer != nil && p.PayloadKind == llm.PayloadStreamEvent {
				timer.Reset(r.a.cfg.IdleTimeout)
			}
			r.em.rawPayload(round, p)
		},
		OnServerToolUse: func(u llm.ServerToolUse) {
			if timer != nil {
				timer.Reset(r.a.cfg.IdleTimeout)
			}
			if r.opts.OnServerToolUse != nil {
				r.opts.OnServerToolUse(round, u)
			}
		},
	}
	resp, err := r.a.cfg.Provider.Chat(callCtx, req, cb)
	if ctx.Err() == nil && errors.Is(context.Cause(callCtx), ErrIdleTimeout) {
		err = llm.NewError(llm.CodeNetwork,
			fmt.Sprintf("no response activity for %s", r.a.cfg.IdleTimeout), ErrIdleTimeout)
	}
	if err != nil && ctx.Err() == nil {
		err = llm.WrapProviderError(r.a.cfg.Provider.Name(), err)
	}
	return resp, err
}

// commitProviderError commits the streamed text (if any) followed by a readable error.
func (r *run) commitProviderError(err error) llm.Message {
	store := r.a.store
	text := store.PendingContent()
	if text != "" {
		text += "\n\n"
	}
	if r.fallback != "" {
		text += r.fallback
	} else {
		text += "Error: the model request failed: " + err.Error()
	}
	store.SetPendingText(text)
	meta := map[string]any{"errorCode": ErrorCodeProvider}
	if code := llm.CodeOf(err); code != "" {
		meta["providerErrorCode"] = string(code)
		meta["recoverable"] = llm.IsRecoverable(err)
	}
	msg := store.CommitAssistant(llm.StateComplete, nil, meta)
	r.em.emit(r.round, Event{Type: EventAssistantMessageCommitted, Message: &msg})
	return msg
}

const maxRoundsInstruction = "You have reached the maximum number of tool rounds for this request. " +
	"Do not call any tools. Respond to the user now with what you have found so far, " +
	"note what remains incomplete, and tell the user they can follow up to continue."

func unknownToolsInstruction(names []string) string {
	return fmt.Sprintf("The tool calls to %s were not executed because those tools are not registered. "+
		"Do not call any tools. Respond to the user now with what you have so far, "+
		"and explain what could not be done.", strings.Join(names, ", "))
}

// forcedSummary makes one final provider call without tools, with a synthetic user
// instruction that is sent but never stored in history. An empty or failed answer yields
// fallback (MaxRoundsFallbackText at the round cap, UnknownToolsFallbackText after
// repeated unknown tools). The call numbers its replay events as the next round but is not
// counted in Result.Rounds (it is no model/tool round; Result.FinalSummary says it ran).
// It passes the same 95% pre-send guard as every other call: past it, the run ends with
// StopContextLimit and the guard's diagnostic instead.
func (r *run) forcedSummary(ctx context.Context, instruction, fallback string) {
	r.round++
	synthetic := r.a.factory.User(instruction)
	req := r.request(nil, llm.PurposeFinalSummary, []llm.Message{synthetic})
	if r.contextGuard(req) {
		return
	}
	r.result.FinalSummary = true
	r.textDelta("\n\n")
	r.fallback = fallback
	msg, err := r.executeRound(ctx, req)
	r.fallback = ""
	if ctx.Err() != nil {
		r.interrupted()
		return
	}
	text := msg.Text()
	if err != nil || strings.TrimSpace(text) == "" {
		// Never an error: the fallback tells the user where the partial results are.
		text = fallback
		r.textDelta(text)
	}
	r.result.Response = text
}

func appendUnique(list []string, names ...string) []string {
	for _, n := range names {
		found := false
		for _, have := range list {
			if have == n {
				found = true
				break
			}
		}
		if !found {
			list = append(list, n)
		}
	}
	return list
}

// emittedRequest marks a provider request an agent emitted: where it was, how many of its
// leading messages every later request repeats, and its tool schemas.
type emittedRequest struct {
	executionID string
	round       int
	stable      int
	tools       []llm.ToolSchema
}

// emitRequest emits provider_request with the agent's previous emitted request as its
// base: history is append-only and MessagesForAPI maps each message on its own, so the
// previous request's stable prefix is repeated verbatim. Only an emitted request becomes
// a base, so a base is always in the log the events go to.
func (r *run) emitRequest(req llm.ChatRequest) {
	if r.em.fn == nil {
		return
	}
	data := &ProviderRequestData{Provider: r.a.cfg.Provider.Name(), Model: req.Model, Purpose: req.Purpose,
		Messages: req.Messages, Tools: req.Tools}
	if prev := r.a.lastRequest; prev != nil && prev.stable <= len(req.Messages) {
		data.Base = &RequestBase{ExecutionID: prev.executionID, Round: prev.round, Messages: prev.stable,
			Tools: sameSchemas(prev.tools, req.Tools)}
	}
	r.em.emit(r.round, Event{Type: EventProviderRequest, Request: data})
	r.a.lastRequest = &emittedRequest{executionID: r.em.executionID, round: r.round,
		stable: min(r.stable, len(req.Messages)), tools: req.Tools}
}

// sameSchemas reports whether a and b are the same slice (the agent passes its one
// schema list to every chat request), without comparing contents.
func sameSchemas(a, b []llm.ToolSchema) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0]
}
