package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/version"
)

// Claude Code's flags (issue 13 §2): programs that drive `claude` as a subprocess (the
// Agent SDKs, editor adapters) pass them, so robota accepts every one with Claude Code's
// meaning. A flag robota cannot honour yet is accepted, recorded in Options.NoEffect and
// named once on stderr under --verbose: never silently misread. README.md has the table.

// claudeFlags registers the Claude Code flags and aliases beside robota's own.
func claudeFlags(fs *flag.FlagSet, o *Options) {
	fs.StringVar(&o.Prompt, "print", "", "alias of -p")
	fs.BoolVar(&o.Continue, "c", false, "alias of --continue")
	fs.StringVar(&o.Resume, "r", "", "alias of --resume")
	fs.BoolVar(&o.ShowVersion, "v", false, "alias of --version")
	fs.Var((*ruleList)(&o.AllowedTools), "allowed-tools", "alias of --allowedTools")
	fs.Var((*ruleList)(&o.DisallowedTools), "disallowed-tools", "alias of --disallowedTools")
	fs.StringVar(&o.SystemPrompt, "system-prompt", "", "replace the system prompt (\"\" for none); --append-system-prompt still appends")
	fs.BoolVar(&o.DangerouslySkipPermissions, "dangerously-skip-permissions", false, "bypass every permission check (= --permission-mode bypassPermissions)")
	fs.BoolVar(&o.AllowDangerouslySkipPermissions, "allow-dangerously-skip-permissions", false, "let the session switch to bypassPermissions later")
	fs.Var(&splitList{vals: &o.Tools}, "tools", "built-in tools offered: \"\" none, \"default\" all, or names (comma/space separated)")
	fs.StringVar(&o.SessionID, "session-id", "", "UUID of the new session (must not exist yet)")
	fs.Var(&splitList{vals: &o.SettingSources}, "setting-sources", "settings files read: comma-separated user, project, local (\"\" none)")
	fs.StringVar(&o.Settings, "settings", "", "settings file or JSON object, read above the settings files")
	fs.Var((*repeated)(&o.AddDirs), "add-dir", "additional directory the tools may use (repeatable)")
	fs.Var((*repeated)(&o.PluginDirs), "plugin-dir", "load the plugin in this directory for this session only (repeatable)")
	fs.Var((*repeated)(&o.MCPConfig), "mcp-config", "MCP servers from a JSON file or string (repeatable)")
	fs.BoolVar(&o.StrictMCPConfig, "strict-mcp-config", false, "use only the MCP servers of --mcp-config")
	fs.StringVar(&o.FallbackModel, "fallback-model", "", "model to fall back to when the model is overloaded")
	fs.IntVar(&o.MaxThinkingTokens, "max-thinking-tokens", 0, "thinking budget in tokens")
	fs.BoolVar(&o.NoSessionPersistence, "no-session-persistence", false, "do not save the session")
	fs.BoolVar(&o.IncludeHookEvents, "include-hook-events", false, "stream-json: include hook lifecycle events")
	fs.StringVar(&o.JSONSchema, "json-schema", "", "JSON Schema of a structured result")
	fs.Float64Var(&o.MaxBudgetUSD, "max-budget-usd", 0, "stop when the run has cost this many dollars")
	fs.StringVar(&o.Debug, "debug", "", "debug mode, with an optional category filter")
	fs.StringVar(&o.Debug, "d", "", "alias of --debug")
	fs.Var(&splitList{vals: &o.Betas}, "betas", "beta headers of API requests (comma separated)")
	// §1 (stream-json input and the control protocol) drives these four.
	fs.StringVar(&o.InputFormat, "input-format", "text", "headless input: text or stream-json (user messages and control requests on stdin)")
	fs.BoolVar(&o.IncludePartialMessages, "include-partial-messages", false, "stream-json: add stream_event lines as the answer streams")
	fs.BoolVar(&o.ReplayUserMessages, "replay-user-messages", false, "stream-json input: echo the user lines read")
	fs.StringVar(&o.PermissionPromptTool, "permission-prompt-tool", "", "stdio: ask the stream-json client (can_use_tool) about calls that need approval")
}

// The flag tables are switches, not maps, and the expressions compile on first use: a
// map literal or regexp.MustCompile needs a package init, which robota pays on every
// command (issue 29).

// optionalValue reports the flags whose value may be left out, as Claude Code's [value]:
// -p/--print (the prompt then follows the flags or comes from stdin), -r/--resume and
// -d/--debug.
func optionalValue(name string) bool {
	switch name {
	case "p", "print", "r", "resume", "d", "debug",
		"from-pr", "prompt-suggestions", "remote-control", "tmux", "worktree", "w":
		return true
	}
	return false
}

// noEffect says why a Claude Code flag changes nothing in robota (yet); such a flag is
// named once on stderr under --verbose.
func noEffect(name string) (why string, ok bool) {
	switch name {
	case "include-hook-events":
		return "robota's stream-json output has no hook events yet", true
	case "max-budget-usd":
		return "robota does not track cost yet", true
	case "debug":
		return "robota has no debug log; --verbose shows tool activity and warnings", true
	case "allow-dangerously-skip-permissions":
		return "bypassPermissions is always available in robota", true
	}
	return "", false
}

// canonical returns the flag an alias stands for.
func canonical(name string) (string, bool) {
	switch name {
	case "print":
		return "p", true
	case "c":
		return "continue", true
	case "r":
		return "resume", true
	case "v":
		return "version", true
	case "allowed-tools":
		return "allowedTools", true
	case "disallowed-tools":
		return "disallowedTools", true
	case "d":
		return "debug", true
	case "n":
		return "name", true
	case "w":
		return "worktree", true
	case "bg":
		return "background", true
	case "plugin-dir-no-mcp":
		return "plugin-dir", true
	}
	return "", false
}

// engineUnsupported are flags robota --engine cannot carry to the engine yet.
var engineUnsupported = []string{"system-prompt", "tools", "session-id", "setting-sources", "settings", "add-dir",
	"no-session-persistence", "fallback-model", "json-schema", "max-thinking-tokens",
	"betas", "mcp-config", "strict-mcp-config", "plugin-dir", "agents", "name", "thinking"}

// sessionIDPattern is a UUID, as Claude Code requires of --session-id.
var sessionIDPattern = lazy.NewRegexp(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// finishClaudeFlags checks the Claude Code flags that were given (set holds the canonical
// names) and derives what they drive.
func finishClaudeFlags(o *Options, set map[string]bool) error {
	o.SystemPromptSet = set["system-prompt"]
	o.DebugSet = set["debug"]
	if !set["tools"] {
		o.Tools = nil
	} else if len(o.Tools) == 1 && o.Tools[0] == "default" {
		o.Tools = nil // every built-in tool, as without the flag
	} else if o.Tools == nil {
		o.Tools = []string{} // --tools "": none
	}
	if set["setting-sources"] {
		if o.SettingSources == nil {
			o.SettingSources = []string{}
		}
		for _, s := range o.SettingSources {
			if _, ok := config.SourceNames()[s]; !ok {
				return fmt.Errorf("--setting-sources: unknown source %q (want user, project or local)", s)
			}
		}
	}
	if set["session-id"] && !sessionIDPattern.MatchString(o.SessionID) {
		return fmt.Errorf("--session-id %q: not a valid UUID", o.SessionID)
	}
	if o.DangerouslySkipPermissions {
		o.PermissionMode = "bypassPermissions"
	}
	switch o.InputFormat {
	case "text", "stream-json":
	default:
		return fmt.Errorf("--input-format %q: want text or stream-json", o.InputFormat)
	}
	if set["json-schema"] && !json.Valid([]byte(o.JSONSchema)) {
		return fmt.Errorf("--json-schema: not valid JSON")
	}
	if set["max-budget-usd"] && o.MaxBudgetUSD <= 0 {
		return fmt.Errorf("--max-budget-usd %v: want a positive amount", o.MaxBudgetUSD)
	}
	if o.FallbackModel != "" && o.FallbackModel == o.Model {
		return errors.New("--fallback-model is the same as --model: name another model")
	}
	if o.Engine != "" {
		for _, name := range engineUnsupported {
			if set[name] {
				return fmt.Errorf("--%s is not supported with --engine yet", name)
			}
		}
	}
	for _, name := range sortedFlagNames(set) {
		if why, ok := noEffect(name); ok {
			o.NoEffect = append(o.NoEffect, fmt.Sprintf("--%s has no effect in robota (%s)", name, why))
		}
	}
	return nil
}

// versionLine is what -v and --version print: Claude Code's "X.Y.Z (Claude Code)" shape,
// which clients parse. A build without a release tag is 0.0.0-<what it has>.
func versionLine() string {
	v := strings.TrimPrefix(version.String(), "v")
	if !semverPrefix.MatchString(v) { // "dev", a commit hash
		v = "0.0.0-" + v
	}
	return v + " (robota)"
}

var semverPrefix = lazy.NewRegexp(`^\d+\.\d+\.\d+`)

// UnknownFlagError is a flag robota does not have. Main prints it as one line, without
// the usage text.
type UnknownFlagError struct{ Arg string }

func (e *UnknownFlagError) Error() string { return fmt.Sprintf("unknown option '%s'", e.Arg) }

// unknownFlag turns the flag package's "flag provided but not defined: -name" into an
// UnknownFlagError naming the argument as it was typed.
func unknownFlag(err error, args []string) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	for _, a := range args {
		if n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); n == name && strings.HasPrefix(a, "-") {
			return &UnknownFlagError{Arg: a}
		}
	}
	return &UnknownFlagError{Arg: "--" + name}
}

// looksLikeFlag is an argument shaped like an option (-x, --name, --name=value): after a
// flag whose value is optional it is the next option, never the value, whether robota
// knows it or not (an unknown one is then reported, not taken for a prompt).
var looksLikeFlag = lazy.NewRegexp(`^--?[A-Za-z][A-Za-z0-9-]*(=.*)?$`)

// splitList is a repeatable flag whose values are split at commas and spaces.
type splitList struct{ vals *[]string }

func (l *splitList) String() string {
	if l.vals == nil {
		return ""
	}
	return strings.Join(*l.vals, ",")
}

func (l *splitList) Set(v string) error {
	*l.vals = append(*l.vals, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })...)
	return nil
}

// repeated is a repeatable flag keeping each value whole (paths, JSON).
type repeated []string

func (r *repeated) String() string { return strings.Join(*r, " ") }

func (r *repeated) Set(v string) error {
	*r = append(*r, v)
	return nil
}

func sortedFlagNames(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
