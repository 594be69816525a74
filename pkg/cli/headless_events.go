package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// headlessDelivery never cuts off the run's one subscriber, its own output: stdout may be
// a pipe read slowly, and every message must still be printed. What the queue holds is
// the run's output, which the session keeps anyway.
var headlessDelivery = interactive.DeliveryLimits{SubscriberEvents: math.MaxInt32, SubscriberBytes: math.MaxInt}

// stdoutDelivery: what robota prints is the stream itself, so every delta the provider
// streamed is printed as it came (one stream_event each under --include-partial-messages,
// as Claude Code prints them); merging deltas is for gRPC clients that fall behind
// (DESIGN.md decision 6), never for stdout.
var stdoutDelivery = interactive.SubscribeOptions{Exact: true}

// runPrompt runs prompt on s through a headlessTransport and returns its result. A
// signal from sigs, or the end of ctx, stops the transport, which aborts the prompt; it
// still ends (interrupted, its partial answer kept and saved); sig is that signal.
func runPrompt(ctx context.Context, s *interactive.InteractiveSession, prompt string, sigs <-chan os.Signal,
	p eventPrinter) (end *interactive.Result, sig os.Signal, err error) {
	t := &headlessTransport{prompt: prompt, printer: p}
	s.AttachTransport(t)
	done := make(chan struct{})
	caught := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-sigs:
			caught <- sig
			_ = t.Stop(context.WithoutCancel(ctx))
		case <-done:
			caught <- nil
		}
	}()
	err = t.Start(ctx)
	close(done)
	return t.end, <-caught, err
}

// headlessTransport is robota -p's front end as an interactive.Transport: Start submits
// its one prompt and prints the session's events until the prompt ends (the end of ctx
// aborts it, and Start still waits for that end); Stop aborts the prompt. End is the
// prompt's result once Start returned without an error.
type headlessTransport struct {
	prompt  string
	printer eventPrinter
	s       *interactive.InteractiveSession
	end     *interactive.Result
}

var errNotAttached = errors.New("headless transport: no session attached")

func (t *headlessTransport) Name() string { return "headless" }

func (t *headlessTransport) Attach(s *interactive.InteractiveSession) { t.s = s }

func (t *headlessTransport) Start(ctx context.Context) error {
	if t.s == nil {
		return errNotAttached
	}
	sub := t.s.SubscribeWith(stdoutDelivery) // before Submit: no event of the prompt is missed
	defer sub.Close()
	sent, err := t.s.Submit(t.prompt)
	if err != nil {
		return fmt.Errorf("submit the prompt: %w", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			t.s.Abort()
		case <-done:
		}
	}()
	t.end, err = printUntilEnd(sub, sent.PromptID, t.printer)
	return err
}

// Stop aborts the prompt; Start returns once its end event is printed.
func (t *headlessTransport) Stop(context.Context) error {
	if t.s == nil {
		return errNotAttached
	}
	t.s.Abort()
	return nil
}

// printUntilEnd prints events until the end event of the prompt (complete, error or
// interrupted) and returns its result.
func printUntilEnd(sub *interactive.Subscription, promptID string, p eventPrinter) (*interactive.Result, error) {
	for {
		ev, err := sub.Next(context.Background())
		if err != nil {
			return nil, fmt.Errorf("follow the session's events: %w", err)
		}
		p.print(ev)
		switch ev.Type {
		case interactive.EventComplete, interactive.EventError, interactive.EventInterrupted:
			if ev.PromptID == promptID {
				return ev.Result, nil
			}
		}
	}
}

// eventPrinter renders a headless run's events: committed messages and compaction
// boundaries on stdout (stream-json), tool activity on stderr with --verbose, and the
// messages hooks address to the user (systemMessage) on stderr in any case, as Claude
// Code shows them.
type eventPrinter struct {
	out     *output.Writer
	verbose bool
	stderr  io.Writer
	// partial renders --include-partial-messages (nil without it): the deltas of the
	// session's own answer as stream events, and its assistant lines among them.
	partial *partialStream
}

func (p eventPrinter) print(ev interactive.Event) {
	if p.partial != nil {
		switch {
		case (ev.Type == interactive.EventTextDelta || ev.Type == interactive.EventThinkingDelta) && ev.ParentToolUseID == "":
			kind := "text"
			if ev.Type == interactive.EventThinkingDelta {
				kind = "thinking"
			}
			p.partial.delta(kind, ev.Text)
			return
		case ev.Type == interactive.EventMessage && ev.Message.Role == llm.RoleAssistant:
			p.partial.message(*ev.Message) // writes the assistant lines among the stream events
			return
		}
	}
	switch ev.Type {
	case interactive.EventMessage:
		p.out.Message(*ev.Message)
	case interactive.EventSubagentMessage:
		p.out.SubagentMessage(*ev.Message, ev.ParentToolUseID)
	case interactive.EventBackgroundJobGroup:
		p.out.JobGroup(groupLine(ev.Group))
	case interactive.EventCompaction:
		p.out.CompactBoundary(ev.Compaction.Trigger, ev.Compaction.Before.UsedTokens)
	case interactive.EventToolStart, interactive.EventToolEnd:
		p.tool(ev.Type, ev.Tool)
	}
}

func (p eventPrinter) tool(typ interactive.EventType, t *interactive.ToolState) {
	if t.Message != "" {
		fmt.Fprintf(p.stderr, "robota: hook: %s\n", t.Message)
	}
	if !p.verbose {
		return
	}
	switch {
	case typ == interactive.EventToolStart:
		fmt.Fprintf(p.stderr, "  → %s %s\n", t.ToolName, t.Args)
	case t.Result == "denied":
		fmt.Fprintf(p.stderr, "  ✗ %s denied: %s\n", t.ToolName, t.Reason)
	case t.Result == "error":
		fmt.Fprintf(p.stderr, "  ✗ %s failed (%s)\n", t.ToolName, t.ErrorCode)
	default:
		fmt.Fprintf(p.stderr, "  ✓ %s\n", t.ToolName)
	}
}
