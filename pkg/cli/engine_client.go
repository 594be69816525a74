package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// engineRPCWait bounds each unary call to the engine (create, history, respond, close):
// an engine that stopped answering fails the run instead of hanging it.
const engineRPCWait = 30 * time.Second

// engineFlags registers the client-side TLS flags of --engine tcp://.
func engineFlags(fs *flag.FlagSet, o *Options) {
	fs.StringVar(&o.EngineTLS.CertFile, "tls-cert", "", "with --engine tcp://: PEM client certificate (the engine's --tls-client-ca must have signed it)")
	fs.StringVar(&o.EngineTLS.KeyFile, "tls-key", "", "with --engine tcp://: PEM private key of --tls-cert")
	fs.StringVar(&o.EngineTLS.CAFile, "tls-ca", "", "with --engine tcp://: PEM CA bundle that signed the engine's certificate")
}

// checkEngineFlags refuses TLS files without an engine to use them on.
func checkEngineFlags(o Options) error {
	if o.Engine == "" && (o.EngineTLS != client.TLSFiles{}) {
		return errors.New("--tls-cert, --tls-key and --tls-ca apply to --engine tcp://HOST:PORT only")
	}
	return nil
}

// runEngineHeadless runs one prompt in the engine at o.Engine and renders it with the
// same writer as the in-process run: a session is created with robota's flags, the
// prompt submitted, the committed messages read from the session's history as its
// events arrive, permission questions denied (no one can answer them) and listed in
// permission_denials, and the session closed (saved, SessionEnd fired) at the end.
// Ctrl-C, SIGTERM or SIGHUP aborts the prompt in the engine; robota waits for the
// interrupted event, then exits 128+signal.
func runEngineHeadless(ctx context.Context, o Options, stdin *os.File, stdout, stderr io.Writer) int {
	start := time.Now()
	format, cwd, prompt, ok := headlessInput(o, stdin, stderr)
	if !ok {
		return exitConfig
	}
	c, err := client.Dial(o.Engine, client.DialOptions{TLS: o.EngineTLS})
	if err != nil {
		fmt.Fprintf(stderr, "robota: --engine: %v\n", err)
		return exitConfig
	}
	defer c.Close()
	callCtx, cancelCall := context.WithTimeout(ctx, engineRPCWait)
	shared := liveBefore(callCtx, c, o, cwd)
	info, err := c.CreateSession(callCtx, client.SessionOptions{
		Cwd: cwd, Provider: o.Provider, Model: o.Model, Script: o.Script, PermissionMode: o.PermissionMode,
		Allow: o.AllowedTools, Deny: o.DisallowedTools, AppendSystemPrompt: o.AppendSystemPrompt, MaxTurns: o.MaxTurns,
		Resume: o.Resume, Continue: o.Continue, Fork: o.ForkSession,
	})
	cancelCall()
	if err != nil {
		return reportEngineSetupError(o.Engine, err, stderr)
	}
	r := &engineRun{c: c, id: info.ID, out: output.New(stdout, format, llm.NewID), stderr: stderr, verbose: o.Verbose,
		keepLive: shared[info.ID]}
	r.out.Init(output.Init{SessionID: info.ID, Cwd: info.Cwd, Model: info.Model, Tools: info.Tools,
		PermissionMode: info.PermissionMode, APIKeySource: info.APIKeySource, Sandbox: info.Sandbox})
	if err := r.skipToEnd(ctx); err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		r.close()
		return exitFailed
	}

	// Signals stay caught until the session is closed: a second Ctrl-C cannot cut the save.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	var sig os.Signal
	res, isCommand := runSlash(context.Background(), cwd, &prompt, r.out, r.engineGroupEvents(ctx, r.executeCommand(ctx)))
	if !isCommand {
		end, s, runErr := r.submit(ctx, prompt, sigs)
		if runErr != nil {
			fmt.Fprintf(stderr, "robota: %v\n", runErr)
			r.close()
			return exitFailed
		}
		res, sig = r.result(end, o.MaxTurns), s
	}
	res.DurationMS = time.Since(start).Milliseconds()
	res.Model = info.Model
	if info.Context != nil {
		res.ContextWindow = info.Context.MaxTokens
	}
	closeErr := r.close()
	if err := r.out.Result(res); err != nil {
		fmt.Fprintf(stderr, "robota: write output: %v\n", err)
		return exitFailed
	}
	if closeErr != nil {
		fmt.Fprintf(stderr, "robota: saving session %s: %v\n", info.ID, closeErr)
	}
	return exitStatus(stderr, format, info.ID, sig, res, closeErr)
}

// executeCommand runs a slash command in the engine's session.
func (r *engineRun) executeCommand(ctx context.Context) func(context.Context, string, string) (commands.Result, error) {
	return func(_ context.Context, name, args string) (commands.Result, error) {
		wait := engineRPCWait
		if name == "agent" || name == "background" || name == "/agent" || name == "/background" {
			// They may wait for agents (/agent parallel, /agent wait): as long as the jobs run.
			wait = 24 * time.Hour
		}
		callCtx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		res, err := r.c.ExecuteCommand(callCtx, r.id, name, args)
		return commands.Result{Success: res.Success, Message: res.Message, Data: res.Data}, err
	}
}

// reportEngineSetupError prints why the session could not be created; the exit status
// follows the in-process run's: a flag or configuration the engine refused is 2, no
// session to resume (as in-process) or no engine to reach is 1.
func reportEngineSetupError(addr string, err error, stderr io.Writer) int {
	switch {
	case errors.Is(err, client.ErrUnavailable):
		fmt.Fprintf(stderr, "robota: no engine answers at %s (start one with robota-engine --listen %s): %v\n", addr, addr, err)
		return exitFailed
	case errors.Is(err, client.ErrInvalidOption), errors.Is(err, client.ErrInvalidArgument):
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitConfig
	}
	fmt.Fprintf(stderr, "robota: %v\n", err)
	return exitFailed
}

// engineRun is one prompt run in the engine and rendered here.
type engineRun struct {
	c       *client.Client
	id      string
	out     *output.Writer
	stderr  io.Writer
	verbose bool
	// offset is the first history entry not yet rendered.
	offset  int
	denials []output.PermissionDenial
	// keepLive is set when the session was live in the engine before this run (another
	// client's): it is left open for them instead of closed.
	keepLive bool
}

// syncHistory renders the chat messages committed since the last call, in history
// order, each once. It runs at the events that follow a commit (tool_start after the
// assistant message, tool_end after a result, the prompt's end after the answer), so
// lines come out as the run goes; the end event's sync renders whatever is left.
//
// through, when set, bounds a sync to the entry its event follows: the history is read
// when this client gets to the event, and a client behind the engine would otherwise
// render messages committed after it (the Agent call's result and the final answer)
// before the subagent lines that the stream delivers next. With no such entry yet,
// nothing is rendered: a later sync renders it.
func (r *engineRun) syncHistory(ctx context.Context, through func(llm.Message) bool) error {
	for {
		callCtx, cancel := context.WithTimeout(ctx, engineRPCWait)
		page, err := r.c.History(callCtx, r.id, r.offset, 0)
		cancel()
		if err != nil {
			return err
		}
		entries, bounded := page.Entries, false
		if through != nil {
			if i := slices.IndexFunc(entries, func(e client.HistoryEntry) bool { return e.Message != nil && through(*e.Message) }); i >= 0 {
				entries, bounded = entries[:i+1], true
			}
		}
		lastPage := page.Next <= r.offset || page.Next >= page.Total
		if through != nil && !bounded && lastPage {
			return nil // the entry is not committed yet
		}
		for _, e := range entries {
			if e.Message != nil {
				r.out.Message(*e.Message)
			}
		}
		switch {
		case bounded:
			r.offset += len(entries)
			return nil
		case lastPage:
			r.offset = max(r.offset, page.Next)
			return nil
		}
		r.offset = page.Next
	}
}

// callsTool reports whether an assistant message makes the tool call id.
func callsTool(id string) func(llm.Message) bool {
	return func(m llm.Message) bool {
		return slices.ContainsFunc(m.ToolCalls(), func(c llm.ToolCall) bool { return c.ID == id })
	}
}

// answersTool reports whether a message holds the result of the tool call id.
func answersTool(id string) func(llm.Message) bool {
	return func(m llm.Message) bool {
		res, ok := m.ToolResult()
		return ok && res.ToolCallID == id
	}
}

// submit runs the prompt until its end event. A signal aborts the prompt in the engine;
// the end event (interrupted) still comes, and sig reports the signal.
func (r *engineRun) submit(ctx context.Context, prompt string, sigs <-chan os.Signal) (end client.Event, sig os.Signal, err error) {
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := r.c.Submit(streamCtx, r.id, prompt)
	if err != nil {
		return client.Event{}, nil, err
	}
	events := make(chan client.Event)
	failed := make(chan error, 1)
	go func() {
		for {
			e, err := p.Next()
			if err != nil {
				failed <- err
				return
			}
			select {
			case events <- e:
			case <-streamCtx.Done():
				return
			}
		}
	}()
	for {
		select {
		case s := <-sigs:
			if sig == nil {
				sig = s
				abortCtx, cancelAbort := context.WithTimeout(ctx, engineRPCWait)
				if _, err := r.c.Abort(abortCtx, r.id); err != nil {
					fmt.Fprintf(r.stderr, "robota: abort: %v\n", err)
				}
				cancelAbort()
			}
		case err := <-failed:
			return client.Event{}, sig, err
		case e := <-events:
			if err := r.handle(ctx, e); err != nil {
				return client.Event{}, sig, err
			}
			if e.IsEnd() {
				return e, sig, nil
			}
		}
	}
}

// handle renders one event.
func (r *engineRun) handle(ctx context.Context, e client.Event) error {
	switch e.Type {
	case client.EventPermissionRequest:
		callCtx, cancel := context.WithTimeout(ctx, engineRPCWait)
		defer cancel()
		// Nobody was asked: the engine words the denial as the in-process run does
		// ("approval required and no one can be asked (reason)"), not as the user's.
		err := r.c.RespondPermissionAutomatic(callCtx, r.id, e.Permission.ID, client.AnswerDeny, "")
		if errors.Is(err, client.ErrFailedPrecondition) {
			return nil // resolved already (another client answered, or it timed out)
		}
		return err
	case client.EventToolStart:
		if r.verbose {
			fmt.Fprintf(r.stderr, "  → %s %s\n", e.Tool.Name, e.Tool.Input)
		}
		return r.syncHistory(ctx, callsTool(e.Tool.CallID))
	case client.EventToolEnd:
		r.reportTool(e.Tool)
		if e.Tool.Outcome == client.ToolDenied {
			input := e.Tool.Input
			if len(input) == 0 {
				input = []byte("{}")
			}
			r.denials = append(r.denials, output.PermissionDenial{ToolName: e.Tool.Name, ToolUseID: e.Tool.CallID, ToolInput: input})
		}
		return r.syncHistory(ctx, answersTool(e.Tool.CallID))
	case client.EventCompaction:
		if err := r.syncHistory(ctx, nil); err != nil {
			return err
		}
		r.out.CompactBoundary(e.Compaction.Trigger, e.Compaction.Before.UsedTokens)
		// The summary is not echoed (in-process neither); render from after it.
		return r.skipToEnd(ctx)
	case client.EventSubagentMessage:
		// The Agent call that started the subagent is rendered (its tool_start synced
		// the history) before any of its subagent's lines, as in-process.
		r.out.SubagentMessage(*e.Message, e.ParentToolUseID)
	case client.EventBackgroundJobGroup:
		// A group the prompt made (the model's batch Agent call), as in-process prints it.
		if e.Group != nil {
			r.out.JobGroup(clientGroupLine(e))
		}
	case client.EventComplete, client.EventError, client.EventInterrupted:
		return r.syncHistory(ctx, nil)
	}
	return nil
}

// skipToEnd moves the offset past everything in the history now: at the start, the
// history the session already had (a resumed session's), so only what this prompt
// commits is rendered, as in-process; after a compaction, its summary.
func (r *engineRun) skipToEnd(ctx context.Context) error {
	callCtx, cancel := context.WithTimeout(ctx, engineRPCWait)
	defer cancel()
	page, err := r.c.History(callCtx, r.id, 0, 1)
	if err != nil {
		return err
	}
	r.offset = page.Total
	return nil
}

// reportTool prints a finished tool call with --verbose, as the in-process run does.
func (r *engineRun) reportTool(t *client.ToolState) {
	if msg, _ := t.Metadata["message"].(string); msg != "" {
		fmt.Fprintf(r.stderr, "robota: hook: %s\n", msg)
	}
	if !r.verbose {
		return
	}
	switch t.Outcome {
	case client.ToolSuccess:
		fmt.Fprintf(r.stderr, "  ✓ %s\n", t.Name)
	case client.ToolDenied:
		fmt.Fprintf(r.stderr, "  ✗ %s denied: %s\n", t.Name, t.Error)
	default:
		code, _ := t.Metadata["errorCode"].(string)
		fmt.Fprintf(r.stderr, "  ✗ %s failed (%s)\n", t.Name, code)
	}
}

// result describes the run from its end event, as resultOf does in-process.
func (r *engineRun) result(end client.Event, maxTurns int) output.Result {
	last := end.Result
	res := output.Result{Subtype: output.SubtypeSuccess, NumTurns: last.Rounds, Text: last.Response, Usage: last.Usage,
		PermissionDenials: r.denials, StopReason: anthropicStopReason(agent.StopReason(last.StopReason))}
	switch {
	case end.Type == client.EventInterrupted:
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		res.Errors = append(res.Errors, fmt.Errorf("%w: %w", interactive.ErrAborted, context.Canceled).Error())
	case end.Type == client.EventError:
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		res.Errors = append(res.Errors, end.Error.Message)
	case last.StopReason == string(agent.StopMaxRounds):
		res.Subtype, res.IsError = output.SubtypeErrorMaxTurns, true
		res.Errors = append(res.Errors, fmt.Sprintf("Reached maximum number of turns (%d)", maxTurns))
	case last.StopReason == string(agent.StopContextLimit):
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		res.Errors = append(res.Errors, last.Response)
	case last.StopReason == string(agent.StopProviderError):
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
	}
	return res
}

// close closes the session in the engine: saved, SessionEnd hooks fired, freed. A
// session another client had live stays open (the engine saves it after each prompt).
func (r *engineRun) close() error {
	if r.keepLive {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), engineRPCWait)
	defer cancel()
	return r.c.CloseSession(ctx, r.id, "other")
}

// liveBefore returns the ids of the sessions that --resume or --continue (without
// --fork-session) may attach to and that are live in the engine already: resuming one
// returns it as it is, and it must stay open for the client that has it. A failed
// lookup returns what it found; CreateSession reports the engine's errors.
func liveBefore(ctx context.Context, c *client.Client, o Options, cwd string) map[string]bool {
	live := map[string]bool{}
	switch {
	case o.ForkSession:
	case o.Resume != "":
		if info, err := c.GetSession(ctx, o.Resume); err == nil && info.Live {
			live[info.ID] = true
		}
	case o.Continue:
		sessions, _, _ := c.ListSessions(ctx, cwd, 0, "")
		for _, s := range sessions {
			if s.Live {
				live[s.ID] = true
			}
		}
	}
	return live
}
