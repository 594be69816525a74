package server

import (
	"context"
	"errors"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// Prompt, event stream and permission RPCs.

// Submit subscribes before submitting, so no event of the prompt is missed, then
// streams the prompt's events until its end event. The client leaving ends the
// stream, not the prompt.
func (s *Server) Submit(req *robotav1.SubmitRequest, stream robotav1.EngineService_SubmitServer) error {
	ctx := stream.Context()
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return err
	}
	sub := l.Subscribe()
	defer sub.Close()
	acc, err := l.Submit(req.GetPrompt())
	if errors.Is(err, interactive.ErrEmptyPrompt) {
		return invalidArg("prompt", "%v", err)
	}
	if err != nil {
		return toStatus(err)
	}
	if err := stream.Send(&robotav1.SubmitResponse{Response: &robotav1.SubmitResponse_Accepted{
		Accepted: &robotav1.SubmitAccepted{PromptId: acc.PromptID, Queued: acc.Queued}}}); err != nil {
		return err
	}
	send := func(pe *robotav1.SessionEvent) error {
		return stream.Send(&robotav1.SubmitResponse{Response: &robotav1.SubmitResponse_Event{Event: pe}})
	}
	var batch []interactive.Event
	for {
		// Everything queued is taken at once and sent back to back: one wake-up per
		// batch, and the transport writes the batch's frames together.
		if batch, err = sub.NextBatch(ctx, batch[:0]); err != nil {
			return toStatus(err)
		}
		for _, ev := range batch {
			if ev.PromptID != acc.PromptID {
				continue
			}
			if err := sendEvent(l, ev, send); err != nil {
				return err
			}
			if isEnd(ev) {
				return nil
			}
		}
		clear(batch) // the events' texts are not kept until the next batch
	}
}

// Watch streams every event of the session until the client leaves or the session
// closes (the stream then ends OK).
func (s *Server) Watch(req *robotav1.WatchRequest, stream robotav1.EngineService_WatchServer) error {
	ctx := stream.Context()
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return err
	}
	var sub *interactive.Subscription
	if after := req.GetAfterSequence(); after > 0 {
		if sub, err = l.SubscribeAfter(after); err != nil {
			return toStatus(err)
		}
	} else {
		sub = l.Subscribe()
	}
	defer sub.Close()
	return s.pump(ctx, l, sub, func(e *robotav1.SessionEvent) error {
		return stream.Send(&robotav1.WatchResponse{Event: e})
	})
}

func (s *Server) pump(ctx context.Context, l *manager.Live, sub *interactive.Subscription, send func(*robotav1.SessionEvent) error) error {
	var batch []interactive.Event
	for {
		var err error
		batch, err = sub.NextBatch(ctx, batch[:0])
		if errors.Is(err, interactive.ErrSessionClosed) {
			return nil
		}
		if err != nil {
			return toStatus(err)
		}
		for _, ev := range batch {
			if err := sendEvent(l, ev, send); err != nil {
				return err
			}
		}
		clear(batch)
	}
}

// sendEvent converts ev and sends it, a long delta as several messages.
func sendEvent(l *manager.Live, ev interactive.Event, send func(*robotav1.SessionEvent) error) error {
	pe := eventToProto(l.ID(), ev, l.Session().ContextState)
	if pe == nil {
		return nil
	}
	if !longText(pe) {
		return send(pe)
	}
	for _, part := range splitText(pe) {
		if err := send(part); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) RespondPermission(ctx context.Context, req *robotav1.RespondPermissionRequest) (*robotav1.RespondPermissionResponse, error) {
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	if req.GetRequestId() == "" {
		return nil, invalidArg("request_id", "required")
	}
	a, err := approvalFromProto(req.GetAnswer())
	if err != nil {
		return nil, err
	}
	if err := l.RespondPermission(req.GetRequestId(), a, req.GetMessage()); err != nil {
		return nil, toStatus(err)
	}
	return &robotav1.RespondPermissionResponse{}, nil
}

func (s *Server) Abort(ctx context.Context, req *robotav1.AbortRequest) (*robotav1.AbortResponse, error) {
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	running := l.IsRunning()
	l.Abort()
	return &robotav1.AbortResponse{WasRunning: running}, nil
}

func (s *Server) CancelQueue(ctx context.Context, req *robotav1.CancelQueueRequest) (*robotav1.CancelQueueResponse, error) {
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return nil, err
	}
	return &robotav1.CancelQueueResponse{HadQueued: l.CancelQueue()}, nil
}
