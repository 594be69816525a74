package workerplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// hostServer is the engine's HostService for one worker connection: it answers the
// model calls and tool decisions of that worker's running agent jobs with each job's
// runnerapi.Host. One server per connection, started on the broker with the first
// agent job, serves every later job too: a broker stream costs a listener and a TLS
// handshake, too much to pay per job.
type hostServer struct {
	robotav1.UnimplementedHostServiceServer

	mu     sync.Mutex
	byJob  map[string]runnerapi.Host
	id     uint32       // broker id the server is served under; 0 before the first job
	server *grpc.Server // the running server, to stop it when it is replaced
}

func newHostServer() *hostServer { return &hostServer{byJob: map[string]runnerapi.Host{}} }

// serve returns the broker id of the running server, starting one first if needed.
func (s *hostServer) serve(broker *plugin.GRPCBroker) uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id != 0 {
		return s.id
	}
	id := broker.NextId()
	s.id = id
	go broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
		opts = append(opts, grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes))
		srv := grpc.NewServer(opts...)
		robotav1.RegisterHostServiceServer(srv, s)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.id != id {
			srv.Stop() // replaced before it started: its Serve returns at once
			return srv
		}
		s.server = srv
		return srv
	})
	return id
}

// reset drops the server under id, so the next job starts a new one: the worker could
// not reach it (the broker forgets an address nobody dialled within its timeout).
func (s *hostServer) reset(id uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id != id {
		return
	}
	if s.server != nil {
		s.server.Stop()
	}
	s.id, s.server = 0, nil
}

// add makes host answer for jobID until remove.
func (s *hostServer) add(jobID string, host runnerapi.Host) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.byJob[jobID]; dup {
		return fmt.Errorf("workerplugin: job %s is already running on this worker", jobID)
	}
	s.byJob[jobID] = host
	return nil
}

func (s *hostServer) remove(jobID string) {
	s.mu.Lock()
	delete(s.byJob, jobID)
	s.mu.Unlock()
}

func (s *hostServer) host(jobID string) (runnerapi.Host, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.byJob[jobID]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "no running agent job %q on this worker", jobID)
	}
	return h, nil
}

// Chat implements HostService.
func (s *hostServer) Chat(req *robotav1.ChatRequest, stream grpc.ServerStreamingServer[robotav1.ChatResponse]) error {
	h, err := s.host(req.GetJobId())
	if err != nil {
		return err
	}
	var chat llm.ChatRequest
	if err := json.Unmarshal(req.GetRequestJson(), &chat); err != nil {
		return status.Errorf(codes.InvalidArgument, "request_json: %v", err)
	}
	send := func(ev *robotav1.ChatResponse) { _ = stream.Send(ev) } // a broken stream ends the call through its context
	resp, callErr := h.Chat(stream.Context(), chat, ChatCallbacks(send, false))
	result, err := ChatResultToProto(resp, callErr)
	if err != nil {
		return status.Errorf(codes.Internal, "result: %v", err)
	}
	return stream.Send(&robotav1.ChatResponse{Event: &robotav1.ChatResponse_Result{Result: result}})
}

// RunTool implements HostService: see host.proto for the steps.
func (s *hostServer) RunTool(stream grpc.BidiStreamingServer[robotav1.RunToolRequest, robotav1.RunToolResponse]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	c := first.GetCall()
	if c == nil {
		return status.Error(codes.InvalidArgument, "the first RunTool message must be the call")
	}
	h, err := s.host(c.GetJobId())
	if err != nil {
		return err
	}
	call := runnerapi.ToolCall{ID: c.GetCall().GetId(), Name: c.GetCall().GetName(), Input: rawJSON(c.GetCall().GetArgumentsJson())}
	// The tool runs in the worker for as long as the stream lives: the stream's context,
	// not the one the host passes, bounds it. That context carries the call's command
	// sandbox, when the engine walked one for it (runnerapi.WithSandbox), and what a
	// search call leaves out (runnerapi.WithSearchExclude).
	exec := func(ctx context.Context, input json.RawMessage) llm.ToolResult {
		step := &robotav1.RunToolResponse{Step: &robotav1.RunToolResponse_ExecuteInputJson{ExecuteInputJson: input}}
		if sb, ok := runnerapi.SandboxFrom(ctx); ok {
			step.ExecuteSandbox = sandboxToProto(sb)
		}
		step.ExecuteSearchExclude = runnerapi.SearchExcludeFrom(ctx)
		if err := stream.Send(step); err != nil {
			return llm.ToolFailure(fmt.Sprintf("Error: the worker could not be told to run %s: %v", call.Name, err))
		}
		msg, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the worker closed the call")
			}
			return llm.ToolFailure(fmt.Sprintf("Error: %s ran in the worker but its result was lost: %v", call.Name, err))
		}
		var res llm.ToolResult
		if err := json.Unmarshal(msg.GetExecResultJson(), &res); err != nil {
			return llm.ToolFailure(fmt.Sprintf("Error: the worker's result of %s is unreadable: %v", call.Name, err))
		}
		return res
	}
	res := h.RunTool(stream.Context(), call, exec)
	b, err := json.Marshal(res)
	if err != nil {
		return status.Errorf(codes.Internal, "result: %v", err)
	}
	return stream.Send(&robotav1.RunToolResponse{Step: &robotav1.RunToolResponse_ResultJson{ResultJson: b}})
}

// rawJSON is s as raw JSON, "{}" when empty.
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}
