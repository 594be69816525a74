package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/robota-sdk/robota-go/pkg/runner/worker"
	"github.com/robota-sdk/robota-go/pkg/version"
)

// WorkerSubcommand is the hidden first argument that turns robota into a worker.
const WorkerSubcommand = "__worker"

// Options are robota's parsed flags (DESIGN.md §Contracts).
type Options struct {
	Prompt             string
	OutputFormat       string
	Model              string
	Provider           string
	PermissionMode     string
	AllowedTools       []string
	DisallowedTools    []string
	MaxTurns           int
	Resume             string
	Continue           bool
	ForkSession        bool
	Cwd                string
	AppendSystemPrompt string
	Engine             string
	Verbose            bool
	ShowVersion        bool
	Script             string
}

const usageHead = `robota — a coding agent in your terminal, backed by the robota engine.

Usage:
  robota [flags]              interactive session (coming with the TUI)
  robota -p PROMPT [flags]    headless run: print the answer and exit
  robota providers            list the provider types and how to configure them
  robota --version

Flags:
`

// ParseFlags parses robota's arguments.
func ParseFlags(args []string, out io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("robota", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, usageHead)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.Prompt, "p", "", "run PROMPT headless and exit; piped stdin is appended to it")
	fs.StringVar(&o.OutputFormat, "output-format", "text", "headless output: text, json or stream-json")
	fs.StringVar(&o.Model, "model", "", "model id")
	fs.StringVar(&o.Provider, "provider", "", "provider profile or type (anthropic, openai, script, ...)")
	fs.StringVar(&o.PermissionMode, "permission-mode", "", "default, acceptEdits, plan, bypassPermissions or dontAsk")
	fs.Var((*ruleList)(&o.AllowedTools), "allowedTools", "permission rules to allow (repeatable; comma/space separated)")
	fs.Var((*ruleList)(&o.DisallowedTools), "disallowedTools", "permission rules to deny (repeatable; comma/space separated)")
	fs.IntVar(&o.MaxTurns, "max-turns", 0, "maximum model rounds per prompt (0 = no limit)")
	fs.StringVar(&o.Resume, "resume", "", "resume the session with this id")
	fs.BoolVar(&o.Continue, "continue", false, "continue the most recent session in this directory")
	fs.BoolVar(&o.ForkSession, "fork-session", false, "with --resume/--continue: continue in a new session id")
	fs.StringVar(&o.Cwd, "cwd", "", "working directory (default: the current directory)")
	fs.StringVar(&o.AppendSystemPrompt, "append-system-prompt", "", "text appended to the system prompt")
	fs.StringVar(&o.Engine, "engine", "", "attach to a running engine at ADDR instead of running one in-process")
	fs.BoolVar(&o.Verbose, "verbose", false, "verbose output (tool activity and warnings on stderr)")
	fs.StringVar(&o.Script, "script", "", "script file for --provider script (offline runs)")
	fs.BoolVar(&o.ShowVersion, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected arguments %q (quote the prompt: robota -p \"...\")", fs.Args())
	}
	switch o.OutputFormat {
	case "text", "json", "stream-json":
	default:
		return Options{}, fmt.Errorf("--output-format %q: want text, json or stream-json", o.OutputFormat)
	}
	return o, nil
}

// ErrNotYetAvailable marks a mode this build cannot run yet.
var ErrNotYetAvailable = errors.New("not available in this build yet")

// Main runs robota and returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case WorkerSubcommand:
			worker.Serve()
			return 0
		case "providers":
			return listProviders(stdout)
		}
	}
	o, err := ParseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\nRun 'robota --help' for usage.\n", err)
		return 2
	}
	if o.ShowVersion {
		fmt.Fprintf(stdout, "robota %s\n", version.String())
		return 0
	}
	if o.Prompt != "" {
		if o.Engine != "" {
			fmt.Fprintf(stderr, "robota: --engine is %v: headless runs use an in-process engine for now\n", ErrNotYetAvailable)
			return 2
		}
		return runHeadless(context.Background(), o, stdout, stderr)
	}
	fmt.Fprintf(stderr, "robota: the interactive terminal UI is %v; try 'robota --help'\n", ErrNotYetAvailable)
	return 1
}
