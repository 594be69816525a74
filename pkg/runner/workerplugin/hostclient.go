package workerplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// hostClient is the runnerapi.Host a worker's agent job gets: the engine's HostService,
// dialled over the go-plugin broker, speaking for one job.
type hostClient struct {
	client robotav1.HostServiceClient
	jobID  string
}

// Chat implements runnerapi.Host. A call whose stream breaks is a recoverable network
// error; a call cancelled by ctx returns an aborted, empty response and ctx's error,
// as a provider would.
func (h *hostClient) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return llm.ChatResponse{}, llm.NewError(llm.CodeValidation, "encode the model request for the engine", err)
	}
	// The stream's resources are freed when its context ends: the call's own, not the job's.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := h.client.Chat(callCtx, &robotav1.ChatRequest{JobId: h.jobID, RequestJson: body})
	if err != nil {
		return h.broken(ctx, err)
	}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			err = errors.New("the engine ended the model call without a result")
		}
		if err != nil {
			return h.broken(ctx, err)
		}
		if result := DeliverChatStep(msg, cb); result != nil {
			_, _ = stream.Recv() // the end of the stream (io.EOF) follows the result
			return ChatResultFromProto(result)
		}
	}
}

func (h *hostClient) broken(ctx context.Context, err error) (llm.ChatResponse, error) {
	if ctx.Err() != nil {
		return llm.ChatResponse{Message: llm.NewAssistantMessage(nil, llm.StateInterrupted), StopReason: llm.StopReasonAborted}, ctx.Err()
	}
	return llm.ChatResponse{}, llm.NewError(llm.CodeNetwork, "model call through the engine", fromStatus(err))
}

// RunTool implements runnerapi.Host: the engine decides, and exec runs here only when
// the engine says so, with the input it sends. A broken stream is a failed call; the
// tool has not run unless the engine asked for it.
func (h *hostClient) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	fail := func(err error) llm.ToolResult {
		if ctx.Err() != nil {
			return llm.ToolFailure(fmt.Sprintf("Error: %s interrupted: %v", call.Name, ctx.Err()))
		}
		return llm.ToolFailure(fmt.Sprintf("Error: the engine could not decide %s: %v", call.Name, fromStatus(err)))
	}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel() // frees the stream whatever happens
	stream, err := h.client.RunTool(callCtx)
	if err != nil {
		return fail(err)
	}
	err = stream.Send(&robotav1.RunToolRequest{Step: &robotav1.RunToolRequest_Call{Call: &robotav1.HostToolCall{
		JobId: h.jobID, Call: &robotav1.ToolCall{Id: call.ID, Name: call.Name, ArgumentsJson: string(call.Input)},
	}}})
	if err != nil {
		return fail(err)
	}
	executed := false
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			err = errors.New("the engine ended the call without a result")
		}
		if err != nil {
			return fail(err)
		}
		switch step := msg.GetStep().(type) {
		case *robotav1.RunToolResponse_ExecuteInputJson:
			if executed { // the contract is at most once: never run a tool twice
				return fail(errors.New("the engine asked to run the tool twice"))
			}
			executed = true
			// The engine's policy for this call and what a search leaves out, walked as it
			// let the call run; an older engine sends neither and the job's own hold.
			callCtx := runnerapi.WithSandbox(ctx, sandboxFromProto(msg.GetExecuteSandbox()))
			callCtx = runnerapi.WithSearchExclude(callCtx, msg.GetExecuteSearchExclude())
			res := exec(callCtx, step.ExecuteInputJson)
			body, err := json.Marshal(res)
			if err != nil {
				body, _ = json.Marshal(llm.ToolFailure(fmt.Sprintf("Error: %s's result could not be encoded: %v", call.Name, err)))
			}
			if err := stream.Send(&robotav1.RunToolRequest{Step: &robotav1.RunToolRequest_ExecResultJson{ExecResultJson: body}}); err != nil {
				return fail(err)
			}
		case *robotav1.RunToolResponse_ResultJson:
			_ = stream.CloseSend()
			_, _ = stream.Recv() // the end of the stream (io.EOF) follows the result
			var res llm.ToolResult
			if err := json.Unmarshal(step.ResultJson, &res); err != nil {
				return fail(fmt.Errorf("unreadable result: %w", err))
			}
			return res
		}
	}
}
