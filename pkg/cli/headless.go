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
)

// Exit statuses of a headless run.
const (
	exitOK          = 0
	exitFailed      = 1
	exitConfig      = 2
	exitInterrupted = 130
)

// runHeadless runs one prompt in an in-process session and renders it. Ctrl-C
// (or SIGTERM) aborts the turn; the partial answer is kept and saved.
func runHeadless(ctx context.Context, o Options, stdout, stderr io.Writer) int {
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
	prompt, err := withPipedInput(o.Prompt, os.Stdin)
	if err != nil {
		fmt.Fprintf(stderr, "robota: read stdin: %v\n", err)
		return exitConfig
	}
	out := output.New(stdout, format, llm.NewID)
	a, err := interactive.Assemble(ctx, interactive.Options{
		Cwd: cwd, Provider: o.Provider, Model: o.Model, Script: o.Script, PermissionMode: o.PermissionMode,
		Allow: o.AllowedTools, Deny: o.DisallowedTools, MaxTurns: o.MaxTurns,
		AppendSystemPrompt: o.AppendSystemPrompt, Resume: o.Resume, Continue: o.Continue, Fork: o.ForkSession,
		OnMessage: out.Message,
		Callbacks: session.Callbacks{
			OnCompactEvent:  func(e session.CompactEvent) { out.CompactBoundary(e.Trigger, e.Before.UsedTokens) },
			OnToolExecution: verboseTools(o.Verbose, stderr),
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

	runCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	answer, runErr := sess.Run(runCtx, prompt)
	interrupted := runCtx.Err() != nil && ctx.Err() == nil
	stop()

	res := resultOf(sess, answer, runErr)
	res.DurationMS = time.Since(start).Milliseconds()
	closeErr := a.Close(context.Background(), "other")
	if err := out.Result(res); err != nil {
		fmt.Fprintf(stderr, "robota: write output: %v\n", err)
		return exitFailed
	}
	if closeErr != nil {
		fmt.Fprintf(stderr, "robota: saving session %s: %v\n", sess.ID(), closeErr)
	}
	switch {
	case interrupted:
		fmt.Fprintf(stderr, "robota: interrupted; session %s saved (resume with --resume %s)\n", sess.ID(), sess.ID())
		return exitInterrupted
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

func resultOf(sess *session.Session, answer string, runErr error) output.Result {
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
	if errors.Is(err, interactive.ErrNoProvider) || errors.As(err, &verr) || errors.Is(err, config.ErrSyntax) ||
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

func verboseTools(on bool, stderr io.Writer) func(session.ToolExecutionEvent) {
	if !on {
		return nil
	}
	return func(e session.ToolExecutionEvent) {
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

// withPipedInput appends stdin to the prompt when stdin is a pipe or a file, as
// `claude -p` does; a terminal or /dev/null adds nothing.
func withPipedInput(prompt string, stdin *os.File) (string, error) {
	st, err := stdin.Stat()
	if err != nil {
		return prompt, nil
	}
	if piped := st.Mode()&os.ModeNamedPipe != 0 || st.Mode().IsRegular(); !piped {
		return prompt, nil
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxPipedInput+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxPipedInput {
		return "", fmt.Errorf("piped input is over %d MiB", maxPipedInput>>20)
	}
	if s := strings.TrimSpace(string(data)); s != "" {
		return prompt + "\n\n" + s, nil
	}
	return prompt, nil
}
