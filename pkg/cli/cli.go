package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
)

// Options are robota's parsed flags (DESIGN.md §Contracts).
type Options struct {
	// Print is set when -p was given: a headless run, even with an empty prompt (piped
	// stdin then is the prompt).
	Print           bool
	Prompt          string
	OutputFormat    string
	Model           string
	Provider        string
	PermissionMode  string
	AllowedTools    []string
	DisallowedTools []string
	MaxTurns        int
	Resume          string
	// PickSession: --resume without an id at a terminal opens the session picker.
	PickSession        bool
	Continue           bool
	ForkSession        bool
	Cwd                string
	AppendSystemPrompt string
	Engine             string
	Verbose            bool
	ShowVersion        bool
	Script             string
	// EngineTLS are the client TLS files of --engine tcp:// (engine_client.go).
	EngineTLS client.TLSFiles

	// Claude Code's flags (flags.go). SystemPrompt replaces the system prompt when
	// SystemPromptSet ("" then means none).
	SystemPrompt                    string
	SystemPromptSet                 bool
	DangerouslySkipPermissions      bool
	AllowDangerouslySkipPermissions bool
	// Tools is --tools: nil offers every built-in tool, empty none.
	Tools     []string
	SessionID string
	// SettingSources is --setting-sources: nil reads every settings file, empty none.
	SettingSources []string
	// Settings is --settings: a settings file or a JSON object.
	Settings             string
	AddDirs              []string
	PluginDirs           []string
	MCPConfig            []string
	StrictMCPConfig      bool
	FallbackModel        string
	MaxThinkingTokens    int
	NoSessionPersistence bool
	IncludeHookEvents    bool
	JSONSchema           string
	MaxBudgetUSD         float64
	// Debug is --debug's category filter; DebugSet says the flag was given.
	Debug    string
	DebugSet bool
	Betas    []string
	// InputFormat (text or stream-json), IncludePartialMessages, ReplayUserMessages and
	// PermissionPromptTool are driven by the stream-json input and control protocol.
	InputFormat            string
	IncludePartialMessages bool
	ReplayUserMessages     bool
	PermissionPromptTool   string
	// Name is -n/--name, the session's display name.
	Name string
	// AgentsJSON is --agents; Agents are its agent types.
	AgentsJSON string
	Agents     []agentdef.Definition
	// Thinking is --thinking: enabled, adaptive or disabled.
	Thinking                                 string
	systemPromptFile, appendSystemPromptFile string
	// NoEffect names the given flags robota accepts but cannot honour yet, with why;
	// printed on stderr under --verbose.
	NoEffect []string
	// Warnings are printed on stderr whatever --verbose says: what the user gave was
	// accepted but partly ignored (extra arguments, an unknown --effort).
	Warnings []string
}

const usageHead = `robota — a coding agent in your terminal, backed by the robota engine.

Usage:
  robota [flags] [PROMPT]     interactive session in the terminal UI (PROMPT: its first prompt)
  robota -p PROMPT [flags]    headless run: print the answer and exit (--print is -p)
  robota -p [flags] PROMPT    the same (the prompt may follow the flags, as with claude -p)
  CMD | robota -p [PROMPT]    piped stdin is the prompt, or is appended to it
  robota providers            list the provider types and how to configure them
  robota plugin COMMAND       marketplaces and plugins (robota plugin --help)
  robota --version            (or -v)

Claude Code's flags are accepted with its meaning; the README lists what each does here.

Flags:
`

// ParseFlags parses robota's arguments.
func ParseFlags(args []string, out io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("robota", flag.ContinueOnError)
	// Errors are returned, never printed with the whole usage: an unknown flag is one line.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.Prompt, "p", "", "run PROMPT headless and exit; piped stdin is appended to it (or is the prompt)")
	fs.StringVar(&o.OutputFormat, "output-format", "text", "headless output: text, json or stream-json")
	fs.StringVar(&o.Model, "model", "", "model id")
	fs.StringVar(&o.Provider, "provider", "", "provider profile or type (anthropic, openai, script, ...)")
	fs.StringVar(&o.PermissionMode, "permission-mode", "", "default, acceptEdits, plan, bypassPermissions or dontAsk")
	fs.Var((*ruleList)(&o.AllowedTools), "allowedTools", "permission rules to allow (repeatable; comma/space separated)")
	fs.Var((*ruleList)(&o.DisallowedTools), "disallowedTools", "permission rules to deny (repeatable; comma/space separated)")
	fs.IntVar(&o.MaxTurns, "max-turns", 0, "maximum model rounds per prompt (0 = no limit)")
	fs.StringVar(&o.Resume, "resume", "", "resume the session with this id or name (/rename)")
	fs.BoolVar(&o.Continue, "continue", false, "continue the most recent session in this directory")
	fs.BoolVar(&o.ForkSession, "fork-session", false, "with --resume/--continue: continue in a new session id")
	fs.StringVar(&o.Cwd, "cwd", "", "working directory (default: the current directory)")
	fs.StringVar(&o.AppendSystemPrompt, "append-system-prompt", "", "text appended to the system prompt")
	fs.StringVar(&o.Engine, "engine", "", "run in the engine at ADDR (unix:///ABS/PATH or tcp://HOST:PORT) instead of in-process")
	fs.BoolVar(&o.Verbose, "verbose", false, "verbose output (tool activity and warnings on stderr)")
	fs.StringVar(&o.Script, "script", "", "script file for --provider script (offline runs)")
	fs.BoolVar(&o.ShowVersion, "version", false, "print the version and exit")
	engineFlags(fs, &o)
	claudeFlags(fs, &o)
	accepted := registerAccepted(fs, &o)
	positional, err := parseInterspersed(fs, withOptionalValues(fs, args))
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(out, usageHead)
		fs.SetOutput(out)
		fs.PrintDefaults()
		return Options{}, err
	}
	if err != nil {
		return Options{}, unknownFlag(err, args)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		name := f.Name
		if c, ok := canonical(name); ok {
			name = c
		}
		set[name] = true
	})
	o.Print = set["p"]
	if set["resume"] && strings.TrimSpace(o.Resume) == "" {
		if !o.Print && o.Prompt == "" {
			o.PickSession = true // at a terminal: the picker, as claude --resume
		} else {
			// Running a new session instead would lose the one the user meant to continue.
			return Options{}, errors.New("--resume needs a session id (use --continue for the latest session)")
		}
	}
	// Claude Code takes the first argument as the prompt and ignores the rest; an empty
	// one (an adapter's trailing '') is no prompt: stdin or stream-json input gives it.
	positional = slices.DeleteFunc(positional, func(a string) bool { return a == "" })
	if len(positional) > 0 && o.Prompt == "" {
		o.Prompt, positional = positional[0], positional[1:]
	}
	if len(positional) > 0 {
		o.Warnings = append(o.Warnings, fmt.Sprintf("ignoring extra arguments %q: the prompt is %q (quote a prompt of several words: robota -p \"...\")", positional, o.Prompt))
	}
	if err := checkEngineFlags(o); err != nil {
		return Options{}, err
	}
	if o.ForkSession && o.Resume == "" && !o.Continue {
		return Options{}, errors.New("--fork-session needs --resume ID or --continue: there is no session to fork")
	}
	switch o.OutputFormat {
	case "text", "json", "stream-json":
	default:
		return Options{}, fmt.Errorf("--output-format %q: want text, json or stream-json", o.OutputFormat)
	}
	if err := finishClaudeFlags(&o, set); err != nil {
		return Options{}, err
	}
	if err := finishAccepted(&o, accepted, set); err != nil {
		return Options{}, err
	}
	if err := checkInputFlags(o); err != nil {
		return Options{}, err
	}
	return o, nil
}

// ErrNotYetAvailable marks a mode this build cannot run yet.
var ErrNotYetAvailable = errors.New("not available in this build yet")

// Main runs robota and returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	return mainWith(args, os.Stdin, stdout, stderr)
}

// mainWith is Main reading piped input from stdin.
func mainWith(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "providers":
			return listProviders(stdout)
		case "plugin", "plugins":
			return runPlugin(args[1:], stdout, stderr)
		}
	}
	o, err := ParseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v (robota --help lists the flags)\n", err)
		return 2
	}
	if o.ShowVersion {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	for _, w := range o.Warnings {
		fmt.Fprintf(stderr, "robota: warning: %s\n", w)
	}
	if o.Verbose {
		for _, n := range o.NoEffect {
			fmt.Fprintf(stderr, "robota: %s\n", n)
		}
	}
	if o.InputFormat == "stream-json" {
		return runStreamJSON(context.Background(), o, stdin, stdout, stderr)
	}
	if o.Print {
		if o.Engine != "" {
			return runEngineHeadless(context.Background(), o, stdin, stdout, stderr)
		}
		return runHeadless(context.Background(), o, stdin, stdout, stderr)
	}
	return runInteractive(context.Background(), o, stdin, stdout, stderr)
}

// withOptionalValues lets -p/--print, -r/--resume and -d/--debug stand without a value, as
// Claude Code's do: such a flag at the end of the arguments or followed by another flag
// (known or shaped like one) or "--" gets the empty value, so for -p piped stdin or a
// prompt after the flags supplies the prompt. Followed by anything else it takes it as its
// value, as before. Values of the other flags are skipped, never taken for flags.
func withOptionalValues(fs *flag.FlagSet, args []string) []string {
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		name, hasValue, ok := flagName(fs, out[i])
		switch {
		case out[i] == "--":
			return out
		case !ok || hasValue:
		case optionalValue(name):
			if next := i + 1; next == len(out) || out[next] == "--" || isFlag(fs, out[next]) || looksLikeFlag.MatchString(out[next]) {
				out[i] += "="
			} else {
				i++ // the value
			}
		case variadicFlags(name):
			if !hasValue {
				i++ // the first value, whatever it looks like
			}
			// The values after it, up to the next option, are the flag's too: spelled
			// as the flag repeated.
			for i+1 < len(out) && out[i+1] != "--" && !isOptionLike(out[i+1]) {
				i++
				out[i] = "--" + name + "=" + out[i]
			}
		case !isBoolFlag(fs.Lookup(name)):
			i++ // the flag's value
		}
	}
	return out
}

// flagName parses "-name", "--name" or "-name=value" naming a flag of fs.
func flagName(fs *flag.FlagSet, arg string) (name string, hasValue, ok bool) {
	if len(arg) < 2 || arg[0] != '-' || arg == "--" {
		return "", false, false
	}
	name, _, hasValue = strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
	return name, hasValue, fs.Lookup(name) != nil
}

func isFlag(fs *flag.FlagSet, arg string) bool {
	_, _, ok := flagName(fs, arg)
	return ok
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parseInterspersed parses flags anywhere among the arguments (the flag package stops at
// the first non-flag) and returns the non-flag arguments in order; everything after "--"
// is a non-flag argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
