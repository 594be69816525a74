package interactive

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// DefaultPermissionTimeout is how long a permission request waits for an answer before
// the call is denied.
const DefaultPermissionTimeout = 5 * time.Minute

// maxResolvedIDs bounds the memory of resolved request ids (kept so that a second
// answer is told "already resolved", not "unknown").
const maxResolvedIDs = 1024

// permissionBroker turns the session's permission questions into permission_request
// events and RespondPermission calls back into answers.
type permissionBroker struct {
	publish func(Event) Event
	prompt  func() string // the running prompt's id
	newID   func() string
	now     func() time.Time
	timeout time.Duration
	// notify, when set, is told of each question asked (Notification hooks); it runs on
	// its own goroutine and never delays the question.
	notify func(PermissionRequest)

	mu       sync.Mutex
	pending  map[string]*waiting
	resolved map[string]string // id → outcome
	order    []string          // resolved ids, oldest first
}

// waiting is a published request and where its answer goes.
type waiting struct {
	req    PermissionRequest
	event  Event // as published, with its sequence number
	answer chan session.PermissionAnswer
}

// ask is the session.PermissionHandler: it publishes the request and waits for an
// answer, the timeout or the end of ctx (an abort), whichever comes first.
func (b *permissionBroker) ask(ctx context.Context, req session.ApprovalRequest) session.PermissionAnswer {
	id := b.newID()
	answer := make(chan session.PermissionAnswer, 1)
	pr := PermissionRequest{RequestID: id, ToolName: req.ToolName, ToolUseID: req.ToolUseID, Input: req.Input,
		Reason: req.Reason, SessionRule: req.SessionRule, Deadline: b.now().Add(b.timeout), TaskID: TaskIDFrom(ctx)}
	timer := time.NewTimer(b.timeout)
	defer timer.Stop()
	// Registered and published under one lock: whoever sees the event can answer it, and
	// pendingRequests never lists a request whose event is not yet numbered.
	b.mu.Lock()
	w := &waiting{req: pr, answer: answer}
	b.pending[id] = w
	w.event = b.publish(Event{Type: EventPermissionRequest, PromptID: b.prompt(), Permission: &pr})
	b.mu.Unlock()
	if b.notify != nil {
		go b.notify(pr)
	}
	select {
	case a := <-answer: // resolved (and published) by respond
		return a
	case <-timer.C:
		if !b.resolve(id, "timeout") {
			return <-answer // an answer won the race; respond is delivering it
		}
		return session.PermissionAnswer{Approval: session.ApprovalDeny,
			Reason: fmt.Sprintf("no answer to the permission request within %s", b.timeout)}
	case <-ctx.Done():
		if !b.resolve(id, "aborted") {
			// The answer came as the abort did; the session ignores it after an abort.
			return <-answer
		}
		return session.PermissionAnswer{Approval: session.ApprovalDeny, Reason: "aborted while waiting for approval"}
	}
}

// resolve ends a pending request with outcome (a denial); false when it was already
// resolved by an answer.
func (b *permissionBroker) resolve(id, outcome string) bool {
	b.mu.Lock()
	_, ok := b.pending[id]
	if ok {
		delete(b.pending, id)
		b.remember(id, outcome)
	}
	b.mu.Unlock()
	if ok {
		b.publish(Event{Type: EventPermissionResolved, PromptID: b.prompt(),
			Resolution: &PermissionResolution{RequestID: id, Approval: session.ApprovalDeny, Outcome: outcome}})
	}
	return ok
}

// abortAll denies every pending request as aborted, before the abort reaches the
// session, so their permission_resolved events precede the prompt's interrupted event.
func (b *permissionBroker) abortAll() {
	b.mu.Lock()
	ids := make([]string, 0, len(b.pending))
	chans := make([]chan session.PermissionAnswer, 0, len(b.pending))
	for id, w := range b.pending {
		ids, chans = append(ids, id), append(chans, w.answer)
		delete(b.pending, id)
		b.remember(id, "aborted")
	}
	b.mu.Unlock()
	for i, id := range ids {
		b.publish(Event{Type: EventPermissionResolved, PromptID: b.prompt(),
			Resolution: &PermissionResolution{RequestID: id, Approval: session.ApprovalDeny, Outcome: "aborted"}})
		chans[i] <- session.PermissionAnswer{Approval: session.ApprovalDeny, Reason: "aborted while waiting for approval"}
	}
}

// respond answers a pending request. automatic says the client answered without asking
// a person (a headless client denying what nobody can answer): its denial is worded as
// the session's own headless denial, never as the user's.
func (b *permissionBroker) respond(id string, approval session.Approval, message string, updatedInput json.RawMessage, automatic bool) error {
	switch approval {
	case session.ApprovalAllow, session.ApprovalAllowSession, session.ApprovalDeny:
	default:
		return fmt.Errorf("%w: %q", ErrInvalidApproval, approval)
	}
	b.mu.Lock()
	w, ok := b.pending[id]
	if !ok {
		outcome, was := b.resolved[id]
		b.mu.Unlock()
		if was {
			return fmt.Errorf("%w: request %s (%s)", ErrPermissionAnswered, id, outcome)
		}
		return fmt.Errorf("%w: %s", ErrUnknownPermissionRequest, id)
	}
	delete(b.pending, id)
	b.remember(id, "answered")
	b.mu.Unlock()
	b.publish(Event{Type: EventPermissionResolved, PromptID: b.prompt(),
		Resolution: &PermissionResolution{RequestID: id, Approval: approval, Outcome: "answered"}})
	a := session.PermissionAnswer{Approval: approval}
	switch {
	case approval == session.ApprovalDeny && automatic:
		a.Reason, a.Message = session.NoOneToAsk(w.req.Reason), message
	case approval == session.ApprovalDeny:
		// A client of the session answered: a person, or a program acting for one.
		a.Reason, a.Message = session.DeniedByUser, message
	default:
		a.UpdatedInput = updatedInput
	}
	w.answer <- a
	return nil
}

// pendingRequests lists the requests waiting for an answer, oldest first.
func (b *permissionBroker) pendingRequests() []PermissionRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]PermissionRequest, 0, len(b.pending))
	for _, w := range b.pending {
		out = append(out, w.req)
	}
	slices.SortFunc(out, func(a, b PermissionRequest) int { return a.Deadline.Compare(b.Deadline) })
	return out
}

// remember records a resolved id, forgetting the oldest past the bound (mu held).
func (b *permissionBroker) remember(id, outcome string) {
	b.resolved[id] = outcome
	b.order = append(b.order, id)
	if len(b.order) > maxResolvedIDs {
		delete(b.resolved, b.order[0])
		b.order = b.order[1:]
	}
}

// subscribeLive subscribes to the events published from now on, starting with the
// permission requests still waiting for an answer (their events as published, oldest
// first): a client that arrives while the session waits can answer. Holding the broker's
// lock keeps a request from being published or resolved in between.
func (b *permissionBroker) subscribeLive(h *hub, o SubscribeOptions) *Subscription {
	b.mu.Lock()
	defer b.mu.Unlock()
	seed := make([]Event, 0, len(b.pending))
	for _, w := range b.pending {
		seed = append(seed, w.event)
	}
	slices.SortFunc(seed, func(a, b Event) int { return cmp.Compare(a.Seq, b.Seq) })
	sub, _ := h.subscribeSeeded(seed, o)
	return sub
}

// taskCtxKey marks a permission ask made for a subagent's tool call.
type taskCtxKey struct{}

// TaskIDFrom returns the subagent task a permission ask is made for ("" for the
// session's own calls).
func TaskIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(taskCtxKey{}).(string)
	return id
}

// WithTaskID marks ctx as the context of subagent task id's permission asks: the
// permission_request names the task.
func WithTaskID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, taskCtxKey{}, id)
}
