package server

import (
	"context"
	"encoding/json"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// ExecuteCommand runs a slash command in a live session (InteractiveSession.ExecuteCommand).
// A command that did not do what was asked answers success=false with its message; an
// unknown name is NOT_FOUND.
func (s *Server) ExecuteCommand(ctx context.Context, req *robotav1.ExecuteCommandRequest) (*robotav1.ExecuteCommandResponse, error) {
	if req.GetName() == "" {
		return nil, invalidArg("name", "is empty")
	}
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	res, err := l.ExecuteCommand(ctx, req.GetName(), req.GetArgs())
	if err != nil {
		return nil, toStatus(err)
	}
	b, err := json.Marshal(res.Data)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "command data: %v", err)
	}
	data, err := jsonStruct(b)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "command data: %v", err)
	}
	return &robotav1.ExecuteCommandResponse{Success: res.Success, Message: res.Message, Data: data}, nil
}

// ListCommands lists the commands a live session offers, sorted by name.
func (s *Server) ListCommands(ctx context.Context, req *robotav1.ListCommandsRequest) (*robotav1.ListCommandsResponse, error) {
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	var out []*robotav1.CommandInfo
	for _, c := range l.ListCommands("") {
		out = append(out, &robotav1.CommandInfo{Name: c.QualifiedName(), Description: c.Description, Source: c.Source,
			ArgumentHint: c.ArgumentHint, ModelInvocable: c.ModelInvocable, UserInvocable: c.UserInvocable, Safety: string(c.Safety),
			Subcommands: c.Subcommands})
	}
	return &robotav1.ListCommandsResponse{Commands: out}, nil
}
