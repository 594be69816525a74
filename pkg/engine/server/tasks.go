package server

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// defaultLogPage is ReadBackgroundTaskLog's page size when the request gives none.
const defaultLogPage = 64 << 10

// taskManager returns the background tasks of a live session.
func (s *Server) taskManager(ctx context.Context, sessionID, taskID string, needTask bool) (*tasks.BackgroundTaskManager, error) {
	if needTask && taskID == "" {
		return nil, invalidArg("task_id", "required")
	}
	l, err := s.live(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	m := l.Tasks()
	if m == nil {
		return nil, status.Errorf(codes.FailedPrecondition,
			"session %s has no background tasks: the engine runs no workers (start it with a robota-worker)", sessionID)
	}
	return m, nil
}

func taskToProto(t tasks.Task) *robotav1.BackgroundTaskState {
	return taskStateToProto(interactive.TaskSnapshot(t))
}

func (s *Server) ListBackgroundTasks(ctx context.Context, req *robotav1.ListBackgroundTasksRequest) (*robotav1.ListBackgroundTasksResponse, error) {
	m, err := s.taskManager(ctx, req.GetSessionId(), "", false)
	if err != nil {
		return nil, err
	}
	var f tasks.Filter
	for _, st := range req.GetStatuses() {
		st, ok := statusFromProto(st)
		if !ok {
			return nil, invalidArg("statuses", "unknown status %v", st)
		}
		f.States = append(f.States, tasks.State(st))
	}
	resp := &robotav1.ListBackgroundTasksResponse{}
	for _, t := range m.List(f) {
		resp.Tasks = append(resp.Tasks, taskToProto(t))
	}
	return resp, nil
}

func (s *Server) GetBackgroundTask(ctx context.Context, req *robotav1.GetBackgroundTaskRequest) (*robotav1.GetBackgroundTaskResponse, error) {
	m, err := s.taskManager(ctx, req.GetSessionId(), req.GetTaskId(), true)
	if err != nil {
		return nil, err
	}
	t, err := m.Get(req.GetTaskId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.GetBackgroundTaskResponse{Task: taskToProto(t)}, nil
}

func (s *Server) CancelBackgroundTask(ctx context.Context, req *robotav1.CancelBackgroundTaskRequest) (*robotav1.CancelBackgroundTaskResponse, error) {
	m, err := s.taskManager(ctx, req.GetSessionId(), req.GetTaskId(), true)
	if err != nil {
		return nil, err
	}
	reason := req.GetReason()
	if reason == "" {
		reason = "cancelled by a client"
	}
	t, err := m.Cancel(ctx, req.GetTaskId(), reason)
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.CancelBackgroundTaskResponse{Task: taskToProto(t)}, nil
}

func (s *Server) CloseBackgroundTask(ctx context.Context, req *robotav1.CloseBackgroundTaskRequest) (*robotav1.CloseBackgroundTaskResponse, error) {
	m, err := s.taskManager(ctx, req.GetSessionId(), req.GetTaskId(), true)
	if err != nil {
		return nil, err
	}
	if _, err := m.Close(req.GetTaskId()); err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.CloseBackgroundTaskResponse{}, nil
}

func (s *Server) SendBackgroundTask(ctx context.Context, req *robotav1.SendBackgroundTaskRequest) (*robotav1.SendBackgroundTaskResponse, error) {
	m, err := s.taskManager(ctx, req.GetSessionId(), req.GetTaskId(), true)
	if err != nil {
		return nil, err
	}
	if err := m.Send(ctx, req.GetTaskId(), req.GetInput()); err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.SendBackgroundTaskResponse{}, nil
}

func (s *Server) ReadBackgroundTaskLog(ctx context.Context, req *robotav1.ReadBackgroundTaskLogRequest) (*robotav1.ReadBackgroundTaskLogResponse, error) {
	if req.GetOffset() < 0 || req.GetLimit() < 0 {
		return nil, invalidArg("offset", "offset and limit must not be negative")
	}
	m, err := s.taskManager(ctx, req.GetSessionId(), req.GetTaskId(), true)
	if err != nil {
		return nil, err
	}
	limit := req.GetLimit()
	if limit == 0 || limit > MaxSendMessageBytes/2 {
		limit = min(max(limit, defaultLogPage), MaxSendMessageBytes/2)
	}
	page, err := m.ReadLog(ctx, req.GetTaskId(), req.GetOffset(), limit)
	if err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.ReadBackgroundTaskLogResponse{Data: page.Data, NextOffset: page.NextOffset, Eof: page.EOF}, nil
}
