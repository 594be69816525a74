package commands

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Result is what a command returns: Message for the user, Success, and Data for
// clients (the side effects and the figures behind the message).
type Result struct {
	Message string         `json:"message"`
	Success bool           `json:"success"`
	Data    map[string]any `json:"data,omitempty"`
}

// PromptKey in a Result's Data marks a command that expands into a prompt for the model
// (a skill or custom command the user invoked): front ends submit Data[PromptKey]
// instead of showing the message.
const PromptKey = "prompt"

// Handler runs a command with its argument string (what follows the name).
type Handler func(ctx context.Context, args string) Result

// Command is one slash command.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// ArgumentHint shows the arguments, e.g. "[instructions]".
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Source is the source's name: "builtin", "skill", "plugin".
	Source string `json:"source"`
	// Plugin is the contributing plugin; its commands are also reachable as plugin:name.
	Plugin string `json:"plugin,omitempty"`
	// Subcommands are the choices of the first argument (mode names, model aliases).
	Subcommands []string `json:"subcommands,omitempty"`
	// ModelInvocable: the model may run it (the SlashCommand tool). UserInvocable: a
	// user may (the slash menu, ExecuteCommand); false hides it from the user.
	ModelInvocable bool `json:"modelInvocable"`
	UserInvocable  bool `json:"userInvocable"`
	// Safety is what running it may do, at most; SafetyFor, when set, says it for one
	// run by its arguments (/memory list reads, /memory add writes).
	Safety    Safety                   `json:"safety,omitempty"`
	SafetyFor func(args string) Safety `json:"-"`
	Run       Handler                  `json:"-"`
}

// Safety is the spec's capability safety of a command (TCapabilitySafety).
type Safety string

// The capability safety classes.
const (
	SafetyReadOnly        Safety = "read-only"
	SafetyWrite           Safety = "write"
	SafetyProcess         Safety = "process"
	SafetyNetwork         Safety = "network"
	SafetyBackgroundAgent Safety = "background-agent"
)

// SafetyOf is the safety of running c with args: SafetyFor's answer, else Safety.
func (c Command) SafetyOf(args string) Safety {
	if c.SafetyFor != nil {
		if s := c.SafetyFor(args); s != "" {
			return s
		}
	}
	return c.Safety
}

// QualifiedName is plugin:name for a plugin's command, else the name.
func (c Command) QualifiedName() string {
	if c.Plugin != "" {
		return c.Plugin + ":" + c.Name
	}
	return c.Name
}

// Source contributes commands; skill and plugin sources implement it too.
type Source interface {
	Name() string
	Commands() []Command
}

// Static is a Source over a fixed list (the built-ins).
type Static struct {
	SourceName string
	List       []Command
}

func (s Static) Name() string        { return s.SourceName }
func (s Static) Commands() []Command { return s.List }

// Registry aggregates sources in priority order.
type Registry struct{ sources []Source }

// NewRegistry returns a registry over sources, the first one winning a bare name.
func NewRegistry(sources ...Source) *Registry { return &Registry{sources: sources} }

// Add appends a source of lower priority.
func (r *Registry) Add(s Source) { r.sources = append(r.sources, s) }

// all is every command, bare names deduplicated by priority.
func (r *Registry) all() []Command {
	seen := map[string]bool{}
	var out []Command
	for _, src := range r.sources {
		for _, c := range src.Commands() {
			if c.Source == "" {
				c.Source = src.Name()
			}
			key := c.QualifiedName()
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, c)
		}
	}
	return out
}

// List returns the user-invocable commands whose name or qualified name starts with
// prefix (the user's menu).
func (r *Registry) List(prefix string) []Command {
	prefix = strings.TrimPrefix(strings.TrimSpace(prefix), "/")
	var out []Command
	for _, c := range r.all() {
		if c.UserInvocable && (strings.HasPrefix(c.Name, prefix) || strings.HasPrefix(c.QualifiedName(), prefix)) {
			out = append(out, c)
		}
	}
	sortByName(out)
	return out
}

// ModelCommands returns the model-invocable commands, sorted by qualified name.
func (r *Registry) ModelCommands() []Command {
	var out []Command
	for _, c := range r.all() {
		if c.ModelInvocable {
			out = append(out, c)
		}
	}
	sortByName(out)
	return out
}

func sortByName(cs []Command) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].QualifiedName() < cs[j].QualifiedName() })
}

// Lookup finds a command by bare or qualified name (a leading "/" ignored).
func (r *Registry) Lookup(name string) (Command, bool) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	all := r.all()
	for _, c := range all {
		if c.QualifiedName() == name {
			return c, true
		}
	}
	for _, c := range all {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Execute runs the named command with args for a user. A command that is not
// user-invocable is unknown to the user (its error says only the model runs it).
func (r *Registry) Execute(ctx context.Context, name, args string) (Result, error) {
	c, ok := r.Lookup(name)
	if !ok || c.Run == nil {
		return Result{}, fmt.Errorf("/%s: %w", strings.TrimPrefix(name, "/"), ErrUnknownCommand)
	}
	if !c.UserInvocable {
		return Result{}, fmt.Errorf("/%s: %w (user-invocable is false: only the model runs it)", strings.TrimPrefix(name, "/"), ErrUnknownCommand)
	}
	return c.Run(ctx, strings.TrimSpace(args)), nil
}

// Split parses "/name args" into name and args; ok is false when line is not a slash
// command ("/" alone, or "//").
func Split(line string) (name, args string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") || strings.HasPrefix(line, "//") {
		return "", "", false
	}
	name, args, _ = strings.Cut(line[1:], " ")
	name = strings.TrimSpace(name)
	return name, strings.TrimSpace(args), name != ""
}
