package tui

import (
	"context"
	"errors"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// InProcess adapts an InteractiveSession running in this process.
type InProcess struct {
	s      *interactive.InteractiveSession
	sub    *interactive.Subscription
	events chan Event
	cancel context.CancelFunc
	cwd    string
}

// NewInProcess subscribes to s (running in cwd) and serves it to the UI. Close closes s.
func NewInProcess(s *interactive.InteractiveSession, cwd string) *InProcess {
	ctx, cancel := context.WithCancel(context.Background())
	p := &InProcess{s: s, sub: s.Subscribe(), events: make(chan Event, 64), cancel: cancel, cwd: cwd}
	go p.pump(ctx)
	return p
}

func (p *InProcess) pump(ctx context.Context) {
	defer close(p.events)
	for {
		ev, err := p.sub.Next(ctx)
		if err != nil {
			return
		}
		if e, ok := fromInteractive(ev); ok {
			select {
			case p.events <- e:
			case <-ctx.Done():
				return
			}
		}
	}
}

func (p *InProcess) Info() Info {
	sess := p.s.Session()
	info := Info{ID: sess.ID(), Model: sess.Model(), Cwd: p.cwd, PermissionMode: string(sess.PermissionMode())}
	if p.s.ResumedFrom() != "" {
		for _, msg := range sess.Messages() {
			if t := strings.TrimSpace(msg.Text()); t != "" && (msg.Role == llm.RoleUser || msg.Role == llm.RoleAssistant) {
				info.Previous = append(info.Previous, Turn{User: msg.Role == llm.RoleUser, Text: shownText(msg, t)})
			}
		}
		if n := len(info.Previous); n > previousKeep {
			info.Previous = info.Previous[n-previousKeep:]
		}
	}
	return info
}

func (p *InProcess) Events() <-chan Event { return p.events }

func (p *InProcess) Submit(prompt string) (string, error) {
	sent, err := p.s.Submit(prompt)
	return sent.PromptID, err
}

func (p *InProcess) Abort() error {
	p.s.Abort()
	return nil
}

func (p *InProcess) Respond(id string, a Answer, message string) error {
	return p.s.RespondPermission(id, approval(a), message)
}

func approval(a Answer) interactive.Approval {
	switch a {
	case AllowOnce:
		return interactive.ApprovalAllow
	case AllowSession:
		return interactive.ApprovalAllowSession
	}
	return interactive.ApprovalDeny
}

func (p *InProcess) SetPermissionMode(mode string) error {
	res, err := p.s.ExecuteCommand(context.Background(), "mode", mode)
	if err == nil && !res.Success {
		err = errors.New(res.Message)
	}
	return err
}

func (p *InProcess) Commands() []Command {
	list := p.s.ListCommands("")
	out := make([]Command, 0, len(list))
	for _, c := range list {
		out = append(out, Command{Name: c.QualifiedName(), Description: c.Description, ArgumentHint: c.ArgumentHint, Source: c.Source,
			Subcommands: c.Subcommands})
	}
	return out
}

func (p *InProcess) Execute(ctx context.Context, name, args string) (CommandResult, error) {
	res, err := p.s.ExecuteCommand(ctx, name, args)
	if errors.Is(err, commands.ErrUnknownCommand) {
		return CommandResult{}, ErrUnknownCommand
	}
	if err != nil {
		return CommandResult{}, err
	}
	prompt, _ := res.Data[commands.PromptKey].(string)
	return CommandResult{Message: res.Message, Success: res.Success, Prompt: prompt, Data: res.Data}, nil
}

func (p *InProcess) Context() ContextState {
	st := p.s.Session().ContextState()
	return ContextState{UsedTokens: st.UsedTokens, MaxTokens: st.MaxTokens, UsedPercent: st.UsedPercentage}
}

func (p *InProcess) Close(ctx context.Context) error {
	err := p.s.Close(ctx, "prompt_input_exit")
	p.cancel()
	p.sub.Close()
	return err
}

// fromInteractive converts a session event; ok is false for events the UI ignores.
func fromInteractive(ev interactive.Event) (Event, bool) {
	e := Event{PromptID: ev.PromptID, Text: ev.Text}
	switch ev.Type {
	case interactive.EventTextDelta:
		e.Kind = EvText
	case interactive.EventThinkingDelta:
		e.Kind = EvThinking
	case interactive.EventToolStart, interactive.EventToolEnd:
		e.Kind = EvToolStart
		if ev.Type == interactive.EventToolEnd {
			e.Kind = EvToolEnd
		}
		e.Tool = toolOf(ev.Tool)
	case interactive.EventPermissionRequest:
		r := ev.Permission
		e.Kind = EvPermission
		e.Perm = &Permission{ID: r.RequestID, ToolName: r.ToolName, Reason: r.Reason, SessionRule: r.SessionRule,
			Input: r.Input, Subagent: r.TaskID}
	case interactive.EventPermissionResolved:
		e.Kind, e.ResolvedID = EvPermissionResolved, ev.Resolution.RequestID
	case interactive.EventContextUpdate:
		e.Kind = EvContext
		e.Context = &ContextState{UsedTokens: ev.Context.UsedTokens, MaxTokens: ev.Context.MaxTokens, UsedPercent: ev.Context.UsedPercentage}
	case interactive.EventComplete, interactive.EventError, interactive.EventInterrupted:
		e.Kind = EvEnd
		e.End = &End{Outcome: string(ev.Type)}
		if r := ev.Result; r != nil {
			e.End.Error, e.End.Reason = r.Error, r.Reason
			e.End.InputTokens, e.End.OutputTokens = r.Usage.InputTokens, r.Usage.OutputTokens
		}
	case interactive.EventCompaction:
		e.Kind = EvCompaction
	case interactive.EventBackgroundTask:
		if ev.Task == nil || ev.Task.State == nil {
			return e, false
		}
		st := ev.Task.State
		e.Kind = EvTask
		e.Task = &Task{ID: st.TaskID, Kind: string(st.Kind), Status: string(st.Status), Label: st.Label,
			Action: st.CurrentAction, Terminal: st.Status.Terminal(), Started: st.StartedAt}
	default:
		return e, false
	}
	return e, true
}

func toolOf(t *interactive.ToolState) *Tool {
	if t == nil {
		return &Tool{}
	}
	out := &Tool{ID: t.ToolUseID, Name: t.ToolName, FirstArg: t.FirstArg, Args: t.Args, Result: t.Result,
		Reason: t.Reason, ErrorCode: t.ErrorCode, Preview: t.ToolResultData, DiffFile: t.DiffFile, Message: t.Message}
	for _, d := range t.DiffLines {
		out.Diff = append(out.Diff, DiffLine{Kind: d.Kind, Line: d.Line, Text: d.Text})
	}
	return out
}

// shownText is what the transcript shows of a resumed message whose text is t: a user
// message's displayInput when it has one (a skill the user ran shows their "/name args",
// not the body the model got).
func shownText(m llm.Message, t string) string {
	if d, ok := m.Metadata["displayInput"].(string); ok && m.Role == llm.RoleUser && strings.TrimSpace(d) != "" {
		return d
	}
	return t
}
