package workerplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// GRPCPlugin plugs a Runner into go-plugin. Impl is set on the worker side and
// nil on the engine side.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl runnerapi.Runner
}

// GRPCServer registers RunnerService backed by Impl. An agent job's Host is the
// engine's HostService, dialled over broker.
func (p *GRPCPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("workerplugin: GRPCServer needs an Impl")
	}
	robotav1.RegisterRunnerServiceServer(s, &grpcServer{impl: p.Impl, broker: broker, hosts: map[uint32]*grpc.ClientConn{}})
	return nil
}

// GRPCClient returns a Runner that calls RunnerService over c and serves the Hosts of
// its agent jobs on broker.
func (p *GRPCPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &GRPCClient{client: robotav1.NewRunnerServiceClient(c), broker: broker, hosts: newHostServer()}, nil
}

type grpcServer struct {
	robotav1.UnimplementedRunnerServiceServer
	impl   runnerapi.Runner
	broker *plugin.GRPCBroker

	mu    sync.Mutex
	hosts map[uint32]*grpc.ClientConn // the engine's HostService, by broker id
}

// hostConn returns the connection to the engine's HostService under broker id,
// dialling it the first time. One connection serves every agent job.
func (s *grpcServer) hostConn(id uint32) (*grpc.ClientConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if conn, ok := s.hosts[id]; ok {
		return conn, nil
	}
	if s.broker == nil {
		return nil, errors.New("no plugin broker")
	}
	conn, err := s.broker.DialWithOptions(id, grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)))
	if err != nil {
		return nil, err
	}
	s.hosts[id] = conn
	return conn, nil
}

// dropHostConn forgets and closes the connection under id: it never came up.
func (s *grpcServer) dropHostConn(id uint32) {
	s.mu.Lock()
	conn, ok := s.hosts[id]
	delete(s.hosts, id)
	s.mu.Unlock()
	if ok {
		_ = conn.Close()
	}
}

// Prepare connects to the engine's HostService under the request's broker id and waits
// until the connection is up (its TLS handshake done), then lets Impl prepare, if it
// can: the first agent job then pays neither.
func (s *grpcServer) Prepare(ctx context.Context, req *robotav1.PrepareRequest) (*robotav1.PrepareResponse, error) {
	warmMessages()
	if id := req.GetHostBrokerId(); id != 0 {
		conn, err := s.hostConn(id)
		if err == nil {
			if err = waitReady(ctx, conn); err != nil {
				s.dropHostConn(id)
			}
		}
		if err != nil {
			return nil, status.Errorf(codes.Unavailable, "%s: %v", errHostUnreachable, err)
		}
	}
	if p, ok := s.impl.(runnerapi.Preparer); ok {
		if err := p.Prepare(ctx); err != nil {
			return nil, toStatus(err)
		}
	}
	return &robotav1.PrepareResponse{}, nil
}

// waitReady connects conn (grpc connects lazily) and waits until it is ready. A
// connection that fails is an error, not retried here.
func waitReady(ctx context.Context, conn *grpc.ClientConn) error {
	conn.Connect()
	for {
		st := conn.GetState()
		switch st {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure, connectivity.Shutdown:
			return fmt.Errorf("connection %s", st)
		}
		if !conn.WaitForStateChange(ctx, st) {
			return fmt.Errorf("connection still %s: %w", st, ctx.Err())
		}
	}
}

func (s *grpcServer) Start(req *robotav1.StartRequest, stream grpc.ServerStreamingServer[robotav1.StartResponse]) error {
	job, err := jobFromProto(req)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	if job.Agent != nil && req.GetHostBrokerId() != 0 {
		conn, err := s.hostConn(req.GetHostBrokerId())
		if err != nil {
			return status.Errorf(codes.Unavailable, "%s: %v", errHostUnreachable, err)
		}
		job.Host = &hostClient{client: robotav1.NewHostServiceClient(conn), jobID: job.ID}
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

// GRPCClient is the engine-side Runner backed by a worker's RunnerService. It serves
// the Host of each agent job to the worker on the go-plugin broker for as long as the
// job runs.
type GRPCClient struct {
	client robotav1.RunnerServiceClient
	broker *plugin.GRPCBroker
	hosts  *hostServer
}

// errHostUnreachable starts the status message of a worker that could not dial the
// engine's HostService.
const errHostUnreachable = "cannot reach the engine's host service"

// Start implements Runner. An agent job needs job.Host.
func (c *GRPCClient) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	req, err := jobToProto(job)
	if err != nil {
		return err
	}
	if job.Agent != nil {
		if job.Host == nil || c.broker == nil || c.hosts == nil {
			return errors.New("workerplugin: an agent job needs a Host and a plugin broker to serve it on")
		}
		if err := c.hosts.add(job.ID, job.Host); err != nil {
			return err
		}
		defer c.hosts.remove(job.ID)
		req.HostBrokerId = c.hosts.serve(c.broker)
	}
	err = c.stream(ctx, req, emit)
	if errors.Is(err, errHostGone) {
		// The worker could not reach the service before it emitted anything (the broker
		// forgets an address nobody dials within its timeout): offer a fresh one, once.
		c.hosts.reset(req.HostBrokerId)
		req.HostBrokerId = c.hosts.serve(c.broker)
		err = c.stream(ctx, req, emit)
	}
	return err
}

// errHostGone is the stream's error when the worker could not dial the host service.
var errHostGone = errors.New(errHostUnreachable)

// stream runs one Start call and emits its events.
func (c *GRPCClient) stream(ctx context.Context, req *robotav1.StartRequest, emit func(runnerapi.Event) error) error {
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
			if hostUnreachable(err) {
				return fmt.Errorf("%w%s", errHostGone, strings.TrimPrefix(status.Convert(err).Message(), errHostUnreachable))
			}
			return fromStatus(err)
		}
		if err := emit(eventFromProto(resp.GetEvent())); err != nil {
			return err
		}
	}
}

// Prepare implements runnerapi.Preparer: it serves the Host service on the broker now
// (as the first agent job would) and has the worker connect to it and prepare its
// agent jobs' set-up, so the first job taken from a warm pool pays neither the
// connection's TLS handshake nor the worker's one-time costs. When the worker cannot
// reach the service, the next agent job offers a fresh one. A worker that predates
// Prepare is left unprepared, without an error.
func (c *GRPCClient) Prepare(ctx context.Context) error {
	warmMessages()
	req := &robotav1.PrepareRequest{}
	if c.broker != nil && c.hosts != nil {
		req.HostBrokerId = c.hosts.serve(c.broker)
	}
	_, err := c.client.Prepare(ctx, req)
	if err == nil {
		return nil
	}
	legacy := status.Code(err) == codes.Unimplemented
	if req.HostBrokerId != 0 && (legacy || hostUnreachable(err)) {
		// Nobody dialled the service: the broker would forget it, so the next job
		// offers a fresh one rather than wait out the broker's timeout.
		c.hosts.reset(req.HostBrokerId)
	}
	if legacy { // a worker older than Prepare: it works, unprepared
		return nil
	}
	return fmt.Errorf("prepare: %w", fromStatus(err))
}

// hostUnreachable reports whether err is the worker saying it could not reach the
// engine's HostService.
func hostUnreachable(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Unavailable && strings.HasPrefix(st.Message(), errHostUnreachable)
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
