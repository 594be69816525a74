package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// callHost is the runnerapi.Host an agent job gets on a host agent: the engine's
// answers over NATS request/reply, for one attempt. It mirrors the go-plugin worker's
// HostService (workerplugin): a model call streams deltas then a result; a tool call
// gets at most one "execute" request, then the result the model sees.
type callHost struct {
	nc      *nats.Conn
	host    string
	jobID   string
	attempt int
}

var _ runnerapi.Host = (*callHost)(nil)

// open publishes call on subject with a fresh inbox as its reply and returns the
// inbox's subscription, which the caller must drain and unsubscribe.
func (h *callHost) open(subject string, call wire.Call) (*nats.Subscription, error) {
	call.Attempt = h.attempt
	body, err := json.Marshal(call)
	if err != nil {
		return nil, err
	}
	inbox := h.nc.NewInbox()
	sub, err := h.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, err
	}
	if err := h.nc.PublishMsg(&nats.Msg{Subject: subject, Reply: inbox, Data: body}); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	return sub, nil
}

func nextStep(ctx context.Context, sub *nats.Subscription) (wire.Step, *nats.Msg, error) {
	m, err := sub.NextMsgWithContext(ctx)
	if err != nil {
		return wire.Step{}, nil, err
	}
	var s wire.Step
	if err := json.Unmarshal(m.Data, &s); err != nil {
		return wire.Step{}, nil, fmt.Errorf("unreadable message from the engine: %w", err)
	}
	if s.Refuse != "" {
		return s, m, errors.New(s.Refuse)
	}
	return s, m, nil
}

// Chat implements runnerapi.Host.
func (h *callHost) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return llm.ChatResponse{}, llm.NewError(llm.CodeValidation, "encode the model request for the engine", err)
	}
	broken := func(err error) (llm.ChatResponse, error) {
		if ctx.Err() != nil {
			return llm.ChatResponse{Message: llm.NewAssistantMessage(nil, llm.StateInterrupted), StopReason: llm.StopReasonAborted}, ctx.Err()
		}
		return llm.ChatResponse{}, llm.NewError(llm.CodeNetwork, "model call through the engine over NATS", err)
	}
	sub, err := h.open(wire.ChatSubject(h.host, h.jobID), wire.Call{Chat: body})
	if err != nil {
		return broken(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	for {
		s, _, err := nextStep(ctx, sub)
		if err != nil {
			return broken(err)
		}
		switch {
		case s.Done:
			return decodeChat(s)
		case s.TextDelta != "":
			cb.TextDelta(s.TextDelta)
		case s.ThinkingDelta != "":
			cb.ThinkingDelta(s.ThinkingDelta)
		case len(s.ServerToolUse) > 0:
			var u llm.ServerToolUse
			if json.Unmarshal(s.ServerToolUse, &u) == nil {
				cb.ServerToolUse(u)
			}
		}
	}
}

func decodeChat(s wire.Step) (llm.ChatResponse, error) {
	var resp llm.ChatResponse
	if err := json.Unmarshal(s.Result, &resp); err != nil {
		return llm.ChatResponse{}, llm.NewError(llm.CodePlugin, "the engine's model response is unreadable", err)
	}
	if len(s.Error) == 0 {
		return resp, nil
	}
	var e llm.Error
	if err := json.Unmarshal(s.Error, &e); err != nil {
		return resp, llm.NewError(llm.CodePlugin, "the engine's model error is unreadable", err)
	}
	return resp, &e
}

// RunTool implements runnerapi.Host: exec runs here only when the engine says so.
func (h *callHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	fail := func(err error) llm.ToolResult {
		if ctx.Err() != nil {
			return llm.ToolFailure(fmt.Sprintf("Error: %s interrupted: %v", call.Name, ctx.Err()))
		}
		return llm.ToolFailure(fmt.Sprintf("Error: the engine could not decide %s: %v", call.Name, err))
	}
	sub, err := h.open(wire.ToolSubject(h.host, h.jobID), wire.Call{Tool: &wire.ToolCall{ID: call.ID, Name: call.Name, Input: call.Input}})
	if err != nil {
		return fail(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	executed := false
	for {
		s, m, err := nextStep(ctx, sub)
		if err != nil {
			return fail(err)
		}
		if s.Done {
			var res llm.ToolResult
			if err := json.Unmarshal(s.Result, &res); err != nil {
				return fail(fmt.Errorf("unreadable result: %w", err))
			}
			return res
		}
		if len(s.Execute) == 0 {
			continue
		}
		if executed { // at most once: never run a tool twice
			return fail(errors.New("the engine asked to run the tool twice"))
		}
		executed = true
		// The engine's policy for this call and what a search leaves out, walked as it
		// let the call run.
		callCtx := runnerapi.WithSearchExclude(runnerapi.WithSandbox(ctx, s.Sandbox), s.SearchExclude)
		body, err := json.Marshal(exec(callCtx, s.Execute))
		if err != nil {
			body, _ = json.Marshal(llm.ToolFailure(fmt.Sprintf("Error: %s's result could not be encoded: %v", call.Name, err)))
		}
		if err := m.Respond(body); err != nil {
			return fail(err)
		}
	}
}

// serveCall answers one host → engine call (msg on a chat or tool subject) with host,
// the engine-side Host of the attempt that made it. ctx is the attempt's: it ends when
// the attempt is superseded or the job ends.
func serveCall(ctx context.Context, nc *nats.Conn, msg *nats.Msg, call wire.Call, host runnerapi.Host) {
	send := func(s wire.Step) {
		if b, err := json.Marshal(s); err == nil {
			_ = nc.Publish(msg.Reply, b)
		}
	}
	switch {
	case call.Chat != nil:
		var req llm.ChatRequest
		if err := json.Unmarshal(call.Chat, &req); err != nil {
			send(wire.Step{Done: true, Refuse: "unreadable model request: " + err.Error()})
			return
		}
		resp, callErr := host.Chat(ctx, req, llm.Callbacks{
			OnTextDelta:     func(d string) { send(wire.Step{TextDelta: d}) },
			OnThinkingDelta: func(d string) { send(wire.Step{ThinkingDelta: d}) },
			OnServerToolUse: func(u llm.ServerToolUse) {
				if b, err := json.Marshal(u); err == nil {
					send(wire.Step{ServerToolUse: b})
				}
			},
		})
		out := wire.Step{Done: true}
		out.Result, _ = json.Marshal(resp)
		if callErr != nil {
			out.Error, _ = json.Marshal(flattenError(callErr))
		}
		send(out)
	case call.Tool != nil:
		tc := runnerapi.ToolCall{ID: call.Tool.ID, Name: call.Tool.Name, Input: call.Tool.Input}
		if len(tc.Input) == 0 {
			tc.Input = json.RawMessage("{}")
		}
		exec := func(callCtx context.Context, input json.RawMessage) llm.ToolResult {
			step := wire.Step{Execute: input}
			if sb, ok := runnerapi.SandboxFrom(callCtx); ok {
				step.Sandbox = sb // the call's command sandbox (runnerapi.WithSandbox)
			}
			step.SearchExclude = runnerapi.SearchExcludeFrom(callCtx)
			body, _ := json.Marshal(step)
			reply, err := nc.RequestWithContext(ctx, msg.Reply, body)
			if err != nil {
				return llm.ToolFailure(fmt.Sprintf("Error: %s ran on the host but its result was lost: %v", tc.Name, err))
			}
			var res llm.ToolResult
			if err := json.Unmarshal(reply.Data, &res); err != nil {
				return llm.ToolFailure(fmt.Sprintf("Error: the host's result of %s is unreadable: %v", tc.Name, err))
			}
			return res
		}
		res := host.RunTool(ctx, tc, exec)
		out := wire.Step{Done: true}
		out.Result, _ = json.Marshal(res)
		send(out)
	default:
		send(wire.Step{Done: true, Refuse: "empty call"})
	}
}

// flattenError is err as an *llm.Error whose Message holds the whole text: the cause
// chain does not cross the wire, its words do.
func flattenError(err error) *llm.Error {
	e := llm.FromUnknown(err)
	cp := *e
	cp.Provider = ""
	out := *e
	out.Message, out.Err = cp.Error(), nil
	return &out
}
