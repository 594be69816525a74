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
	info     Info
	keepLive bool
	once     sync.Once

	mu      sync.Mutex
	c       *client.Client
	events  chan Event
	cancel  context.CancelFunc
	lastSeq uint64 // the last event received, to watch again after it
	redial  Redial
}

// Redial connects to the engine again after the connection was lost and finds the
// session id there: still live (the same engine; resumed false) or resumed from its
// store (an engine that restarted; resumed true).
type Redial func(ctx context.Context, id string) (c *client.Client, info client.SessionInfo, resumed bool, err error)

// SetRedial offers reconnecting (Reconnect) through f.
func (r *Remote) SetRedial(f Redial) {
	r.mu.Lock()
	r.redial = f
	r.mu.Unlock()
}

// conn is the engine connection in use.
func (r *Remote) conn() *client.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c
}

// Reconnect connects to the engine again and resumes the session's events: after the
// last one received when the session stayed live, from its start when the engine
// resumed it. The UI then reads Events again.
func (r *Remote) Reconnect(ctx context.Context) error {
	r.mu.Lock()
	redial, after := r.redial, r.lastSeq
	r.mu.Unlock()
	if redial == nil {
		return errors.New("reconnecting is not offered")
	}
	c, info, resumed, err := redial(ctx, r.info.ID)
	if err != nil {
		return err
	}
	if resumed {
		after = 0
	}
	wctx, cancel := context.WithCancel(context.Background())
	w, err := c.Watch(wctx, info.ID, after)
	if err != nil {
		cancel()
		c.Close()
		return err
	}
	r.mu.Lock()
	old, oldCancel := r.c, r.cancel
	r.c, r.cancel, r.events = c, cancel, make(chan Event, 64)
	events := r.events
	r.mu.Unlock()
	oldCancel()
	old.Close()
	go r.pump(wctx, w, events)
	return nil
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
	go r.pump(wctx, w, r.events)
	return r, nil
}

func (r *Remote) pump(ctx context.Context, w *client.Watch, events chan<- Event) {
	defer close(events)
	for {
		ev, err := w.Next()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.lastSeq = ev.Seq
		r.mu.Unlock()
		if e, ok := fromClient(ev); ok {
			select {
			case events <- e:
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
		page, err := r.conn().History(callCtx, r.info.ID, offset, 0)
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

func (r *Remote) Info() Info { return r.info }
func (r *Remote) Events() <-chan Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events
}

// Submit sends the prompt; its events come through the session's watch, so the
// prompt's own stream is closed as soon as the engine accepted it.
func (r *Remote) Submit(prompt string) (string, error) {
	ctx, cancel := r.call()
	defer cancel()
	p, err := r.conn().Submit(ctx, r.info.ID, prompt)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

func (r *Remote) Abort() error {
	ctx, cancel := r.call()
	defer cancel()
	_, err := r.conn().Abort(ctx, r.info.ID)
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
	err := r.conn().RespondPermission(ctx, r.info.ID, id, ans, message)
	if errors.Is(err, client.ErrFailedPrecondition) {
		return nil // answered already (another client, or the deadline)
	}
	return err
}

func (r *Remote) SetPermissionMode(mode string) error {
	ctx, cancel := r.call()
	defer cancel()
	res, err := r.conn().ExecuteCommand(ctx, r.info.ID, "mode", mode)
	if err == nil && !res.Success {
		err = errors.New(res.Message)
	}
	return err
}

func (r *Remote) Commands() []Command {
	ctx, cancel := r.call()
	defer cancel()
	list, err := r.conn().ListCommands(ctx, r.info.ID)
	if err != nil {
		return nil
	}
	out := make([]Command, 0, len(list))
	for _, c := range list {
		out = append(out, Command{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint, Source: c.Source,
			Subcommands: c.Subcommands})
	}
	return out
}

func (r *Remote) Execute(ctx context.Context, name, args string) (CommandResult, error) {
	ctx, cancel := context.WithTimeout(ctx, remoteCallWait)
	defer cancel()
	res, err := r.conn().ExecuteCommand(ctx, r.info.ID, name, args)
	if errors.Is(err, client.ErrNotFound) {
		return CommandResult{}, ErrUnknownCommand
	}
	if err != nil {
		return CommandResult{}, err
	}
	prompt, _ := res.Data["prompt"].(string)
	return CommandResult{Message: res.Message, Success: res.Success, Prompt: prompt, Data: res.Data}, nil
}

func (r *Remote) Context() ContextState {
	ctx, cancel := r.call()
	defer cancel()
	st, err := r.conn().ContextState(ctx, r.info.ID)
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
			err = r.conn().CloseSession(ctx, r.info.ID, "prompt_input_exit")
		}
		r.mu.Lock()
		cancel := r.cancel
		r.mu.Unlock()
		cancel()
		if cerr := r.conn().Close(); err == nil {
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
	case client.EventBackgroundTask:
		t := ev.Task
		if t == nil {
			return e, false
		}
		e.Kind = EvTask
		e.Task = &Task{ID: t.ID, Kind: t.Kind, Status: t.Status, Label: t.Label, Action: t.CurrentAction,
			Terminal: t.Terminal, Started: t.StartedAt}
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
	// Unified diff lines, numbered from StartLine: context and removals in the old file,
	// context and additions in the new one.
	old, cur := t.StartLine, t.StartLine
	for _, d := range t.DiffLines {
		switch {
		case d == "":
		case strings.HasPrefix(d, "@@"):
			out.Diff = append(out.Diff, DiffLine{Kind: "hunk", Line: t.StartLine, Text: d})
		case d[0] == '-':
			out.Diff = append(out.Diff, DiffLine{Kind: "remove", Line: old, Text: d[1:]})
			old++
		case d[0] == ' ':
			out.Diff = append(out.Diff, DiffLine{Kind: "context", Line: cur, Text: d[1:]})
			old++
			cur++
		default:
			out.Diff = append(out.Diff, DiffLine{Kind: "add", Line: cur, Text: strings.TrimPrefix(d, "+")})
			cur++
		}
	}
	return out
}
