package providerplugin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/compat"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// AbortGrace is how long an aborted call waits for the provider's partial response
// before it gives up on the provider process.
const AbortGrace = 5 * time.Second

// abortGrace is AbortGrace, shortened by tests.
var abortGrace = AbortGrace

// GRPCPlugin plugs a Backend into go-plugin. Impl is set in the provider process and
// nil on robota's side.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Backend
}

// GRPCServer registers ProviderService backed by Impl.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("providerplugin: GRPCServer needs an Impl")
	}
	robotav1.RegisterProviderServiceServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns a Backend that calls ProviderService over c.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &GRPCClient{client: robotav1.NewProviderServiceClient(c)}, nil
}

type grpcServer struct {
	robotav1.UnimplementedProviderServiceServer
	impl Backend
}

// Chat implements ProviderService: the call, then the client's cancel step, if any,
// while the provider streams.
func (s *grpcServer) Chat(stream grpc.BidiStreamingServer[robotav1.ProviderServiceChatRequest, robotav1.ProviderServiceChatResponse]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	call := first.GetCall()
	if call == nil {
		return status.Error(codes.InvalidArgument, "the first Chat message must be the call")
	}
	var cfg compat.Config
	if err := json.Unmarshal(call.GetConfigJson(), &cfg); err != nil {
		return status.Errorf(codes.InvalidArgument, "config_json: %v", err)
	}
	var req llm.ChatRequest
	if err := json.Unmarshal(call.GetRequestJson(), &req); err != nil {
		return status.Errorf(codes.InvalidArgument, "request_json: %v", err)
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	go func() {
		for {
			msg, err := stream.Recv()
			if err != nil {
				return // the client closed its side, or went away (stream.Context ends)
			}
			if msg.GetCancel() != nil {
				cancel()
				return
			}
		}
	}()
	// The provider calls back on its own goroutine, in order: the only sender until the result.
	send := func(ev *robotav1.ChatResponse) { _ = stream.Send(&robotav1.ProviderServiceChatResponse{Event: ev}) }
	resp, callErr := s.impl.Chat(ctx, cfg, req, workerplugin.ChatCallbacks(send, call.GetRawPayloads()))
	result, err := workerplugin.ChatResultToProto(resp, callErr)
	if err != nil {
		return status.Errorf(codes.Internal, "result: %v", err)
	}
	return stream.Send(&robotav1.ProviderServiceChatResponse{Event: &robotav1.ChatResponse{
		Event: &robotav1.ChatResponse_Result{Result: result}}})
}

// GRPCClient is robota's Backend: a provider process's ProviderService.
type GRPCClient struct {
	client robotav1.ProviderServiceClient
}

// Chat implements Backend.
func (c *GRPCClient) Chat(ctx context.Context, cfg compat.Config, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return llm.ChatResponse{}, llm.NewError(llm.CodeConfiguration, "provider "+cfg.Name, err)
	}
	reqJSON, err := json.Marshal(req)
	if err != nil {
		return llm.ChatResponse{}, llm.NewError(llm.CodeValidation, "encode the model request", err)
	}
	// The stream outlives the caller's context: when that ends, a cancel step asks the
	// provider to stop, and its partial response still comes back.
	streamCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	var got partial
	stream, err := c.client.Chat(streamCtx)
	if err == nil {
		err = stream.Send(&robotav1.ProviderServiceChatRequest{Step: &robotav1.ProviderServiceChatRequest_Call{Call: &robotav1.ProviderCall{
			ConfigJson: cfgJSON, RequestJson: reqJSON, RawPayloads: cb.OnRawPayload != nil}}})
	}
	if err != nil {
		return got.broken(ctx, cfg.Name, err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		// The only Send after the call's (gRPC allows one sender at a time).
		_ = stream.Send(&robotav1.ProviderServiceChatRequest{Step: &robotav1.ProviderServiceChatRequest_Cancel{Cancel: &robotav1.ProviderCancel{}}})
		select {
		case <-done:
		case <-time.After(abortGrace):
			stop() // a provider process that does not answer: leave it
		}
	}()
	track := got.tracking(cb)
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			err = errors.New("the provider process ended the call without a result")
		}
		if err != nil {
			return got.broken(ctx, cfg.Name, err)
		}
		if result := workerplugin.DeliverChatStep(msg.GetEvent(), track); result != nil {
			_ = stream.CloseSend()
			return workerplugin.ChatResultFromProto(result)
		}
	}
}

// partial is what a call streamed, for the response of a call whose provider process
// did not answer.
type partial struct{ text, thinking strings.Builder }

func (p *partial) tracking(cb llm.Callbacks) llm.Callbacks {
	out := cb
	out.OnTextDelta = func(d string) { p.text.WriteString(d); cb.TextDelta(d) }
	out.OnThinkingDelta = func(d string) { p.thinking.WriteString(d); cb.ThinkingDelta(d) }
	return out
}

// broken ends a call whose stream broke: aborted with the streamed text when the
// caller's context ended (as a provider returns), else a recoverable network error
// (the next call may start a new provider process).
func (p *partial) broken(ctx context.Context, provider string, err error) (llm.ChatResponse, error) {
	if ctx.Err() != nil {
		var parts []llm.Part
		if p.thinking.Len() > 0 {
			parts = append(parts, llm.ThinkingPart(p.thinking.String(), ""))
		}
		if p.text.Len() > 0 {
			parts = append(parts, llm.TextPart(p.text.String()))
		}
		return llm.ChatResponse{Message: llm.NewAssistantMessage(parts, llm.StateInterrupted), StopReason: llm.StopReasonAborted}, nil
	}
	if st, ok := status.FromError(err); ok {
		err = errors.New(st.Message())
	}
	e := llm.NewError(llm.CodeNetwork, "the provider process (robota-provider) failed", err)
	e.Provider = provider
	return llm.ChatResponse{}, e
}
