package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// remoteCallWait bounds each unary call to the engine: one that stopped answering
// fails the call instead of freezing the UI.
const remoteCallWait = 30 * time.Second

// Remote adapts a session living in a robota-engine, reached through pkg/client.
type Remote struct {
	c        *client.Client
	info     Info
	events   chan Event
	cancel   context.CancelFunc
	keepLive bool
	once     sync.Once
}

// NewRemote watches the engine session s (created or resumed by the caller) and
// serves it to the UI. keepLive leaves the session open at Close (another client had
// it live before); Close otherwise closes it in the engine (saved, SessionEnd fired).
func NewRemote(ctx context.Context, c *client.Client, s client.SessionInfo, resumed, keepLive bool) (*Remote, error) {
	wctx, cancel := context.WithCancel(context.Background())
	w, err := c.Watch(wctx, s.ID, 0)
	if err != nil {
		cancel()
		return nil, err
	}
	r := &Remote{c: c, events: make(chan Event, 64), cancel: cancel, keepLive: keepLive,
		info: Info{ID: s.ID, Model: s.Model, Cwd: s.Cwd, PermissionMode: s.PermissionMode}}
	if resumed {
		r.info.Previous = r.previous(ctx)
	}
	go r.pump(wctx, w)
	return r, nil
}

func (r *Remote) pump(ctx context.Context, w *client.Watch) {
	defer close(r.events)
	for {
		ev, err := w.Next()
		if err != nil {
			return
		}
		if e, ok := fromClient(ev); ok {
			select {
			case r.events <- e:
			case <-ctx.Done():
				return
			}
		}
	}
}

// previous reads the end of the conversation for the banner.
func (r *Remote) previous(ctx context.Context) []Turn {
	var turns []Turn
	offset := 0
	for {
		callCtx, cancel := context.WithTimeout(ctx, remoteCallWait)
		page, err := r.c.History(callCtx, r.info.ID, offset, 0)
		cancel()
		if err != nil {
			return turns
		}
		for _, e := range page.Entries {
			m := e.Message
			if m == nil {
				continue
			}
			if t := strings.TrimSpace(m.Text()); t != "" && (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) {
				turns = append(turns, Turn{User: m.Role == llm.RoleUser, Text: shownText(*m, t)})
			}
		}
		if page.Next <= offset || page.Next >= page.Total {
			break
		}
		offset = page.Next
	}
	if n := len(turns); n > previousKeep {
		turns = turns[n-previousKeep:]
	}
	return turns
}

func (r *Remote) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), remoteCallWait)
}

func (r *Remote) Info() Info           { return r.info }
func (r *Remote) Events() <-chan Event { return r.events }

// Submit sends the prompt; its events come through the session's watch, so the
// prompt's own stream is closed as soon as the engine accepted it.
func (r *Remote) Submit(prompt string) (string, error) {
	ctx, cancel := r.call()
	defer cancel()
	p, err := r.c.Submit(ctx, r.info.ID, prompt)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

func (r *Remote) Abort() error {
	ctx, cancel := r.call()
	defer cancel()
	_, err := r.c.Abort(ctx, r.info.ID)
	return err
}

func (r *Remote) Respond(id string, a Answer, message string) error {
	ctx, cancel := r.call()
	defer cancel()
	ans := client.AnswerDeny
	switch a {
	case AllowOnce:
		ans = client.AnswerAllow
	case AllowSession:
		ans = client.AnswerAllowForSession
	}
	err := r.c.RespondPermission(ctx, r.info.ID, id, ans, message)
	if errors.Is(err, client.ErrFailedPrecondition) {
		return nil // answered already (another client, or the deadline)
	}
	return err
}

func (r *Remote) SetPermissionMode(mode string) error {
	ctx, cancel := r.call()
	defer cancel()
	res, err := r.c.ExecuteCommand(ctx, r.info.ID, "mode", mode)
	if err == nil && !res.Success {
		err = errors.New(res.Message)
	}
	return err
}

func (r *Remote) Commands() []Command {
	ctx, cancel := r.call()
	defer cancel()
	list, err := r.c.ListCommands(ctx, r.info.ID)
	if err != nil {
		return nil
	}
	out := make([]Command, 0, len(list))
	for _, c := range list {
		out = append(out, Command{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint, Source: c.Source})
	}
	return out
}

func (r *Remote) Execute(ctx context.Context, name, args string) (CommandResult, error) {
	ctx, cancel := context.WithTimeout(ctx, remoteCallWait)
	defer cancel()
	res, err := r.c.ExecuteCommand(ctx, r.info.ID, name, args)
	if errors.Is(err, client.ErrNotFound) {
		return CommandResult{}, ErrUnknownCommand
	}
	if err != nil {
		return CommandResult{}, err
	}
	prompt, _ := res.Data["prompt"].(string)
	return CommandResult{Message: res.Message, Success: res.Success, Prompt: prompt}, nil
}

func (r *Remote) Context() ContextState {
	ctx, cancel := r.call()
	defer cancel()
	st, err := r.c.ContextState(ctx, r.info.ID)
	if err != nil {
		return ContextState{}
	}
	return ContextState{UsedTokens: st.UsedTokens, MaxTokens: st.MaxTokens, UsedPercent: st.UsedPercentage}
}

// Close closes the session in the engine (unless another client keeps it live) and
// the connection.
func (r *Remote) Close(ctx context.Context) error {
	var err error
	r.once.Do(func() {
		if !r.keepLive {
			err = r.c.CloseSession(ctx, r.info.ID, "prompt_input_exit")
		}
		r.cancel()
		if cerr := r.c.Close(); err == nil {
			err = cerr
		}
	})
	return err
}

// fromClient converts an engine event; ok is false for events the UI ignores.
func fromClient(ev client.Event) (Event, bool) {
	e := Event{PromptID: ev.PromptID, Text: ev.Text}
	switch ev.Type {
	case client.EventTextDelta:
		e.Kind = EvText
	case client.EventThinking:
		if ev.Text == "" {
			return e, false
		}
		e.Kind = EvThinking
	case client.EventToolStart, client.EventToolEnd:
		e.Kind = EvToolStart
		if ev.Type == client.EventToolEnd {
			e.Kind = EvToolEnd
		}
		e.Tool = toolFromClient(ev.Tool)
	case client.EventPermissionRequest:
		p := ev.Permission
		e.Kind = EvPermission
		e.Perm = &Permission{ID: p.ID, ToolName: p.ToolName, Reason: p.Reason, SessionRule: p.SessionRule, Input: p.Input, Subagent: p.TaskID}
	case client.EventPermissionResolved:
		e.Kind, e.ResolvedID = EvPermissionResolved, ev.Resolution.RequestID
	case client.EventContextUpdate:
		if ev.Context == nil {
			return e, false
		}
		e.Kind = EvContext
		e.Context = &ContextState{UsedTokens: ev.Context.UsedTokens, MaxTokens: ev.Context.MaxTokens, UsedPercent: ev.Context.UsedPercentage}
	case client.EventComplete, client.EventError, client.EventInterrupted:
		e.Kind = EvEnd
		e.End = &End{Outcome: string(ev.Type)}
		if r := ev.Result; r != nil {
			e.End.Reason = r.Reason
			e.End.InputTokens, e.End.OutputTokens = r.Usage.InputTokens, r.Usage.OutputTokens
		}
		if ev.Error != nil {
			e.End.Error = ev.Error.Message
		}
	case client.EventCompaction:
		e.Kind = EvCompaction
	default:
		return e, false
	}
	return e, true
}

func toolFromClient(t *client.ToolState) *Tool {
	if t == nil {
		return &Tool{}
	}
	out := &Tool{ID: t.CallID, Name: t.Name, FirstArg: t.FirstArg, Args: t.Input, Preview: t.Output,
		Reason: t.Error, DiffFile: t.DiffFile}
	switch t.Outcome {
	case client.ToolSuccess:
		out.Result = "success"
	case client.ToolDenied:
		out.Result = "denied"
	case "":
	default:
		out.Result = "error"
	}
	out.ErrorCode, _ = t.Metadata["errorCode"].(string)
	out.Message, _ = t.Metadata["message"].(string)
	// Diff lines come signed, numbered from StartLine in the old file (removals) and
	// the new one (additions).
	old, cur := t.StartLine, t.StartLine
	for _, d := range t.DiffLines {
		if d == "" {
			continue
		}
		if d[0] == '-' {
			out.Diff = append(out.Diff, DiffLine{Line: old, Text: d[1:]})
			old++
		} else {
			out.Diff = append(out.Diff, DiffLine{Add: true, Line: cur, Text: strings.TrimPrefix(d, "+")})
			cur++
		}
	}
	return out
}
