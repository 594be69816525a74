package server

import (
	"context"
	"errors"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// Session lifecycle and state RPCs.

const (
	defaultPageSize = 50
	maxPageSize     = 1000
)

// live returns the live session id: NOT_FOUND when no session has the id,
// FAILED_PRECONDITION when it is stored but not loaded.
func (s *Server) live(ctx context.Context, id string) (*manager.Live, error) {
	if id == "" {
		return nil, invalidArg("session_id", "required")
	}
	l, err := s.mgr.Get(id)
	if err == nil {
		return l, nil
	}
	if _, ierr := s.mgr.Info(ctx, id); ierr == nil {
		return nil, status.Errorf(codes.FailedPrecondition,
			"%v: session %s is stored but not live; resume it with CreateSession(resume_session_id)", manager.ErrNotLive, id)
	}
	return nil, toStatus(err)
}

func (s *Server) CreateSession(ctx context.Context, req *robotav1.CreateSessionRequest) (*robotav1.CreateSessionResponse, error) {
	mode, err := modeFromProto(req.GetPermissionMode())
	if err != nil {
		return nil, err
	}
	if req.GetMaxTurns() < 0 {
		return nil, invalidArg("max_turns", "must not be negative")
	}
	l, err := s.mgr.Create(ctx, manager.CreateOptions{
		Cwd: req.GetCwd(), Provider: req.GetProvider(), Model: req.GetModel(), Script: req.GetScript(),
		PermissionMode: mode, Allow: req.GetAllowedTools(), Deny: req.GetDisallowedTools(),
		AppendSystemPrompt: req.GetAppendSystemPrompt(), MaxTurns: int(req.GetMaxTurns()),
		Resume: req.GetResumeSessionId(), Fork: req.GetForkSession(), Continue: req.GetContinueLatest(),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	in, err := s.mgr.Info(ctx, l.ID())
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.CreateSessionResponse{Session: infoToProto(in)}, nil
}

func (s *Server) ListSessions(ctx context.Context, req *robotav1.ListSessionsRequest) (*robotav1.ListSessionsResponse, error) {
	size := int(req.GetPageSize())
	switch {
	case size < 0:
		return nil, invalidArg("page_size", "must not be negative")
	case size == 0:
		size = defaultPageSize
	case size > maxPageSize:
		size = maxPageSize
	}
	start := 0
	if t := req.GetPageToken(); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			return nil, invalidArg("page_token", "%q is not a token this engine returned", t)
		}
		start = n
	}
	infos, err := s.mgr.List(ctx, req.GetCwd())
	if err != nil && infos == nil {
		return nil, toStatus(err)
	}
	resp := &robotav1.ListSessionsResponse{}
	for i := start; i < len(infos) && i < start+size; i++ {
		resp.Sessions = append(resp.Sessions, infoToProto(infos[i]))
	}
	if start+size < len(infos) {
		resp.NextPageToken = strconv.Itoa(start + size)
	}
	return resp, nil
}

func (s *Server) GetSession(ctx context.Context, req *robotav1.GetSessionRequest) (*robotav1.GetSessionResponse, error) {
	if req.GetSessionId() == "" {
		return nil, invalidArg("session_id", "required")
	}
	in, err := s.mgr.Info(ctx, req.GetSessionId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.GetSessionResponse{Session: infoToProto(in)}, nil
}

func (s *Server) DeleteSession(ctx context.Context, req *robotav1.DeleteSessionRequest) (*robotav1.DeleteSessionResponse, error) {
	if req.GetSessionId() == "" {
		return nil, invalidArg("session_id", "required")
	}
	if err := s.mgr.Delete(ctx, req.GetSessionId()); err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.DeleteSessionResponse{}, nil
}

func (s *Server) CloseSession(ctx context.Context, req *robotav1.CloseSessionRequest) (*robotav1.CloseSessionResponse, error) {
	if req.GetSessionId() == "" {
		return nil, invalidArg("session_id", "required")
	}
	if err := s.mgr.Close(ctx, req.GetSessionId(), req.GetReason()); err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.CloseSessionResponse{}, nil
}

func (s *Server) GetContextState(ctx context.Context, req *robotav1.GetContextStateRequest) (*robotav1.GetContextStateResponse, error) {
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	return &robotav1.GetContextStateResponse{State: contextToProto(l.Session().ContextState())}, nil
}

// GetHistory pages the timeline; a page stops early rather than pass the message bound.
func (s *Server) GetHistory(ctx context.Context, req *robotav1.GetHistoryRequest) (*robotav1.GetHistoryResponse, error) {
	if req.GetOffset() < 0 || req.GetLimit() < 0 {
		return nil, invalidArg("offset", "offset and limit must not be negative")
	}
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	entries := l.History()
	resp := &robotav1.GetHistoryResponse{Total: int32(len(entries))}
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = len(entries)
	}
	i, size := int(req.GetOffset()), 64
	for ; i < len(entries) && len(resp.Entries) < limit; i++ {
		e, err := historyToProto(entries[i])
		if err != nil {
			return nil, status.Errorf(codes.Internal, "history entry %d: %v", i, err)
		}
		n := proto.Size(e) + 8
		if size+n > MaxSendMessageBytes-1024 && len(resp.Entries) > 0 {
			break
		}
		size += n
		resp.Entries = append(resp.Entries, e)
	}
	resp.NextOffset = int32(min(i, len(entries)))
	return resp, nil
}

// Compact compacts now and returns the compaction event the session published.
func (s *Server) Compact(ctx context.Context, req *robotav1.CompactRequest) (*robotav1.CompactResponse, error) {
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	sub := l.Subscribe()
	defer sub.Close()
	if err := l.Compact(ctx, req.GetInstructions()); err != nil {
		return nil, toStatus(err)
	}
	// The event was published during Compact: it is queued already.
	done, cancel := context.WithCancel(ctx)
	cancel()
	for {
		ev, err := sub.Next(done)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil, status.Error(codes.Internal, "compaction finished without a compaction event")
			}
			return nil, toStatus(err)
		}
		if ev.Type == interactive.EventCompaction && ev.Compaction != nil {
			return &robotav1.CompactResponse{Compact: compactToProto(ev.Compaction)}, nil
		}
	}
}
