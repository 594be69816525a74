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

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
	"github.com/robota-sdk/robota-go/pkg/runner/pool"
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
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} // SIGINT is os.Interrupt; the var would need an init

// headlessInput reads what every headless run needs from the flags and stdin: the output
// format, the working directory and the prompt. A problem is reported on stderr and ok
// is false (exit 2).
func headlessInput(o Options, stdin *os.File, stderr io.Writer) (format output.Format, cwd, prompt string, ok bool) {
	format, err := output.ParseFormat(o.OutputFormat)
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return format, "", "", false
	}
	if cwd, err = resolveCwd(o.Cwd); err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return format, "", "", false
	}
	if prompt, err = withPipedInput(o.Prompt, stdin, stdinWait, stderr); err != nil {
		fmt.Fprintf(stderr, "robota: read stdin: %v\n", err)
		return format, "", "", false
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(stderr, "robota: -p needs a prompt: pass it as an argument (robota -p \"...\") or pipe it on stdin")
		return format, "", "", false
	}
	return format, cwd, prompt, true
}

// runHeadless runs one prompt in an in-process InteractiveSession (DESIGN.md decision 7:
// robota -p is a thin adapter over it) and renders its events. Ctrl-C, SIGTERM or SIGHUP
// aborts the prompt; the partial answer is kept and saved before the exit.
func runHeadless(ctx context.Context, o Options, stdin *os.File, stdout, stderr io.Writer) int {
	start := time.Now()
	format, cwd, prompt, ok := headlessInput(o, stdin, stderr)
	if !ok {
		return exitConfig
	}
	out := output.New(stdout, format, llm.NewID)
	// Subagents and background commands run in robota-worker processes, launched on the
	// first one (DESIGN.md decision 10).
	workers := pool.New(pool.Launcher(nil, nil))
	defer workers.Close()
	structured, allow, appendPrompt, err := withJSONSchema(o)
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitConfig
	}
	var extraTools []llm.Tool
	if structured != nil {
		extraTools = []llm.Tool{structured}
	}
	opts := sessionOptions(o, cwd, workers)
	opts.Allow, opts.AppendSystemPrompt, opts.Tools = allow, appendPrompt, extraTools
	// Nobody is there to answer a permission question: the call is denied at once and
	// listed in permission_denials.
	opts.Interactive = interactive.InteractiveOptions{NoPrompt: true, Delivery: headlessDelivery}
	s, err := assemble.New(ctx, opts)
	if err != nil {
		return reportSetupError(err, stderr)
	}
	a := assemble.Of(s)
	printWarnings(stderr, a, o.Verbose)
	sess := s.Session()
	out.Init(withListing(output.Init{
		SessionID: sess.ID(), Cwd: cwd, Model: a.Provider.Model, Tools: a.Tools,
		PermissionMode: string(sess.PermissionMode()), APIKeySource: a.Provider.APIKeySource,
		MCPServers: initMCPServers(a), Plugins: initPlugins(a), Sandbox: a.Sandbox,
	}, s))

	// Signals stay caught until the session is saved: a second Ctrl-C cannot cut the save.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	var sig os.Signal
	// A signal while a command runs (/agent parallel waiting for its agents) ends it.
	cmdCtx, endCmd := context.WithCancel(ctx)
	cmdSig := make(chan os.Signal, 1)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case s := <-sigs:
			cmdSig <- s
			endCmd()
		case <-cmdCtx.Done():
		}
	}()
	res, isCommand := slashResult(cmdCtx, s, cwd, &prompt, out)
	endCmd()
	<-watched
	select {
	case sig = <-cmdSig:
	default:
	}
	if !isCommand {
		var end *interactive.Result
		end, sig, err = runPrompt(ctx, s, prompt, sigs, eventPrinter{out: out, verbose: o.Verbose, stderr: stderr,
			partial: newPartialStream(o, out, a.Provider.Model, llm.NewID)})
		res = output.Result{Subtype: output.SubtypeErrorDuringExecution, IsError: true}
		if err != nil { // the prompt was refused, or its events could not be followed
			res.Errors = []string{err.Error()}
		} else {
			res = resultOf(sess, end.Response, end.Err, o.MaxTurns)
			res.StructuredOutput = structured.value()
		}
		res.Model = a.Provider.Model
	}
	res.DurationMS = time.Since(start).Milliseconds()
	closeErr := s.Close(context.Background(), "other")
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
	if sig != nil && o.NoSessionPersistence {
		fmt.Fprintf(stderr, "robota: interrupted (%v); the session was not saved (--no-session-persistence)\n", sig)
		return signalExit(sig)
	}
	return exitStatus(stderr, format, sess.ID(), sig, res, closeErr)
}

// exitStatus reports how a headless run ended and returns its exit status: 128+signal
// after an interruption (the session saved), 1 for a failed run (its errors on stderr in
// text mode) or a session that could not be saved, else 0.
func exitStatus(stderr io.Writer, format output.Format, id string, sig os.Signal, res output.Result, closeErr error) int {
	switch {
	case sig != nil:
		fmt.Fprintf(stderr, "robota: interrupted (%v); session %s saved (resume with --resume %s)\n", sig, id, id)
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

// printWarnings shows the assembly's warnings under --verbose; an MCP server that failed
// to start and a plugin that failed to load are shown always, with the error: the user
// configured them and the session goes on without them.
func printWarnings(stderr io.Writer, a *assemble.Assembled, verbose bool) {
	if verbose {
		for _, w := range a.Warnings {
			fmt.Fprintf(stderr, "robota: warning: %s\n", w)
		}
		return
	}
	for _, s := range a.MCPServers {
		if s.Status == "failed" {
			fmt.Fprintf(stderr, "robota: warning: %s\n", s.Warning())
		}
	}
	for _, p := range a.Plugins {
		if p.Status == "failed" {
			fmt.Fprintf(stderr, "robota: warning: plugin %s not loaded: %s\n", p.ID, p.Error)
		}
	}
}

// initPlugins is system/init's plugins: those that loaded, each with its source as
// Claude Code writes it ("name@marketplace", "name@inline" for a --plugin-dir).
func initPlugins(a *assemble.Assembled) []output.Plugin {
	var out []output.Plugin
	for _, p := range a.Plugins {
		if p.Status == "loaded" {
			source := p.ID
			if !strings.Contains(source, "@") {
				source = p.Name + "@inline"
			}
			out = append(out, output.Plugin{Name: p.Name, Path: p.Path, Source: source})
		}
	}
	return out
}

// withListing adds the session's slash commands, skills, agents and output style to
// system/init: programs offer completions from them.
func withListing(in output.Init, s *interactive.InteractiveSession) output.Init {
	l := s.Listing()
	in.SlashCommands, in.Skills, in.Agents, in.OutputStyle = l.SlashCommands, l.Skills, l.Agents, l.OutputStyle
	return in
}

// initMCPServers is system/init's mcp_servers.
func initMCPServers(a *assemble.Assembled) []output.MCPServer {
	out := make([]output.MCPServer, 0, len(a.MCPServers))
	for _, s := range a.MCPServers {
		out = append(out, output.MCPServer{Name: s.Name, Status: s.Status})
	}
	return out
}

func reportSetupError(err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "robota: %v\n", err)
	var verr *config.ValidationError
	if errors.Is(err, assemble.ErrNoProvider) || errors.Is(err, interactive.ErrInvalidConfiguration) ||
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

// systemPrompt is --system-prompt for assemble.Options: nil when not given.
func systemPrompt(o Options) *string {
	if !o.SystemPromptSet {
		return nil
	}
	return &o.SystemPrompt
}

// withJSONSchema adds --json-schema's StructuredOutput tool (nil without the flag), the
// rule that lets it run unasked, and the instruction to call it.
func withJSONSchema(o Options) (tool *structuredOutput, allow []string, appendPrompt string, err error) {
	if o.JSONSchema == "" {
		return nil, o.AllowedTools, o.AppendSystemPrompt, nil
	}
	if tool, err = newStructuredOutput(o.JSONSchema); err != nil {
		return nil, nil, "", err
	}
	appendPrompt = structuredOutputPrompt
	if o.AppendSystemPrompt != "" {
		appendPrompt = o.AppendSystemPrompt + "\n\n" + appendPrompt
	}
	return tool, append(append([]string(nil), o.AllowedTools...), structuredOutputTool), appendPrompt, nil
}

// sessionOptions are the session options robota's flags give, shared by the -p run and
// the stream-json run.
func sessionOptions(o Options, cwd string, workers *pool.Pool) assemble.Options {
	return assemble.Options{
		Cwd: cwd, Provider: o.Provider, Model: o.Model, Script: o.Script, PermissionMode: o.PermissionMode,
		Allow: o.AllowedTools, Deny: o.DisallowedTools, MaxTurns: o.MaxTurns,
		AppendSystemPrompt: o.AppendSystemPrompt, Resume: o.Resume, Continue: o.Continue, Fork: o.ForkSession,
		SystemPrompt: systemPrompt(o), BuiltinTools: o.Tools, AddDirs: o.AddDirs, SettingSources: o.SettingSources,
		PluginDirs: o.PluginDirs,
		Settings:   o.Settings, SessionID: o.SessionID, NoPersistence: o.NoSessionPersistence,
		FallbackModel: o.FallbackModel, MaxThinkingTokens: o.MaxThinkingTokens, Betas: o.Betas,
		MCPConfigs: o.MCPConfig, StrictMCPConfig: o.StrictMCPConfig,
		Name: o.Name, Agents: o.Agents,
		Runner: workers,
	}
}
