package workerplugin

import (
	"context"
	"errors"
	"fmt"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"io"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// GRPCPlugin plugs a Runner into go-plugin. Impl is set on the worker side and
// nil on the engine side.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl runnerapi.Runner
}

// GRPCServer registers RunnerService backed by Impl.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("workerplugin: GRPCServer needs an Impl")
	}
	robotav1.RegisterRunnerServiceServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns a Runner that calls RunnerService over c.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &GRPCClient{client: robotav1.NewRunnerServiceClient(c)}, nil
}

type grpcServer struct {
	robotav1.UnimplementedRunnerServiceServer
	impl runnerapi.Runner
}

func (s *grpcServer) Start(req *robotav1.StartRequest, stream grpc.ServerStreamingServer[robotav1.StartResponse]) error {
	job, err := jobFromProto(req)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	err = s.impl.Start(stream.Context(), job, func(ev runnerapi.Event) error {
		return stream.Send(&robotav1.StartResponse{Event: eventToProto(ev)})
	})
	return toStatus(err)
}

func (s *grpcServer) Cancel(ctx context.Context, req *robotav1.CancelRequest) (*robotav1.CancelResponse, error) {
	running, err := s.impl.Cancel(ctx, req.GetJobId(), req.GetReason())
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.CancelResponse{WasRunning: running}, nil
}

func (s *grpcServer) Send(ctx context.Context, req *robotav1.SendRequest) (*robotav1.SendResponse, error) {
	if err := s.impl.Send(ctx, req.GetJobId(), req.GetInput()); err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.SendResponse{}, nil
}

func (s *grpcServer) ReadLog(ctx context.Context, req *robotav1.ReadLogRequest) (*robotav1.ReadLogResponse, error) {
	page, err := s.impl.ReadLog(ctx, req.GetJobId(), req.GetOffset(), req.GetLimit())
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.ReadLogResponse{Data: page.Data, NextOffset: page.NextOffset, Eof: page.EOF}, nil
}

// GRPCClient is the engine-side Runner backed by a worker's RunnerService.
type GRPCClient struct {
	client robotav1.RunnerServiceClient
}

// Start implements Runner.
func (c *GRPCClient) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	req, err := jobToProto(job)
	if err != nil {
		return err
	}
	stream, err := c.client.Start(ctx, req)
	if err != nil {
		return fromStatus(err)
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fromStatus(err)
		}
		if err := emit(eventFromProto(resp.GetEvent())); err != nil {
			return err
		}
	}
}

// Cancel implements Runner.
func (c *GRPCClient) Cancel(ctx context.Context, jobID, reason string) (bool, error) {
	resp, err := c.client.Cancel(ctx, &robotav1.CancelRequest{JobId: jobID, Reason: reason})
	if err != nil {
		return false, fromStatus(err)
	}
	return resp.GetWasRunning(), nil
}

// Send implements Runner.
func (c *GRPCClient) Send(ctx context.Context, jobID, input string) error {
	_, err := c.client.Send(ctx, &robotav1.SendRequest{JobId: jobID, Input: input})
	return fromStatus(err)
}

// ReadLog implements Runner.
func (c *GRPCClient) ReadLog(ctx context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error) {
	resp, err := c.client.ReadLog(ctx, &robotav1.ReadLogRequest{JobId: jobID, Offset: offset, Limit: limit})
	if err != nil {
		return runnerapi.LogPage{}, fromStatus(err)
	}
	return runnerapi.LogPage{Data: resp.GetData(), NextOffset: resp.GetNextOffset(), EOF: resp.GetEof()}, nil
}

// toStatus maps the package's sentinels onto gRPC codes so they survive the wire.
func toStatus(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, runnerapi.ErrUnsupportedJob):
		return status.Error(codes.Unimplemented, err.Error())
	case errors.Is(err, runnerapi.ErrUnknownJob):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codes.Internal, err.Error())
}

func fromStatus(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.Unimplemented:
		return fmt.Errorf("%w: %s", runnerapi.ErrUnsupportedJob, st.Message())
	case codes.NotFound:
		return fmt.Errorf("%w: %s", runnerapi.ErrUnknownJob, st.Message())
	case codes.Canceled:
		return fmt.Errorf("%w: %s", context.Canceled, st.Message())
	}
	return fmt.Errorf("worker: %s: %s", st.Code(), st.Message())
}
