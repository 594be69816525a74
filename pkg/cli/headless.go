package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
	"github.com/robota-sdk/robota-go/pkg/runner/background"
)

// Exit statuses of a headless run. A run ended by a signal exits 128+signal, as a shell
// reports it: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
const (
	exitOK     = 0
	exitFailed = 1
	exitConfig = 2
)

// stdinWait is how long a headless run waits for the first byte of piped stdin before it
// goes on without it (a pipe nobody writes to or closes would otherwise hang the run).
const stdinWait = 3 * time.Second

// stopSignals end a headless run: the turn is aborted, the partial answer kept and saved.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// runHeadless runs one prompt in an in-process session and renders it. Ctrl-C, SIGTERM
// or SIGHUP aborts the turn; the partial answer is kept and saved before the exit.
func runHeadless(ctx context.Context, o Options, stdin *os.File, stdout, stderr io.Writer) int {
	start := time.Now()
	format, err := output.ParseFormat(o.OutputFormat)
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitConfig
	}
	cwd, err := resolveCwd(o.Cwd)
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitConfig
	}
	prompt, err := withPipedInput(o.Prompt, stdin, stdinWait, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "robota: read stdin: %v\n", err)
		return exitConfig
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(stderr, "robota: -p needs a prompt: pass it as an argument (robota -p \"...\") or pipe it on stdin")
		return exitConfig
	}
	out := output.New(stdout, format, llm.NewID)
	// Background commands run in robota-worker, launched on the first one (decision 10).
	bg := background.New(background.Config{})
	defer bg.Close()
	a, err := interactive.Assemble(ctx, interactive.Options{
		Cwd: cwd, Provider: o.Provider, Model: o.Model, Script: o.Script, PermissionMode: o.PermissionMode,
		Allow: o.AllowedTools, Deny: o.DisallowedTools, MaxTurns: o.MaxTurns,
		AppendSystemPrompt: o.AppendSystemPrompt, Resume: o.Resume, Continue: o.Continue, Fork: o.ForkSession,
		OnMessage: out.Message, Background: bg,
		Callbacks: session.Callbacks{
			OnCompactEvent:  func(e session.CompactEvent) { out.CompactBoundary(e.Trigger, e.Before.UsedTokens) },
			OnToolExecution: toolReporter(o.Verbose, stderr),
		},
	})
	if err != nil {
		return reportSetupError(err, stderr)
	}
	if o.Verbose {
		for _, w := range a.Warnings {
			fmt.Fprintf(stderr, "robota: warning: %s\n", w)
		}
	}
	sess := a.Session
	out.Init(output.Init{
		SessionID: sess.ID(), Cwd: cwd, Model: a.Provider.Model, Tools: a.Tools,
		PermissionMode: string(sess.PermissionMode()), APIKeySource: a.Provider.APIKeySource,
	})

	// Signals stay caught until the session is saved: a second Ctrl-C cannot cut the save.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	runCtx, cancel := context.WithCancel(ctx)
	caught := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-sigs:
			caught <- sig
			cancel()
		case <-runCtx.Done():
			caught <- nil
		}
	}()
	answer, runErr := sess.Run(runCtx, prompt)
	cancel()
	sig := <-caught

	res := resultOf(sess, answer, runErr, o.MaxTurns)
	res.DurationMS = time.Since(start).Milliseconds()
	closeErr := a.Close(context.Background(), "other")
	unsaved := closeErr != nil && !res.IsError
	if unsaved {
		// The answer was given but not saved (a full disk): the result line says so too,
		// so it agrees with the exit status.
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		res.Errors = append(res.Errors, closeErr.Error())
	}
	for _, w := range a.StoreWarnings { // a crash left a torn round: always worth knowing
		fmt.Fprintf(stderr, "robota: warning: %s\n", w)
	}
	if err := out.Result(res); err != nil {
		fmt.Fprintf(stderr, "robota: write output: %v\n", err)
		return exitFailed
	}
	if closeErr != nil && !(unsaved && format == output.FormatText) { // else printed with res.Errors
		fmt.Fprintf(stderr, "robota: saving session %s: %v\n", sess.ID(), closeErr)
	}
	switch {
	case sig != nil:
		fmt.Fprintf(stderr, "robota: interrupted (%v); session %s saved (resume with --resume %s)\n", sig, sess.ID(), sess.ID())
		return signalExit(sig)
	case res.IsError:
		if format == output.FormatText {
			for _, e := range res.Errors {
				fmt.Fprintf(stderr, "robota: %s\n", e)
			}
		}
		return exitFailed
	case closeErr != nil:
		return exitFailed
	}
	return exitOK
}

// signalExit is the exit status of a run ended by sig: 128 + its number.
func signalExit(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}

// resultOf describes the run. num_turns counts the model/tool rounds that ran, over the
// Stop-hook continuations too; the forced final summary made at the --max-turns cap is not
// a turn (its usage is counted), so --max-turns N reports at most N. Claude Code reports
// N+1 there: it counts the turn it refused to start.
func resultOf(sess *session.Session, answer string, runErr error, maxTurns int) output.Result {
	last := sess.LastResult()
	res := output.Result{Subtype: output.SubtypeSuccess, NumTurns: last.Rounds, Text: answer, Usage: last.Usage}
	for _, d := range sess.PermissionDenials() {
		res.PermissionDenials = append(res.PermissionDenials, output.PermissionDenial{
			ToolName: d.ToolName, ToolUseID: d.ToolUseID, ToolInput: d.ToolInput})
	}
	switch {
	case runErr != nil:
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		res.Errors = append(res.Errors, runErr.Error())
	case last.StopReason == agent.StopMaxRounds:
		res.Subtype, res.IsError = output.SubtypeErrorMaxTurns, true
		res.Errors = append(res.Errors, fmt.Sprintf("Reached maximum number of turns (%d)", maxTurns))
	case last.StopReason == agent.StopContextLimit:
		// The guard's diagnostic is the answer; the run did not do what was asked.
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		res.Errors = append(res.Errors, last.Response)
	case last.StopReason == agent.StopProviderError:
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
		if last.Err != nil {
			res.Errors = append(res.Errors, last.Err.Error())
		}
	}
	return res
}

func reportSetupError(err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "robota: %v\n", err)
	var verr *config.ValidationError
	if errors.Is(err, interactive.ErrNoProvider) || errors.Is(err, interactive.ErrInvalidConfiguration) ||
		errors.As(err, &verr) || errors.Is(err, config.ErrSyntax) ||
		errors.Is(err, llm.ErrConfiguration) || errors.Is(err, registry.ErrUnknownType) {
		return exitConfig
	}
	return exitFailed
}

func resolveCwd(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--cwd %s: %w", dir, err)
	}
	return abs, nil
}

// toolReporter prints tool activity on stderr with --verbose. Messages hooks
// address to the user (systemMessage) are printed in any case, as Claude Code shows them.
func toolReporter(verbose bool, stderr io.Writer) func(session.ToolExecutionEvent) {
	return func(e session.ToolExecutionEvent) {
		if e.Message != "" {
			fmt.Fprintf(stderr, "robota: hook: %s\n", e.Message)
		}
		if !verbose {
			return
		}
		switch {
		case e.Type == session.ToolStart:
			fmt.Fprintf(stderr, "  → %s %s\n", e.ToolName, e.ToolArgs)
		case e.Denied:
			fmt.Fprintf(stderr, "  ✗ %s denied: %s\n", e.ToolName, e.Reason)
		case !e.Success:
			fmt.Fprintf(stderr, "  ✗ %s failed (%s)\n", e.ToolName, e.ErrorCode)
		default:
			fmt.Fprintf(stderr, "  ✓ %s\n", e.ToolName)
		}
	}
}

// maxPipedInput bounds what `cat file | robota -p ...` may add to the prompt.
const maxPipedInput = 10 << 20

// withPipedInput adds piped stdin to the prompt, as `claude -p` does: appended after a
// blank line, or as the whole prompt when prompt is empty. A terminal or /dev/null adds
// nothing. When no byte arrives within wait, it warns on warn and goes on without stdin
// (a pipe that is never written to or closed must not hang the run); once input starts,
// it is read to its end.
func withPipedInput(prompt string, stdin *os.File, wait time.Duration, warn io.Writer) (string, error) {
	st, err := stdin.Stat()
	if err != nil {
		return prompt, nil
	}
	if mode := st.Mode(); mode&(os.ModeNamedPipe|os.ModeSocket) == 0 && !mode.IsRegular() {
		return prompt, nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	data, arrived, err := readWithin(stdin, timer.C)
	if !arrived {
		fmt.Fprintf(warn, "robota: warning: no stdin data received in %s, proceeding without it "+
			"(redirect stdin from /dev/null to skip the wait)\n", wait)
		return prompt, nil
	}
	if err != nil {
		return "", err
	}
	if len(data) > maxPipedInput {
		return "", fmt.Errorf("piped input is over %d MiB", maxPipedInput>>20)
	}
	switch s := strings.TrimSpace(string(data)); {
	case s == "":
		return prompt, nil
	case prompt == "":
		return s, nil
	default:
		return prompt + "\n\n" + s, nil
	}
}

// readWithin reads r to its end (up to maxPipedInput+1 bytes) unless nothing at all, not
// even the end, arrived when timeout fires; then arrived is false and the read goes on in
// the background, its result dropped.
func readWithin(r io.Reader, timeout <-chan time.Time) (data []byte, arrived bool, err error) {
	type result struct {
		data []byte
		err  error
	}
	started := make(chan struct{})
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(&firstByteReader{r: io.LimitReader(r, maxPipedInput+1), started: started})
		done <- result{data, err}
	}()
	select {
	case <-started:
	case res := <-done:
		return res.data, true, res.err
	case <-timeout:
		select { // a first byte that came with the timeout still counts
		case <-started:
		case res := <-done:
			return res.data, true, res.err
		default:
			return nil, false, nil
		}
	}
	res := <-done
	return res.data, true, res.err
}

// firstByteReader closes started when the first byte is read.
type firstByteReader struct {
	r       io.Reader
	started chan struct{}
	seen    bool
}

func (f *firstByteReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 && !f.seen {
		f.seen = true
		close(f.started)
	}
	return n, err
}
