package assemble

import (
	"context"
	"errors"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// QueryResult is the outcome of Query.
type QueryResult struct {
	interactive.Result
	SessionID string
	// Interrupted is set when ctx ended the prompt.
	Interrupted bool
	// PermissionDenials are the calls denied because nobody could approve them (or a
	// rule denied them), as headless runs list them.
	PermissionDenials []session.PermissionDenial
}

// Query runs one prompt in a new session and returns the answer: the spec's createQuery
// for Go. opts are New's (opts.LLM injects the provider); nobody is asked for
// permission (opts.Interactive.NoPrompt is set), so a call that needs approval is
// denied and listed in PermissionDenials: allow tools with opts.PermissionMode or
// opts.Allow. The session is saved and closed before Query returns. Cancelling ctx
// aborts the prompt: the partial answer is returned with Interrupted set and an error
// matching context.Canceled.
func Query(ctx context.Context, prompt string, opts Options) (QueryResult, error) {
	opts.Interactive.NoPrompt = true
	s, err := New(ctx, opts)
	if err != nil {
		return QueryResult{}, err
	}
	sub := s.Subscribe()
	defer sub.Close()
	sent, err := s.Submit(prompt)
	if err != nil {
		return QueryResult{}, errors.Join(err, s.Close(context.WithoutCancel(ctx), "other"))
	}
	end, waitErr := waitForEnd(ctx, s, sub, sent.PromptID)
	out := QueryResult{SessionID: s.ID(), PermissionDenials: s.Session().PermissionDenials()}
	closeErr := s.Close(context.WithoutCancel(ctx), "other")
	if waitErr != nil {
		return out, errors.Join(waitErr, closeErr)
	}
	out.Result = *end.Result
	switch end.Type {
	case interactive.EventError:
		return out, errors.Join(end.Result.Err, closeErr)
	case interactive.EventInterrupted:
		out.Interrupted = true
		return out, errors.Join(fmt.Errorf("query interrupted: %w", context.Canceled), closeErr)
	}
	return out, closeErr
}

// waitForEnd takes events until the prompt's end event; when ctx ends first it aborts
// the prompt and still waits for that event (the abort completes quickly).
func waitForEnd(ctx context.Context, s *interactive.InteractiveSession, sub *interactive.Subscription, promptID string) (interactive.Event, error) {
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if ctx.Err() == nil {
				return interactive.Event{}, err
			}
			s.Abort()
			ctx = context.Background()
			continue
		}
		if ev.PromptID == promptID && (ev.Type == interactive.EventComplete || ev.Type == interactive.EventError || ev.Type == interactive.EventInterrupted) {
			return ev, nil
		}
	}
}
