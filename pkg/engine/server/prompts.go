package server

import (
	"context"
	"errors"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// Prompt, event stream and permission RPCs.

// Submit subscribes before submitting, so no event of the prompt is missed, then
// streams the prompt's events until its end event. The client leaving ends the
// stream, not the prompt.
//
// A turn's events go out in as few messages as their timing allows (every message
// costs a write, a read and a wake-up at each end): the events taken at one wake-up
// travel together, the acceptance waits up to holdBack for the first events, and a
// context update waits up to holdBack for the event after it. A message carries only
// its latest context update, and none when it ends with the end event (which carries
// the same state).
func (s *Server) Submit(req *robotav1.SubmitRequest, stream robotav1.EngineService_SubmitServer) error {
	ctx := stream.Context()
	l, err := s.live(ctx, req.GetSessionId())
	if err != nil {
		return err
	}
	// Message events are never sent (GetHistory has them); a context update waits for
	// the event after it: neither wakes this stream.
	sub := l.SubscribeWith(submitSubscription)
	defer sub.Close()
	acc, err := l.SubmitWith(req.GetPrompt(), interactive.SubmitInput{DisplayInput: req.GetDisplayPrompt(), RawInput: req.GetRawPrompt()})
	if errors.Is(err, interactive.ErrEmptyPrompt) {
		return invalidArg("prompt", "%v", err)
	}
	if err != nil {
		return toStatus(err)
	}
	out := submitBatch{stream: stream, live: l, msg: &robotav1.SubmitResponse{
		Accepted: &robotav1.SubmitAccepted{PromptId: acc.PromptID, Queued: acc.Queued}}}
	if acc.Queued { // its first event comes when the running prompt ends: say so now
		if err := out.flush(false); err != nil {
			return err
		}
	}
	var taken [8]interactive.Event // a quick turn's events, without a heap allocation
	batch := taken[:0]
	// What is held (the acceptance, a context update) goes out by this time at the latest.
	until := time.Now().Add(holdBack)
	for {
		// Everything queued is taken at once; what is held waits a little for company.
		if out.pending() || out.holding {
			batch, err = sub.NextBatchWithin(ctx, time.Until(until), batch[:0])
		} else {
			batch, err = sub.NextBatch(ctx, batch[:0])
		}
		if err != nil {
			return toStatus(err)
		}
		if len(batch) == 0 { // nothing came in time: what is held goes alone
			if err := out.flush(false); err != nil {
				return err
			}
			continue
		}
		for _, ev := range batch {
			if ev.PromptID != acc.PromptID {
				continue
			}
			if ev.Type == interactive.EventContextUpdate {
				if !out.holding && !out.pending() {
					until = time.Now().Add(holdBack)
				}
				out.hold(ev)
				continue
			}
			if isEnd(ev) {
				out.dropHeld() // the end event's result carries the same state
			}
			if err := out.add(ev); err != nil {
				return err
			}
			if isEnd(ev) {
				return out.flush(false)
			}
		}
		clear(batch) // the events' texts are not kept until the next batch
		// What was gathered goes now; a context update after it waits for company.
		if out.hasEvents() {
			if err := out.flush(true); err != nil {
				return err
			}
		}
	}
}

// submitSubscription is how Submit takes a prompt's events (fixed: a subscription
// keeps its lists).
var submitSubscription = interactive.SubscribeOptions{Skip: []interactive.EventType{interactive.EventMessage},
	Lazy: []interactive.EventType{interactive.EventContextUpdate}, LazyDelay: holdBack}

// holdBack bounds how long Submit keeps the acceptance or a context update to send it
// with the event after it.
const holdBack = 10 * time.Millisecond

// submitBatch gathers the events of one SubmitResponse.
type submitBatch struct {
	stream robotav1.EngineService_SubmitServer
	live   *manager.Live
	msg    *robotav1.SubmitResponse
	size   int // bytes of the events gathered
	// ctx is the prompt's latest context update: the state its end event carries (the
	// session's history does not change after it), without estimating it again.
	ctx *contextwin.WindowState
	// held is the message's latest context update, kept out of it until it is sent
	// (holding): it belongs before the events gathered after heldAt, and is left out
	// when the message ends with the prompt's end event, whose result carries the same
	// state.
	held    interactive.Event
	heldAt  int
	holding bool
}

// pending reports whether something waits to be sent.
func (b *submitBatch) pending() bool {
	return b.msg != nil && (b.msg.Accepted != nil || len(b.msg.Events) > 0)
}

// hasEvents reports whether events wait to be sent.
func (b *submitBatch) hasEvents() bool { return b.msg != nil && len(b.msg.Events) > 0 }

// hold keeps the context update ev in place of the one held: one message carries only
// its latest context state (its events arrive together: an earlier state would be
// replaced before anyone could see it).
func (b *submitBatch) hold(ev interactive.Event) {
	b.held, b.heldAt, b.holding = ev, b.gathered(), true
	b.ctx = ev.Context
}

// dropHeld leaves the held context update out.
func (b *submitBatch) dropHeld() { b.holding = false }

func (b *submitBatch) gathered() int {
	if b.msg == nil {
		return 0
	}
	return len(b.msg.Events)
}

// placeHeld puts the held context update where it came, among the gathered events.
func (b *submitBatch) placeHeld() {
	b.holding = false
	pe := eventToProto(b.live.ID(), b.held, nil)
	if pe == nil {
		return
	}
	if b.msg == nil {
		b.msg = &robotav1.SubmitResponse{}
	}
	b.msg.Events = slices.Insert(b.msg.Events, b.heldAt, pe)
	b.size += proto.Size(pe)
}

// add converts ev and gathers it (a long delta as several events); a message that
// would pass MaxEventTextBytes is sent first, so that every message stays under
// gRPC's default receive limit.
func (b *submitBatch) add(ev interactive.Event) error {
	pe := eventToProto(b.live.ID(), ev, b.contextState())
	if pe == nil {
		return nil
	}
	parts := []*robotav1.SessionEvent{pe}
	if longText(pe) {
		parts = splitText(pe)
	}
	for _, p := range parts {
		n := proto.Size(p)
		if b.size > 0 && b.size+n > MaxEventTextBytes {
			if err := b.flush(true); err != nil {
				return err
			}
		}
		if b.msg == nil {
			b.msg = &robotav1.SubmitResponse{}
		}
		b.msg.Events = append(b.msg.Events, p)
		b.size += n
	}
	return nil
}

// contextState is what an end event reports as the prompt's context: its latest
// context update, or the session's state when none came.
func (b *submitBatch) contextState() func() contextwin.WindowState {
	if b.ctx == nil {
		return b.live.Session().ContextState
	}
	return func() contextwin.WindowState { return *b.ctx }
}

// flush sends what was gathered, if anything, with the held context update in its
// place. With keepLast, an update that came after every gathered event stays held, to
// wait for the event after it (or be left out before the end event).
func (b *submitBatch) flush(keepLast bool) error {
	if b.holding && (!keepLast || b.heldAt < b.gathered()) {
		b.placeHeld()
	}
	if !b.pending() {
		return nil
	}
	err := b.stream.Send(b.msg)
	b.msg, b.size, b.heldAt = nil, 0, 0
	return err
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
	// The response headers go out once the subscription exists: a client that waits
	// for them (Header) misses no event published after that, even before the first.
	if err := stream.SendHeader(nil); err != nil {
		return err
	}
	if !req.GetBatched() { // a client written before batching: one event per message
		return s.pump(ctx, l, sub, func(e *robotav1.SessionEvent) error {
			return stream.Send(&robotav1.WatchResponse{Event: e}) //nolint:staticcheck // the deprecated form, kept for old clients
		}, nil)
	}
	// The events taken at one wake-up travel together, as Submit's do; a message stays
	// under MaxEventTextBytes of event text.
	// A sent message is never reused: grpc may read it after Send returns.
	msg := &robotav1.WatchResponse{}
	size := 0
	flush := func() error {
		if len(msg.Events) == 0 {
			return nil
		}
		err := stream.Send(msg)
		msg, size = &robotav1.WatchResponse{}, 0
		return err
	}
	return s.pump(ctx, l, sub, func(e *robotav1.SessionEvent) error {
		n := proto.Size(e)
		if size > 0 && size+n > MaxEventTextBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		msg.Events = append(msg.Events, e)
		size += n
		return nil
	}, flush)
}

// pump sends the subscription's events through send, one by one, and calls
// endOfBatch (when set) after the events taken at one wake-up.
func (s *Server) pump(ctx context.Context, l *manager.Live, sub *interactive.Subscription, send func(*robotav1.SessionEvent) error, endOfBatch func() error) error {
	var batch []interactive.Event
	for {
		var err error
		batch, err = sub.NextBatch(ctx, batch[:0])
		if errors.Is(err, interactive.ErrSessionClosed) {
			if endOfBatch != nil {
				return endOfBatch()
			}
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
		if endOfBatch != nil {
			if err := endOfBatch(); err != nil {
				return err
			}
		}
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
	respond := l.RespondPermission
	if req.GetAutomatic() {
		respond = l.RespondPermissionAutomatic // no person answered: a denial must not say "by user"
	}
	if err := respond(req.GetRequestId(), a, req.GetMessage()); err != nil {
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
