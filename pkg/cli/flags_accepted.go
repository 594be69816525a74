package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
)

// The rest of Claude Code's flags: those in `claude --help` (2.1.197) and those the
// published clients pass (the Agent SDK 0.2 and 0.3 lines, the editor adapters built on
// them, the community SDKs). Each is accepted with Claude Code's argument shape; what it
// does here is in its usage line, and a flag that changes nothing is recorded in
// Options.NoEffect with why (named under --verbose).

// acceptedFlag is a Claude Code flag robota takes without acting on it.
type acceptedFlag struct {
	name  string
	shape flagShape
	why   string
}

// flagShape is how a flag takes its argument, as Claude Code's option parser does.
type flagShape uint8

const (
	shapeBool     flagShape = iota // --flag
	shapeValue                     // --flag VALUE
	shapeOptional                  // --flag [VALUE]
	shapeVariadic                  // --flag VALUE... (values up to the next option)
)

var acceptedFlags = []acceptedFlag{
	{"agent", shapeValue, "the main thread runs robota's own prompt; agent types are used through the Agent tool"},
	{"ax-screen-reader", shapeBool, "a TUI rendering option"},
	{"bg", shapeBool, "robota has no background sessions; the run is in the foreground"},
	{"background", shapeBool, "robota has no background sessions; the run is in the foreground"},
	{"bare", shapeBool, "robota's minimal mode is --setting-sources \"\" with --strict-mcp-config"},
	{"brief", shapeBool, "robota has no SendUserMessage tool"},
	{"chrome", shapeBool, "robota has no browser integration"},
	{"no-chrome", shapeBool, "robota has no browser integration"},
	{"ide", shapeBool, "robota has no IDE connection"},
	{"debug-file", shapeValue, "robota has no debug log; --verbose shows tool activity and warnings"},
	{"debug-to-stderr", shapeBool, "robota has no debug log; --verbose shows tool activity and warnings"},
	{"disable-slash-commands", shapeBool, "skills stay available"},
	{"exclude-dynamic-system-prompt-sections", shapeBool, "robota's system prompt has no per-machine cache split"},
	{"file", shapeVariadic, "robota does not download Files API resources"},
	{"from-pr", shapeOptional, "sessions are not linked to pull requests"},
	{"plugin-url", shapeValue, "plugins are not fetched from URLs; use --plugin-dir or robota plugin install"},
	{"prompt-suggestions", shapeOptional, "robota emits no prompt_suggestion messages"},
	{"remote-control", shapeOptional, "robota has no Remote Control"},
	{"remote-control-session-name-prefix", shapeValue, "robota has no Remote Control"},
	{"safe-mode", shapeBool, "use --setting-sources \"\" and --strict-mcp-config to run without customizations"},
	{"tmux", shapeOptional, "robota does not create tmux sessions"},
	{"worktree", shapeOptional, "the session runs in the current checkout (subagents take isolation: worktree)"},
	{"w", shapeOptional, "the session runs in the current checkout (subagents take isolation: worktree)"},
	{"effort", shapeValue, "robota's providers take no effort level"},
	{"thinking-display", shapeValue, "thinking is shown as the provider sends it"},
	{"task-budget", shapeValue, "robota does not track a task token budget"},
	{"permission-prompts", shapeValue, "permission questions go through --permission-prompt-tool stdio"},
	{"channels", shapeValue, "robota has no channels"},
	{"session-mirror", shapeBool, "robota does not mirror sessions"},
	{"await-initialize", shapeBool, "robota reads initialize whenever it comes, before or after user messages"},
	{"resume-session-at", shapeValue, "a resumed session continues from its last message"},
	{"resume-drops-turn", shapeValue, "a resumed session keeps every turn"},
	{"managed-settings", shapeValue, "robota reads no managed (policy) settings; use --settings"},
	{"sdk-url", shapeValue, "robota is not a Remote Control worker"},
}

// effortLevels and thinkingModes are Claude Code's choices for --effort and --thinking.
var (
	effortLevels    = []string{"low", "medium", "high", "xhigh", "max"}
	thinkingModes   = []string{"enabled", "adaptive", "disabled"}
	thinkingDisplay = []string{"summarized", "omitted"}
)

// acceptedValues holds what the accepted flags were given, for the checks Claude Code
// makes on them.
type acceptedValues struct {
	values map[string]*string
}

// registerAccepted adds the accepted flags, the implemented newer ones and their aliases.
func registerAccepted(fs *flag.FlagSet, o *Options) *acceptedValues {
	av := &acceptedValues{values: map[string]*string{}}
	for _, f := range acceptedFlags {
		usage := "accepted, no effect: " + f.why
		switch f.shape {
		case shapeBool:
			fs.Bool(f.name, false, usage)
		case shapeVariadic:
			fs.Var(new(repeated), f.name, usage)
		default:
			v := new(string)
			av.values[f.name] = v
			fs.StringVar(v, f.name, "", usage)
		}
	}
	fs.StringVar(&o.Name, "name", "", "display name of the session (as /rename; --resume NAME finds it)")
	fs.StringVar(&o.Name, "n", "", "alias of --name")
	fs.StringVar(&o.AgentsJSON, "agents", "", `agent types for the Agent tool, as JSON: {"name": {"description", "prompt", "tools", "model"}}`)
	fs.StringVar(&o.systemPromptFile, "system-prompt-file", "", "replace the system prompt with this file's text")
	fs.StringVar(&o.appendSystemPromptFile, "append-system-prompt-file", "", "append this file's text to the system prompt")
	fs.Var((*repeated)(&o.PluginDirs), "plugin-dir-no-mcp", "as --plugin-dir (the plugin's MCP servers are started too)")
	fs.StringVar(&o.Thinking, "thinking", "", "enabled, adaptive or disabled: disabled sends no thinking budget, even with --max-thinking-tokens")
	return av
}

// finishAccepted checks the accepted flags as Claude Code does and records what they
// change (set holds the canonical names of the flags given).
func finishAccepted(o *Options, av *acceptedValues, set map[string]bool) error {
	if set["resume-session-at"] && o.Resume == "" {
		return errors.New("--resume-session-at requires --resume")
	}
	if set["thinking"] && !oneOf(o.Thinking, thinkingModes) {
		return fmt.Errorf("--thinking %q: want one of %s", o.Thinking, strings.Join(thinkingModes, ", "))
	}
	if v := av.values["thinking-display"]; set["thinking-display"] && !oneOf(*v, thinkingDisplay) {
		return fmt.Errorf("--thinking-display %q: want one of %s", *v, strings.Join(thinkingDisplay, ", "))
	}
	if v := av.values["effort"]; set["effort"] && !oneOf(*v, effortLevels) {
		// Claude Code warns and goes on with its default effort.
		o.Warnings = append(o.Warnings, fmt.Sprintf("unknown --effort value %q, ignored (valid: %s)", *v, strings.Join(effortLevels, ", ")))
	}
	switch o.Thinking {
	case "disabled":
		o.MaxThinkingTokens = 0
	case "enabled", "adaptive":
		if o.MaxThinkingTokens == 0 {
			o.NoEffect = append(o.NoEffect, "--thinking "+o.Thinking+" has no effect in robota without --max-thinking-tokens (its providers need a budget)")
		}
	}
	if o.PermissionMode == "auto" {
		// Claude Code's auto mode lets a classifier approve calls; robota has none, so
		// it asks as default does (never more permissive than asked for).
		o.PermissionMode = "default"
		o.NoEffect = append(o.NoEffect, "--permission-mode auto runs as default in robota (it has no approval classifier)")
	}
	if set["system-prompt-file"] {
		if set["system-prompt"] {
			return errors.New("--system-prompt and --system-prompt-file cannot be used together")
		}
		text, err := readFlagFile("system-prompt-file", o.systemPromptFile)
		if err != nil {
			return err
		}
		o.SystemPrompt, o.SystemPromptSet = text, true
	}
	if set["append-system-prompt-file"] {
		text, err := readFlagFile("append-system-prompt-file", o.appendSystemPromptFile)
		if err != nil {
			return err
		}
		o.AppendSystemPrompt = strings.TrimSpace(strings.TrimSpace(o.AppendSystemPrompt) + "\n\n" + text)
	}
	if set["agents"] {
		var agents map[string]sdkAgent
		if err := json.Unmarshal([]byte(o.AgentsJSON), &agents); err != nil {
			return fmt.Errorf("--agents: not a JSON object of agent definitions: %w", err)
		}
		for name, a := range agents {
			if strings.TrimSpace(a.Description) == "" || strings.TrimSpace(a.Prompt) == "" {
				return fmt.Errorf("--agents: agent %q needs a description and a prompt", name)
			}
		}
		o.Agents = sdkAgents(agents)
	}
	for _, f := range acceptedFlags {
		if set[f.name] {
			o.NoEffect = append(o.NoEffect, fmt.Sprintf("--%s has no effect in robota (%s)", f.name, f.why))
		}
	}
	return nil
}

func readFlagFile(flagName, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--%s: %w", flagName, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

// variadicFlags reports the flags that take every following argument up to the next option, as Claude Code's
// `<values...>` options do: `--add-dir a b`, `--mcp-config one.json two.json`.
func variadicFlags(name string) bool {
	switch name {
	case "add-dir", "allowedTools", "allowed-tools",
		"disallowedTools", "disallowed-tools", "betas", "mcp-config", "tools", "file":
		return true
	}
	return false
}

// isOptionLike is Claude Code's test for "this argument is an option, not a value":
// longer than one character and starting with a dash. "" and "-" are values.
func isOptionLike(arg string) bool { return len(arg) > 1 && arg[0] == '-' }
