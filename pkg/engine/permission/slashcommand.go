package permission

import (
	"errors"
	"fmt"
	"strings"
)

// SlashCommandTool is the tool through which the model runs slash commands (Claude
// Code's name). Its rules name the command: `SlashCommand(/name)` is /name without
// arguments, `SlashCommand(/name:*)` (or `/name *`) is /name with any arguments;
// `SlashCommand` alone is every command.
const SlashCommandTool = "SlashCommand"

// commandPattern is a compiled SlashCommand specifier.
type commandPattern struct {
	name string
	// args is the argument text (whitespace collapsed): all of it, or with anyArgs its
	// first words (`/memory add:*` is /memory add with anything after).
	args    string
	anyArgs bool
}

// compileCommandPattern reads `/name`, `/name args`, `/name:*`, `/name *` and
// `/name args:*`; the leading "/" may be left out.
func compileCommandPattern(spec string) (commandPattern, error) {
	s := strings.TrimPrefix(strings.TrimSpace(spec), "/")
	var p commandPattern
	switch {
	case strings.HasSuffix(s, ":*"):
		s, p.anyArgs = strings.TrimSuffix(s, ":*"), true
	case strings.HasSuffix(s, " *"):
		s, p.anyArgs = strings.TrimSuffix(s, " *"), true
	}
	name, args, _ := strings.Cut(strings.TrimSpace(s), " ")
	if name == "" || strings.ContainsAny(name, "*/") {
		return commandPattern{}, fmt.Errorf("SlashCommand specifier must be /NAME, /NAME ARGS or /NAME:*, got %q", spec)
	}
	p.name, p.args = name, collapse(args)
	return p, nil
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// SplitCommandLine splits the SlashCommand tool's input "/name args" into the name
// (without "/") and the arguments.
func SplitCommandLine(line string) (name, args string, err error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") || strings.HasPrefix(line, "//") {
		return "", "", errors.New(`a command starts with "/", as in "/memory list"`)
	}
	name, args, _ = strings.Cut(line[1:], " ")
	if name = strings.TrimSpace(name); name == "" {
		return "", "", errors.New(`the command has no name after "/"`)
	}
	return name, strings.TrimSpace(args), nil
}

// commandMatch relates a SlashCommand call to a pattern. names are every name the
// call's command answers to (what the model typed, and its plugin-qualified or bare
// form): a rule naming any of them governs the call, so neither spelling escapes a
// deny. An allow rule must match exactly; a deny or ask rule in any capitalisation.
func commandMatch(p commandPattern, names []string, args string, allow bool) bool {
	eq := strings.EqualFold
	if allow {
		eq = func(a, b string) bool { return a == b }
	}
	hit := false
	for _, n := range names {
		hit = hit || eq(n, p.name)
	}
	if !hit {
		return false
	}
	args = collapse(args)
	if !p.anyArgs || p.args == "" {
		return p.anyArgs || eq(args, p.args)
	}
	return eq(args, p.args) || (len(args) > len(p.args) && args[len(p.args)] == ' ' && eq(args[:len(p.args)], p.args))
}
