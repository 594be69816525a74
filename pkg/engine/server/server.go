package server

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// Message size bounds of EngineService. A prompt (and any request) may be up to
// MaxRecvMessageBytes; responses, GetHistory pages included, stay under
// MaxSendMessageBytes.
const (
	MaxRecvMessageBytes = 8 << 20
	MaxSendMessageBytes = 16 << 20
	// InitialWindowBytes is the server's fixed HTTP/2 receive window, per stream and
	// per connection.
	InitialWindowBytes = MaxRecvMessageBytes
)

// ServerOptions are the grpc.Server options EngineService expects: explicit message
// size limits, keepalive pings that find dead clients (so their streams end), and the
// interceptors that explain unimplemented RPCs.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(UnaryInterceptor),
		grpc.ChainStreamInterceptor(StreamInterceptor),
		grpc.MaxRecvMsgSize(MaxRecvMessageBytes),
		grpc.MaxSendMsgSize(MaxSendMessageBytes),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 30 * time.Second, Timeout: 20 * time.Second}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		// Streams are served by a few long-lived goroutines whose stacks have grown
		// already (grpc-go starts a goroutine per stream when they are all busy, as a
		// long Watch keeps one): a new goroutine per RPC grew its stack anew each time.
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
		// A fixed receive window, as large as the largest request, instead of grpc-go's
		// BDP estimate: that sends a PING for the first data of every RPC, which for a
		// Submit goes out alone while the prompt runs (a unary answer carries it along),
		// so each turn cost two more writes, two more reads and four more goroutine
		// wake-ups, competing with the session for the CPU. Requests are small; a
		// bandwidth probe buys nothing here.
		grpc.InitialWindowSize(InitialWindowBytes),
		grpc.InitialConnWindowSize(InitialWindowBytes),
	}
}

// Server implements robotav1.EngineServiceServer over a manager.Manager.
type Server struct {
	robotav1.UnimplementedEngineServiceServer
	mgr *manager.Manager
}

// New returns an EngineService server for the sessions of mgr.
func New(mgr *manager.Manager) *Server { return &Server{mgr: mgr} }

// Register adds the service to g.
func (s *Server) Register(g *grpc.Server) { robotav1.RegisterEngineServiceServer(g, s) }

const servicePrefix = "/" + "robota.v1.EngineService" + "/"

// explainUnimplemented rewrites the generated "method X not implemented" into a
// message that says the RPC is planned, so an operator is not left guessing.
func explainUnimplemented(fullMethod string, err error) error {
	if status.Code(err) != codes.Unimplemented || !strings.HasPrefix(fullMethod, servicePrefix) {
		return err
	}
	method := strings.TrimPrefix(fullMethod, servicePrefix)
	return status.Error(codes.Unimplemented, fmt.Sprintf(
		"robota.v1.EngineService/%s is not implemented in this engine build yet; it arrives with a later version", method))
}

// UnaryInterceptor applies explainUnimplemented to unary RPCs.
func UnaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	return resp, explainUnimplemented(info.FullMethod, err)
}

// StreamInterceptor applies explainUnimplemented to streaming RPCs.
func StreamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return explainUnimplemented(info.FullMethod, handler(srv, ss))
}
