package server

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// Server implements robotav1.EngineServiceServer.
type Server struct {
	robotav1.UnimplementedEngineServiceServer
}

// New returns an EngineService server.
func New() *Server { return &Server{} }

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
		"robota.v1.EngineService/%s is not implemented in this engine build yet; it arrives with the engine API work (sessions over gRPC)", method))
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
