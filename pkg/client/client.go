package client

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// Client calls one engine. It is safe for concurrent use.
type Client struct {
	rpc  robotav1.EngineServiceClient
	conn *grpc.ClientConn // nil when built by New over a caller's connection
}

// New returns a Client over an existing connection (the caller closes it); Dial is the
// usual way in.
func New(conn grpc.ClientConnInterface) *Client {
	return &Client{rpc: robotav1.NewEngineServiceClient(conn)}
}

// Close closes the connection Dial opened.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

// CreateSession starts a session, or resumes, continues or forks a stored one.
func (c *Client) CreateSession(ctx context.Context, o SessionOptions) (SessionInfo, error) {
	req, err := createRequest(o)
	if err != nil {
		return SessionInfo{}, err
	}
	resp, err := c.rpc.CreateSession(ctx, req)
	if err != nil {
		return SessionInfo{}, rpcErr("create session", err)
	}
	return infoFromProto(resp.GetSession()), nil
}

// GetSession returns one session's summary.
func (c *Client) GetSession(ctx context.Context, id string) (SessionInfo, error) {
	resp, err := c.rpc.GetSession(ctx, &robotav1.GetSessionRequest{SessionId: id})
	if err != nil {
		return SessionInfo{}, rpcErr("get session "+id, err)
	}
	return infoFromProto(resp.GetSession()), nil
}

// ListSessions returns one page of sessions (of cwd, or of every project when empty),
// newest first, and the token of the next page ("" at the end).
func (c *Client) ListSessions(ctx context.Context, cwd string, pageSize int, pageToken string) ([]SessionInfo, string, error) {
	resp, err := c.rpc.ListSessions(ctx, &robotav1.ListSessionsRequest{Cwd: cwd, PageSize: int32(pageSize), PageToken: pageToken})
	if err != nil {
		return nil, "", rpcErr("list sessions", err)
	}
	out := make([]SessionInfo, 0, len(resp.GetSessions()))
	for _, s := range resp.GetSessions() {
		out = append(out, infoFromProto(s))
	}
	return out, resp.GetNextPageToken(), nil
}

// CloseSession persists a live session, fires its SessionEnd hooks with reason and
// frees it in the engine.
func (c *Client) CloseSession(ctx context.Context, id, reason string) error {
	_, err := c.rpc.CloseSession(ctx, &robotav1.CloseSessionRequest{SessionId: id, Reason: reason})
	return rpcErr("close session "+id, err)
}

// DeleteSession removes a session's record and logs (a running one is aborted first).
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	_, err := c.rpc.DeleteSession(ctx, &robotav1.DeleteSessionRequest{SessionId: id})
	return rpcErr("delete session "+id, err)
}

// RespondPermission answers a permission request for a person; message goes to the
// model with a denial, after "denied by user".
func (c *Client) RespondPermission(ctx context.Context, sessionID, requestID string, a Answer, message string) error {
	return c.respondPermission(ctx, sessionID, requestID, a, message, false)
}

// RespondPermissionAutomatic answers a permission request without a person having been
// asked (a headless client, a fixed policy): a denial reaches the model as the engine's
// own headless denial, "approval required and no one can be asked (reason)", with
// message after it, never as the user's.
func (c *Client) RespondPermissionAutomatic(ctx context.Context, sessionID, requestID string, a Answer, message string) error {
	return c.respondPermission(ctx, sessionID, requestID, a, message, true)
}

func (c *Client) respondPermission(ctx context.Context, sessionID, requestID string, a Answer, message string, automatic bool) error {
	pa, ok := answerToProto(a)
	if !ok {
		return fmt.Errorf("%w: permission answer %d", ErrInvalidOption, a)
	}
	_, err := c.rpc.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: sessionID, RequestId: requestID,
		Answer: pa, Message: message, Automatic: automatic})
	return rpcErr("respond to permission request "+requestID, err)
}

// Abort stops the running prompt and drops the queued one; wasRunning tells whether a
// prompt ran. The prompt's stream still ends with its interrupted event.
func (c *Client) Abort(ctx context.Context, sessionID string) (wasRunning bool, err error) {
	resp, err := c.rpc.Abort(ctx, &robotav1.AbortRequest{SessionId: sessionID})
	if err != nil {
		return false, rpcErr("abort session "+sessionID, err)
	}
	return resp.GetWasRunning(), nil
}

// CancelQueue drops the queued prompt, if any.
func (c *Client) CancelQueue(ctx context.Context, sessionID string) (hadQueued bool, err error) {
	resp, err := c.rpc.CancelQueue(ctx, &robotav1.CancelQueueRequest{SessionId: sessionID})
	if err != nil {
		return false, rpcErr("cancel queue of session "+sessionID, err)
	}
	return resp.GetHadQueued(), nil
}

// ContextState returns a session's context window usage.
func (c *Client) ContextState(ctx context.Context, sessionID string) (ContextState, error) {
	resp, err := c.rpc.GetContextState(ctx, &robotav1.GetContextStateRequest{SessionId: sessionID})
	if err != nil {
		return ContextState{}, rpcErr("context state of session "+sessionID, err)
	}
	if st := contextFromProto(resp.GetState()); st != nil {
		return *st, nil
	}
	return ContextState{}, nil
}

// History returns the entries of a live session's history from offset (limit 0: as many
// as fit in one message).
func (c *Client) History(ctx context.Context, sessionID string, offset, limit int) (HistoryPage, error) {
	resp, err := c.rpc.GetHistory(ctx, &robotav1.GetHistoryRequest{SessionId: sessionID, Offset: int32(offset), Limit: int32(limit)})
	if err != nil {
		return HistoryPage{}, rpcErr("history of session "+sessionID, err)
	}
	page := HistoryPage{Total: int(resp.GetTotal()), Next: int(resp.GetNextOffset())}
	for _, e := range resp.GetEntries() {
		page.Entries = append(page.Entries, historyFromProto(e))
	}
	return page, nil
}

// Prompt is an accepted prompt and the stream of its events.
type Prompt struct {
	// ID is the prompt id every event of it carries.
	ID string
	// Queued is true when another prompt was running: this one runs when it ends.
	Queued bool
	recv   func() (*robotav1.SessionEvent, error)
	ended  bool
}

// Submit sends a prompt and returns when the engine accepted it. Cancelling ctx ends
// the stream, not the prompt (it belongs to the session: use Abort).
func (c *Client) Submit(ctx context.Context, sessionID, prompt string) (*Prompt, error) {
	return c.SubmitWith(ctx, sessionID, prompt, SubmitInput{})
}

// SubmitInput is what the user typed when the prompt was built from it (the spec's
// displayInput and rawInput).
type SubmitInput struct {
	// DisplayInput is shown instead of the prompt (the user message's metadata
	// "displayInput"); empty: the prompt is shown.
	DisplayInput string
	// RawInput is the prompt hooks see (UserPromptSubmit's prompt); empty: the prompt.
	RawInput string
}

// SubmitWith is Submit of a prompt built from what the user typed: in says what to
// show for it and what its hooks see.
func (c *Client) SubmitWith(ctx context.Context, sessionID, prompt string, in SubmitInput) (*Prompt, error) {
	stream, err := c.rpc.Submit(ctx, &robotav1.SubmitRequest{SessionId: sessionID, Prompt: prompt,
		DisplayPrompt: in.DisplayInput, RawPrompt: in.RawInput})
	if err != nil {
		return nil, rpcErr("submit to session "+sessionID, err)
	}
	first, err := stream.Recv()
	if err != nil {
		return nil, rpcErr("submit to session "+sessionID, err)
	}
	acc := first.GetAccepted()
	if acc == nil {
		return nil, fmt.Errorf("%w: submit to session %s: the first message carries no SubmitAccepted", ErrProtocol, sessionID)
	}
	p := &Prompt{ID: acc.GetPromptId(), Queued: acc.GetQueued()}
	// The first message may carry the prompt's first events with the acceptance.
	p.recv = eventsOf(stream.Recv, first.GetEvents())
	return p, nil
}

// eventBatch is the one shape of Submit's and Watch's messages: the events that were
// ready together, in sequence order.
type eventBatch interface {
	GetEvents() []*robotav1.SessionEvent
}

// eventsOf hands out the events of a stream of batches one by one, starting with
// pending (events already received).
func eventsOf[M eventBatch](recv func() (M, error), pending []*robotav1.SessionEvent) func() (*robotav1.SessionEvent, error) {
	return func() (*robotav1.SessionEvent, error) {
		for len(pending) == 0 {
			m, err := recv()
			if err != nil {
				return nil, err
			}
			pending = m.GetEvents()
		}
		e := pending[0]
		pending[0], pending = nil, pending[1:]
		return e, nil
	}
}

// Next returns the prompt's next event; io.EOF after its end event. A stream that
// ends before the end event is an error (the engine cut this client off, or went away).
func (p *Prompt) Next() (Event, error) {
	if p.ended {
		return Event{}, io.EOF
	}
	m, err := p.recv()
	if errors.Is(err, io.EOF) {
		return Event{}, fmt.Errorf("%w: prompt %s: the stream ended before the prompt did", ErrProtocol, p.ID)
	}
	if err != nil {
		return Event{}, rpcErr("events of prompt "+p.ID, err)
	}
	e, err := eventFromProto(m)
	if err != nil {
		return Event{}, err
	}
	p.ended = e.IsEnd()
	return e, nil
}

// Watch is a session's event stream.
type Watch struct {
	recv func() (*robotav1.SessionEvent, error)
}

// Watch streams a session's events after the sequence number after (0: new events
// only) until ctx ends or the session closes (then io.EOF). It returns once the engine
// has subscribed (its response headers came), so every event published after it
// returns is delivered; a refusal (an unknown session, say) comes from Next.
func (c *Client) Watch(ctx context.Context, sessionID string, after uint64) (*Watch, error) {
	stream, err := c.rpc.Watch(ctx, &robotav1.WatchRequest{SessionId: sessionID, AfterSequence: after, Batched: true})
	if err != nil {
		return nil, rpcErr("watch session "+sessionID, err)
	}
	if _, err := stream.Header(); err != nil {
		return nil, rpcErr("watch session "+sessionID, err)
	}
	return &Watch{recv: eventsOf(stream.Recv, nil)}, nil
}

// Next returns the next event; io.EOF when the session closed.
func (w *Watch) Next() (Event, error) {
	m, err := w.recv()
	if errors.Is(err, io.EOF) {
		return Event{}, io.EOF
	}
	if err != nil {
		return Event{}, rpcErr("watch", err)
	}
	return eventFromProto(m)
}
